"""torch's own docstring examples, run against strided (issue 14).

Every ``>>>`` snippet of the public functions, Tensor methods and nn modules of the
namespaces strided covers is run twice, with ``torch`` bound to torch and to strided (same
seed), and the value of every expression, printed output and exception class is compared.
Snippets that cannot be compared are classified by an explicit rule with a reason
(``torch_examples.classify``); every other snippet must agree.
"""

from __future__ import annotations

import doctest
import sys
from pathlib import Path

import pytest
import torch
from conftest import check

import strided

sys.path.insert(0, str(Path(__file__).parent))
import torch_examples as te  # noqa: E402


@pytest.fixture(scope="module")
def results():
    return te.evaluate()


def test_corpus_is_the_whole_surface(results):
    names = {sn.name for sn, _, _ in results}
    # every namespace contributes, and the corpus is as large as torch's documentation
    assert len(results) > 500, len(results)
    for prefix in ("torch.linalg.", "torch.fft.", "torch.special.", "torch.nn.functional.",
                   "Tensor.", "torch.nn.", "torch.nn.init.", "torch.autograd.", "torch.optim."):
        assert any(n.startswith(prefix) for n in names), prefix
    # the explicit lists name snippets that exist (no stale entries)
    assert set(te.KNOWN) <= names, set(te.KNOWN) - names
    assert te.HEAVY <= names, te.HEAVY - names


def test_every_must_agree_snippet_agrees(results):
    c = te.counts(results)
    print("\ndocstring snippets:", len(results), c)
    bad = [f"{sn.name} [{outcome}]: {detail[:400]}" for sn, outcome, detail in results
           if outcome in ("missing name", "disagree", "stale KNOWN entry")]
    agree = c.get("agree", 0)
    # most of the corpus is compared, not classified away
    assert agree > 0.85 * len(results), c
    assert not bad, "\n\n".join(bad)


def _snippet(text):
    return te.Snippet("t", doctest.DocTestParser().get_examples(text))


def test_harness_detects_disagreements():
    sn = _snippet(">>> x = torch.arange(3.)\n>>> x * 2\n>>> x.sum()\n")
    to = te.run(sn, torch)
    so = te.run(sn, strided)
    assert te.compare(sn, so, to) == ("agree", "")
    # a different value, dtype, shape, a missing exception and a missing name are caught
    for bad in (strided.arange(3.) * 3, strided.arange(3) * 2, strided.arange(4.) * 2):
        so2 = [so[0], te.Outcome("value", bad), so[2]]
        assert te.compare(sn, so2, to)[0] == "disagree"
    so3 = [so[0], te.Outcome("error", AttributeError("module 'strided' has no attribute 'x'")),
           so[2]]
    assert te.compare(sn, so3, to)[0] == "missing name"
    to4 = [to[0], te.Outcome("error", RuntimeError("boom")), to[2]]
    assert te.compare(sn, so, to4)[0] == "disagree"
    # printed output is compared as text
    sp = _snippet(">>> print(torch.tensor([1.5, 2.0]))\n")
    assert te.compare(sp, te.run(sp, strided), te.run(sp, torch))[0] == "agree"
    assert te.compare(sp, [te.Outcome("printed", "tensor([1.5000, 2.1000])\n")],
                      te.run(sp, torch))[0] == "disagree"


def test_imports_of_torch_bind_strided():
    sn = _snippet(">>> import torch.nn.functional as G\n>>> G.relu(torch.tensor([-1.0, 2.0]))\n"
                  ">>> from torch import nn\n>>> nn.ReLU()\n")
    so = te.run(sn, strided)
    assert isinstance(so[1].value, strided.Tensor)
    assert type(so[3].value).__module__.startswith("strided")
    assert te.compare(sn, so, te.run(sn, torch)) == ("agree", "")


def test_classification_rules_have_reasons():
    assert te.excuse(_snippet(">>> torch.ones(2, device='cuda')\n")) == "needs CUDA/MPS"
    assert te.not_run(_snippet(">>> torch.save(x, 'x.pt')\n")) == "needs files"
    assert te.not_run(_snippet(">>> torch.ones(2)  # doctest: +SKIP\n")) == "doctest +SKIP"
    float8 = ">>> torch.ones(2).to(torch.float8_e4m3fn)\n"
    assert te.not_run(_snippet(float8)) is None
    assert te.excuse(_snippet(float8)).startswith("torch-only")
    assert te.classify(_snippet(">>> torch.ones(2)\n")) is None
    # an excused snippet that agrees counts as agreeing
    [(_, outcome, _)] = te.evaluate([_snippet(">>> torch.ones(2).is_conj()\n")])
    assert outcome == "agree"
    [(_, outcome, _)] = te.evaluate([_snippet(float8)])
    assert outcome == "excused: torch-only: runtime/storage internals"


# ---------------------------------------------------------------- fixes the corpus found

@pytest.mark.parametrize("driver", ["gelsy", "gelsd", "gelss", "gels"])
@pytest.mark.parametrize("a,b", [((1, 3, 3), (2, 3, 3)), ((2, 1, 5, 3), (1, 4, 5, 2)),
                                 ((5, 3), (2, 5, 2)), ((3, 5, 3), (5,)), ((1, 4, 3), (2, 4)),
                                 ((2, 5, 3), (5, 2)), ((2, 5, 3), (2, 5)), ((4, 3), (4,))])
def test_lstsq_broadcast_input(a, b, driver):
    """torch.linalg.lstsq's example: rank and singular values keep the input's own batch
    shape when it broadcasts; torch's dims rule and vector case."""
    def recipe(m):
        g = m.Generator().manual_seed(0)
        r = m.linalg.lstsq(m.randn(a, generator=g), m.randn(b, generator=g), driver=driver)
        return tuple(r.solution.shape), r.residuals.shape, r.rank, r.singular_values.shape
    check(recipe)
