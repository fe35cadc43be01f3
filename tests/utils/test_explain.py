"""strided.explain: the recorded path of each seed example contains the seed's steps, in order;
the tree and JSON renderings; the tracer leaves nothing behind; the CLI."""

from __future__ import annotations

import gc
import io
import json
import os
import subprocess
import sys

import pytest

import strided
from strided.utils.explain import Call, Explanation, Index, Iterator, Memory, step_from_dict


def contains_in_order(path, expected) -> bool:
    it = iter(path)
    return all(any(p == e for p in it) for e in expected)


def assert_steps(ex, expected):
    path = ex.path()
    assert contains_in_order(path, expected), f"{expected} not in order in {path}"


def calls(ex, op=None):
    return [s for _, s in ex.walk() if isinstance(s, Call) and (op is None or s.op == op)]


# -- seed 004: torch.rand(3, 4)[0] + torch.rand(3, 4) ------------------------------------------

def test_seed_004_life_of_a_tensor():
    gc.collect()       # no leftover from another test may be freed inside the recording
    gc.disable()
    try:
        ex = strided.explain("res = torch.rand(3, 4)[0] + torch.rand(3, 4)")
    finally:
        gc.enable()
    assert_steps(ex, [
        "torch.rand", "aten::rand", "empty", "alloc", "uniform_",         # _t1
        "Tensor.__getitem__", "aten::select.int", "as_strided",          # _t2 = _t1[0]
        "torch.rand", "aten::rand", "empty", "alloc", "uniform_",         # _t3
        "Tensor.__add__", "aten::add.Tensor", "TensorIterator", "alloc",  # res
        "free", "free"])                                                  # del _t2, _t3
    rand = calls(ex, "aten::rand")[0]
    assert rand.args["size"] == [3, 4] and rand.dispatch_key == "CPU"
    assert "device argument" in rand.key_reasons[0]
    add = calls(ex, "aten::add.Tensor")[0]
    assert add.args["self"]["tensor"] == [4] and add.args["other"]["tensor"] == [3, 4]
    assert add.dispatch_key == "CPU" and add.kernel.endswith("elementwise.add")
    assert any(r.startswith("CPU from self") for r in add.key_reasons)
    it = next(s for _, s in ex.walk() if isinstance(s, Iterator))
    assert it.broadcast_shape == [3, 4] and it.common_dtype == "float32"
    assert it.output_strides == [4, 1]
    assert it.loop_shape == [4, 3] and it.loop_strides[1] == [1, 0]   # the broadcast input
    select = calls(ex, "aten::select.int")[0]
    assert select.view == {"sizes": [4], "strides": [1], "storage_offset": 0,
                           "of": {"sizes": [3, 4], "strides": [4, 1], "storage_offset": 0},
                           "shares_storage": True}
    mem = [s for _, s in ex.walk() if isinstance(s, Memory)]
    allocs = [m.ptr for m in mem if m.event == "alloc"]
    frees = [m.ptr for m in mem if m.event == "free"]
    assert len(allocs) == 3 and sorted(frees) == sorted(allocs[:2])   # res stays alive
    assert all(m.nbytes == 64 for m in mem)
    top_frees = [s for s in ex.record if isinstance(s, Memory)]
    assert [m.event for m in top_frees] == ["free", "free"]
    assert top_frees[0].source.startswith("line 1: res = torch.rand")


# -- seed 000: indexing -----------------------------------------------------------------------

def test_seed_000_setitem_int_tuple():
    ex = strided.explain("t = torch.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]])\nt[1, 2] = 3")
    assert_steps(ex, ["Tensor.__setitem__", "aten::select.int", "as_strided",
                      "aten::select.int", "as_strided", "aten::fill_.Scalar"])
    node = next(s for s in ex.record if isinstance(s, Index))
    assert node.op == "setitem" and node.items == [1, 2] and node.value == 3
    assert node.ran == ["select", "select", "fill_"]
    fill = calls(ex, "aten::fill_.Scalar")[0]
    assert fill.version_bumps == [{"arg": "self", "before": 0, "after": 1}]
    assert ex.namespace["t"].tolist()[1][2] == 3


def test_seed_000_setitem_advanced():
    ex = strided.explain("t = torch.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]])\n"
                         "rows = torch.tensor([0, 2])\ncols = torch.tensor([1, 1])\n"
                         "t[rows, cols] = 10")
    assert_steps(ex, ["Tensor.__setitem__", "applySlicing", "aten::index_put_"])
    node = next(s for s in ex.record if isinstance(s, Index))
    assert node.ran[0] == "applySlicing" and node.ran[-1] == "index_put_ (advanced indexing)"
    slicing = next(s for s in node.children if getattr(s, "name", "") == "applySlicing")
    assert len(slicing.details["advanced_indices"]) == 2
    assert calls(ex, "aten::index_put_")[0].version_bumps
    assert ex.namespace["t"].tolist() == [[1, 10, 3], [4, 5, 6], [7, 10, 9]]


def test_seed_002_slicing_getitem():
    ex = strided.explain("x = torch.tensor([[1, 2], [3, 4]])\ny = x[1:]\nz = x[:, 0]")
    assert_steps(ex, ["Tensor.__getitem__", "aten::slice.Tensor", "as_strided",
                      "Tensor.__getitem__", "applySlicing", "aten::select.int"])
    assert calls(ex, "aten::slice.Tensor")[0].view["storage_offset"] == 2
    assert calls(ex, "aten::select.int")[0].view["strides"] == [2]


# -- seed 001: views ----------------------------------------------------------------------------

@pytest.mark.parametrize("code, op, sizes, strides, offset", [
    ("t = torch.rand(4, 4)\nb = t.view(2, 8)", "aten::view", [2, 8], [8, 1], 0),
    ("arr = torch.rand(2, 4, 4)\nd = arr.diagonal(-1, 1, 2)", "aten::diagonal", [2, 3],
     [16, 5], 4),
    ("arr = torch.rand(2, 1, 4)\nout = arr.expand(-1, 4, -1)", "aten::expand", [2, 4, 4],
     [4, 0, 1], 0),
    ("arr = torch.rand(2, 4, 4)\nout = arr.narrow(1, 1, 2)", "aten::narrow", [2, 2, 4],
     [16, 4, 1], 4),
    ("arr = torch.rand(2, 3, 4)\nout = arr.permute(2, 0, 1)", "aten::permute", [4, 2, 3],
     [1, 12, 4], 0),
    ("arr = torch.rand(2, 3, 4)\nout = arr.unfold(1, 2, 1)", "aten::unfold", [2, 2, 4, 2],
     [12, 4, 1, 4], 0),
])
def test_seed_001_views(code, op, sizes, strides, offset):
    ex = strided.explain(code)
    assert_steps(ex, ["aten::rand", "alloc", op, "as_strided"])
    (call,) = calls(ex, op)
    assert call.view["sizes"] == sizes and call.view["strides"] == strides
    assert call.view["storage_offset"] == offset
    assert not [s for _, s in ex.walk() if isinstance(s, Memory)][1:]   # no copy, no alloc


def test_seed_001_diagonal_twice():
    ex = strided.explain("arr = torch.rand(2, 4, 4)\nd = arr.diagonal(-1, 1, 2)\n"
                         "d2 = d.diagonal(1, 0, 1)")
    second = calls(ex, "aten::diagonal")[1]
    assert (second.view["sizes"], second.view["strides"], second.view["storage_offset"]) == \
        ([2], [21], 9)


def test_seed_001_transpose_contiguous():
    ex = strided.explain("base = torch.tensor([[0, 1], [2, 3]])\nt = base.transpose(0, 1)\n"
                         "c = t.contiguous()")
    assert_steps(ex, ["Tensor.transpose", "aten::transpose.int", "as_strided",
                      "Tensor.contiguous", "aten::contiguous", "alloc"])
    assert calls(ex, "aten::transpose.int")[0].view["strides"] == [1, 2]
    cont = calls(ex, "aten::contiguous")[0]
    assert cont.view is None and "strides" not in cont.result   # a fresh row-major tensor


# -- bindings, keys, errors -----------------------------------------------------------------------

def test_bindings_and_overloads():
    a, b = strided.ones(2, 3), strided.ones(2, 3)
    with strided.explain() as ex:
        a + b
        a * b
        a.add(b)
        strided.add(a, b)
        a + 1
    record = [s for s in ex.record if isinstance(s, Call)]
    assert [c.binding for c in record] == ["Tensor.__add__", "Tensor.__mul__", "Tensor.add",
                                              "torch.add", "Tensor.__add__"]
    assert [c.op for c in record] == ["aten::add.Tensor", "aten::mul.Tensor",
                                         "aten::add.Tensor", "aten::add.Tensor",
                                         "aten::add.Tensor"]
    assert record[-1].args["other"] == 1
    assert any(getattr(s, "name", "") == "fast path" for s in record[0].children)
    assert [s.event for s in ex.record if isinstance(s, Memory)] == ["free"] * 5   # unused


def test_torch_tensor_is_a_top_level_step_with_its_empty_inside():
    ex = strided.explain("t = torch.tensor([[1, 2], [3, 4]])")
    top = ex.record[0]
    assert top.kind == "inner" and top.name == "torch.tensor"
    assert top.source == "line 1: t = torch.tensor([[1, 2], [3, 4]])"
    inner_ops = [c.op for c in top.children if isinstance(c, Call)]
    assert inner_ops == ["aten::empty.memory_format"]
    assert "line 1: t = torch.tensor" in str(ex)


def test_autograd_key_reason():
    x = strided.ones(3, requires_grad=True)
    with strided.explain() as ex:
        y = x * 2
    call = ex.record[0]
    del y
    assert call.dispatch_key == "Autograd"
    assert "Autograd from self (requires grad)" in call.key_reasons
    assert call.registered_for == "Autograd"


def test_error_leaves_no_open_steps():
    with pytest.raises(IndexError):
        strided.explain("t = torch.ones(2)\nt[5]")
    with strided.explain() as ex:
        with pytest.raises(RuntimeError):
            strided.ones(2, 3).view(4)
        one = strided.ones(1)
    record = [s for s in ex.record if isinstance(s, Call)]
    assert [c.op for c in record] == ["aten::ones", "aten::view", "aten::ones"]
    assert record[1].error == "raised" and not record[1].children
    assert one.tolist() == [1.0]


def test_no_nesting_and_type_check():
    with strided.explain():
        with pytest.raises(RuntimeError, match="already being recorded"):
            strided.explain().__enter__()
    with pytest.raises(TypeError, match="must be str"):
        strided.explain(3)


def test_tracing_off_leaves_nothing():
    from strided.frontend import indexing
    from strided.kernels import factory, random, tensor_iterator, views
    from strided.ops import dispatcher
    before = (indexing.getitem, indexing.setitem, random._uniform, factory.empty,
              views.make_view, tensor_iterator.TensorIteratorConfig.build,
              strided.kernels.elementwise._fast_binary)
    strided.explain("torch.rand(3, 4)[0] + torch.rand(3, 4)")
    after = (indexing.getitem, indexing.setitem, random._uniform, factory.empty,
             views.make_view, tensor_iterator.TensorIteratorConfig.build,
             strided.kernels.elementwise._fast_binary)
    assert before == after
    assert dispatcher.OperatorHandle.call is dispatcher._plain_call
    assert not strided.core.allocator.get_allocator("cpu").hooks


# -- rendering -----------------------------------------------------------------------------------

def test_tree_rendering_plain_and_colour(monkeypatch):
    ex = strided.explain("t = torch.rand(3, 4)\nt[0] + 1")
    text = str(ex)     # pytest captures stdout: not a TTY
    assert "\033[" not in text
    lines = text.splitlines()
    assert lines[0] == "line 1: t = torch.rand(3, 4)"
    assert lines[1].startswith("▸ torch.rand → aten::rand")
    assert "    key     CPU" in text and "    · uniform_" in text
    assert "line 2: t[0] + 1" in text and "view    sizes=(4,) strides=(1,)" in text
    assert "\033[" in ex.render(color=True)

    class TTY(io.StringIO):
        def isatty(self):
            return True
    from strided.utils import explain as mod
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert mod._want_color(TTY())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not mod._want_color(TTY())


def test_json_round_trip():
    ex = strided.explain("t = torch.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]])\n"
                         "t[torch.tensor([0, 2]), torch.tensor([1, 1])] = 10\ny = t.t() + 1")
    data = json.loads(ex.to_json())
    assert data == ex.to_dict()
    kinds = {s["kind"] for s in data["steps"]}
    assert {"call", "index", "memory"} <= kinds
    rebuilt = Explanation()
    rebuilt.record = [step_from_dict(s) for s in data["steps"]]
    assert rebuilt.to_dict() == data and rebuilt.path() == ex.path()


# -- the CLI -------------------------------------------------------------------------------------

def _run(*args):
    env = dict(os.environ, NO_COLOR="1")
    out = subprocess.run([sys.executable, "-m", "strided", *args], capture_output=True,
                         text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_cli_main_has_both_sections():
    out = _run()
    assert "t.t().contiguous()" in out and "allocator:" in out          # the canonical section
    for title in ("seed 004", "t[1, 2] = 3", "t[rows, cols] = 10", "t.view(2, 8)",
                  "base.transpose(0, 1)", "diagonal", "expand", "narrow", "permute", "unfold"):
        assert title in out
    assert "TensorIterator" in out and "- free" in out and "\033[" not in out


def test_cli_explain_code_json_and_svg(tmp_path):
    out = _run("explain")
    assert "seed 001: unfold" in out and "t.t().contiguous()" not in out
    out = _run("explain", "t = torch.rand(3, 4); t[0] + 1")
    assert "aten::select.int" in out and "aten::add.Tensor" in out
    script = tmp_path / "prog.py"
    script.write_text("x = torch.ones(2, 3)\ny = x.t()\n")
    out = _run("explain", str(script), "--json", "--svg", str(tmp_path / "svg"))
    doc = json.loads(out)
    assert [s["op"] for s in doc["steps"]] == ["aten::ones", "aten::t"]
    pictures = list((tmp_path / "svg").glob("*.svg"))
    assert len(pictures) == 1 and pictures[0].read_text().lstrip().startswith(("<svg", "<?xml"))


def test_autograd_call_shows_the_backend_call_below_it():
    x = strided.ones(3, requires_grad=True)
    with strided.explain() as ex:
        x * 2
    top = ex.record[0]
    assert top.dispatch_key == "Autograd"
    below = [c for c in top.children if isinstance(c, Call)]
    assert [(c.op, c.dispatch_key) for c in below] == [("aten::mul.Tensor", "CPU")]
