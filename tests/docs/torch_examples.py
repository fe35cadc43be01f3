"""torch's own docstring examples as a corpus: extraction, classification and a runner.

``collect()`` walks the public functions and classes of the namespaces strided covers
(``torch``, ``torch.Tensor``, ``torch.nn.functional``, ``torch.linalg``, ``torch.fft``,
``torch.special``, ``torch.masked`` and the ``torch.nn`` module classes), parses the ``>>>``
examples of each docstring with :class:`doctest.DocTestParser` and returns one
:class:`Snippet` per distinct docstring (aliases sharing one docstring count once).

``run(snippet, lib)`` executes all examples of a snippet in order in one namespace where
``torch`` (and ``import torch...``) is bound to ``lib``, after ``lib.manual_seed(0)``, and
records for every example either its value (expressions), its printed output, or the class of
the exception it raised.

``not_run(snippet)`` gives the reason a snippet is not run (doctest ``+SKIP``, CUDA, files,
the time budget); ``excuse(snippet)`` the reason a snippet that disagrees is excused (torch-only
features, gaps filed as other issues, an explicit ``KNOWN`` list). Every rule is explicit and
named; a snippet that agrees counts as agreeing whatever rule it matches.

Usage: ``python tests/docs/torch_examples.py`` prints the per-outcome counts and the
disagreements.
"""

from __future__ import annotations

import builtins
import contextlib
import doctest
import importlib
import inspect
import io
import itertools
import math
import os
import re
import warnings
from dataclasses import dataclass

import numpy as np

NAMESPACES = ("torch", "torch.Tensor", "torch.nn.functional", "torch.linalg", "torch.fft",
              "torch.special", "torch.masked", "torch.nn", "torch.nn.init", "torch.nn.utils",
              "torch.nn.utils.rnn", "torch.autograd", "torch.autograd.functional",
              "torch.random", "torch.testing", "torch.signal.windows", "torch.utils.data",
              "torch.optim")


@dataclass
class Snippet:
    name: str            # qualified name of the first object found with this docstring
    examples: list       # doctest.Example list

    @property
    def source(self) -> str:
        return "".join(e.source for e in self.examples)


def _members(ns: str):
    import torch
    if ns == "torch.Tensor":
        obj = torch.Tensor
        names = sorted(n for n in dir(obj) if not n.startswith("_"))
        for n in names:
            yield f"Tensor.{n}", getattr(obj, n, None)
        return
    mod = importlib.import_module(ns)
    names = getattr(mod, "__all__", None) or dir(mod)
    for n in sorted(set(names)):
        if n.startswith("_"):
            continue
        o = getattr(mod, n, None)
        if ns == "torch.nn":
            if not (inspect.isclass(o) and issubclass(o, torch.nn.Module)):
                continue
        elif not callable(o) or inspect.ismodule(o):
            continue
        elif inspect.isclass(o) and ns == "torch":
            continue
        yield f"{ns}.{n}", o


def collect() -> list[Snippet]:
    parser = doctest.DocTestParser()
    seen: set[str] = set()
    out: list[Snippet] = []
    for ns in NAMESPACES:
        for qual, obj in _members(ns):
            doc = getattr(obj, "__doc__", None)
            if not isinstance(doc, str) or ">>>" not in doc or doc in seen:
                continue
            seen.add(doc)
            try:
                examples = parser.get_examples(inspect.cleandoc(doc), qual)
            except ValueError:       # malformed doctest text in torch's docstring
                continue
            if examples:
                out.append(Snippet(qual, examples))
    return out


# --------------------------------------------------------------------------- classification

# (regex over the snippet's source, reason). The first match wins.
# Rules for snippets that are not run at all (they need a device or files this test does not
# give them).
NOT_RUN_RULES = [
    (r"\bopen\(|\.pt['\"]|\.pth['\"]|tempfile|from_file|BytesIO|torch\.(save|load)\(",
     "needs files"),
    (r"set_default_device\(['\"]cuda|set_default_tensor_type\(torch\.cuda",
     "needs CUDA (makes it the process's default device)"),
]

# Rules that excuse a snippet that does not agree: torch-only features and gaps filed as other
# issues. A snippet matching one of them that agrees counts as agreeing.
SOURCE_RULES = [
    (r"torch\.jit|torch\.compile|torch\._dynamo|torch\.fx|torch\.export|torch\.library",
     "torch-only: compiler/jit"),
    (r"quantiz|qint|quint", "torch-only: quantization"),
    (r"names=|\.refine_names|\.align_to|\.rename\(|\.names\b", "torch-only: named tensors"),
    (r"nested", "torch-only: nested tensors"),
    (r"distributed|dist\.", "torch-only: distributed"),
    (r"channels_last|memory_format", "issue 15: memory formats"),
    (r"torch\.utils\.(checkpoint|benchmark|tensorboard|cpp_extension|mobile)|torch\.hub|"
     r"torch\.profiler|torch\.autograd\.profiler|torch\.package|torch\.onnx",
     "torch-only: tooling outside strided's scope"),
    (r"float8|float4|bits8|uint1|int1\b|\.untyped_storage|\.storage\(\)|data_ptr|"
     r"set_printoptions|torch\.backends|torch\.cpu\.|torch\.set_num_threads|"
     r"set_default_device|torch\.Stream|torch\.Event|pin_memory|share_memory",
     "torch-only: runtime/storage internals"),
    (r"cuda|\bmps\b", "needs CUDA/MPS"),
]


def _skip_option(snippet: Snippet) -> bool:
    return any(e.options.get(doctest.SKIP) for e in snippet.examples)


# Snippets that disagree for a reason outside the scope of this corpus test or a gap not
# closed yet, each with its reason (and issue where one is filed).
KNOWN: dict[str, str] = {
    "torch.set_flush_denormal": "torch-only: CPU denormal flushing (NumPy kernels)",
    "torch.masked.is_masked_tensor": "torch-only: the MaskedTensor prototype",
    "Tensor.grad_dtype": "gap: Tensor.grad_dtype (torch 2.13's leaf gradient dtype)",
    "torch.vmap": "gap: torch.func.vmap",
    "torch.autograd.enforce_grad_layout_policy": "gap: torch 2.13's "
                                                 "autograd.enforce_grad_layout_policy",
    "torch.optim.Muon": "gap: torch.optim.Muon",
    "torch.linalg.solve": "round-off: torch.allclose of a float32 solve at the tolerance edge",
}

# Snippets whose inputs are too large for the test's time budget (several seconds each with
# NumPy kernels on a shared 2-core machine); STRIDED_DOCS_FULL=1 runs them too.
HEAVY = {
    "torch.nn.ConvTranspose3d", "torch.nn.CircularPad3d", "torch.nn.Conv3d",
    "torch.nn.ReplicationPad3d", "torch.nn.BatchNorm3d", "torch.nn.Transformer",
    "torch.nn.InstanceNorm3d", "torch.nn.AvgPool3d", "torch.nn.LPPool3d", "torch.nn.MaxPool3d",
    "torch.conv_transpose3d", "torch.nn.functional.fractional_max_pool3d",
    "torch.nn.TransformerDecoder", "torch.nn.FractionalMaxPool3d", "torch.nn.MaxUnpool3d",
    "torch.conv3d", "torch.nn.ConvTranspose2d", "torch.nn.TransformerEncoder",
    "torch.nn.Conv2d", "torch.nn.TransformerDecoderLayer",
}


def not_run(snippet: Snippet) -> str | None:
    """The reason a snippet is not run at all, or ``None``."""
    if _skip_option(snippet):
        return "doctest +SKIP"
    for pattern, reason in NOT_RUN_RULES:
        if re.search(pattern, snippet.source):
            return reason
    if snippet.name in HEAVY and not os.environ.get("STRIDED_DOCS_FULL"):
        return "time budget: large inputs (STRIDED_DOCS_FULL=1 runs it)"
    return None


def excuse(snippet: Snippet) -> str | None:
    """The reason a snippet that does not agree is excused, or ``None`` (it must agree)."""
    if snippet.name in KNOWN:
        return KNOWN[snippet.name]
    for pattern, reason in SOURCE_RULES:
        if re.search(pattern, snippet.source):
            return reason
    return None


def classify(snippet: Snippet) -> str | None:
    """``None``: the snippet must agree. Otherwise why it is not run or may disagree."""
    return not_run(snippet) or excuse(snippet)


# --------------------------------------------------------------------------- running

@dataclass
class Outcome:
    kind: str       # "value", "printed", "none", "error"
    value: object   # the value, the printed text, or the exception


def _namespace(lib):
    import torch
    libname = lib.__name__

    def mapped_import(name, globals=None, locals=None, fromlist=(), level=0):
        if level == 0 and (name == "torch" or name.startswith("torch.")):
            name = libname + name[len("torch"):]
        return builtins.__import__(name, globals, locals, fromlist, level)

    bi = dict(builtins.__dict__)
    bi["__import__"] = mapped_import
    # names torch's examples use without defining them: tensor(...), linalg.*, itertools
    ns = {"__builtins__": bi, "torch": lib, "np": np, "numpy": np, "math": math,
          "itertools": itertools, "tensor": lib.tensor, "linalg": lib.linalg,
          "__name__": "__doctest__"}
    if lib is torch:
        ns.update(F=torch.nn.functional, nn=torch.nn)
    else:
        with contextlib.suppress(AttributeError):
            ns.update(F=lib.nn.functional, nn=lib.nn)
    return ns


def run(snippet: Snippet, lib) -> list[Outcome]:
    """Run every example of ``snippet`` in one namespace; one Outcome per example."""
    ns = _namespace(lib)
    lib.manual_seed(0)
    outcomes = []
    for ex in snippet.examples:
        buf = io.StringIO()
        try:
            with contextlib.redirect_stdout(buf), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    code = compile(ex.source, "<doctest>", "eval")
                except SyntaxError:
                    exec(compile(ex.source, "<doctest>", "exec"), ns)
                    value = None
                else:
                    value = eval(code, ns)
        except Exception as e:  # noqa: BLE001 - every exception is an outcome
            outcomes.append(Outcome("error", e))
            continue
        printed = buf.getvalue()
        if value is not None:
            outcomes.append(Outcome("value", value))
        elif printed:
            outcomes.append(Outcome("printed", printed))
        else:
            outcomes.append(Outcome("none", None))
    return outcomes


# --------------------------------------------------------------------------- comparison

def _is_missing_name(e: BaseException) -> bool:
    if isinstance(e, (NameError, ImportError)):
        return True
    if isinstance(e, AttributeError):
        msg = str(e)
        return "strided" in msg or "has no attribute" in msg
    return False


def _values(t):
    import torch
    if isinstance(t, torch.Tensor):
        t = t.detach().resolve_conj().resolve_neg()
        if t.dtype == torch.bfloat16:
            t = t.float()
        return t.numpy() if t.layout == torch.strided else None
    t = t.detach().resolve_conj().resolve_neg()
    if str(t.dtype).endswith("bfloat16"):
        t = t.float()
    return t.numpy()


def _same(s, t, path="", values=True) -> str | None:
    """``None`` when strided's value ``s`` matches torch's ``t``; otherwise why not."""
    import torch

    import strided
    if isinstance(t, torch.Tensor):
        if not isinstance(s, strided.Tensor):
            return f"{path}: expected a Tensor, got {type(s).__name__}"
        if tuple(s.shape) != tuple(t.shape):
            return f"{path}: shape {tuple(s.shape)} vs {tuple(t.shape)}"
        if str(s.dtype).removeprefix("strided.").removeprefix("torch.") != \
                str(t.dtype).removeprefix("torch."):
            return f"{path}: dtype {s.dtype} vs {t.dtype}"
        if t.device.type == "meta" or t.layout != torch.strided or not values:
            return None
        a, b = _values(s), _values(t)
        if b.dtype.kind in "fc":
            # float32 accumulations of random data in another order: relative to the scale
            finite = np.abs(b[np.isfinite(b)])
            scale = float(finite.max()) if finite.size else 0.0
            ok = np.allclose(a, b, rtol=1e-4, atol=1e-5 * max(scale, 1.0), equal_nan=True)
        else:
            ok = np.array_equal(a, b)
        return None if ok else f"{path}: values differ\nstrided: {a}\ntorch:   {b}"
    if isinstance(t, (torch.Size, torch.dtype, torch.device, torch.layout)):
        a = str(s).replace("strided.", "torch.")
        return None if a == str(t) else f"{path}: {a} vs {t}"
    if isinstance(t, (list, tuple)):
        if not isinstance(s, (list, tuple)) or len(s) != len(t):
            return f"{path}: {type(s).__name__} {s!r} vs {type(t).__name__} {t!r}"
        if type(t).__name__ != type(s).__name__ and not (
                type(t).__module__.startswith("torch") and hasattr(t, "_fields")):
            return f"{path}: type {type(s).__name__} vs {type(t).__name__}"
        for i, (a, b) in enumerate(zip(s, t)):
            r = _same(a, b, f"{path}[{i}]", values)
            if r:
                return r
        return None
    if isinstance(t, dict):
        if not isinstance(s, dict) or list(s) != list(t):
            return f"{path}: {s!r} vs {t!r}"
        for k in t:
            r = _same(s[k], t[k], f"{path}[{k!r}]", values)
            if r:
                return r
        return None
    if isinstance(t, (bool, int, float, complex, str, type(None))):
        if type(s) is not type(t):
            return f"{path}: {type(s).__name__} {s!r} vs {type(t).__name__} {t!r}"
        if isinstance(t, float) and (math.isnan(t) and math.isnan(s)):
            return None
        if isinstance(t, (float, complex)):
            return None if abs(s - t) <= 1e-6 + 1e-5 * abs(t) else f"{path}: {s!r} vs {t!r}"
        return None if s == t else f"{path}: {s!r} vs {t!r}"
    if isinstance(t, np.ndarray):
        if not isinstance(s, np.ndarray) or s.dtype != t.dtype or s.shape != t.shape:
            return f"{path}: {s!r} vs {t!r}"
        return None if np.allclose(s, t, equal_nan=True) else f"{path}: {s!r} vs {t!r}"
    if isinstance(t, torch.nn.Module) or isinstance(t, torch.nn.Parameter):
        a = repr(s).replace("strided.", "torch.")
        return None if a == repr(t) else f"{path}: repr {a!r} vs {t!r}"
    if callable(t) and not isinstance(t, type):
        return None if callable(s) else f"{path}: {s!r} is not callable"
    # any other object (generators, parameter iterators, handles): the type name matches
    if type(s).__name__ != type(t).__name__:
        return f"{path}: type {type(s).__name__} vs {type(t).__name__}"
    return None


def _normalize_printed(text: str) -> str:
    return text.replace("strided.", "torch.").replace("strided", "torch")


# tensors read from uninitialized memory: shape and dtype are compared, values are not
_UNINITIALIZED = re.compile(r"\bempty(_strided|_like)?\(|\bnew_empty|skip_init")


def compare(snippet: Snippet, so: list[Outcome], to: list[Outcome]) -> tuple[str, str]:
    """(outcome, detail): outcome is "agree", "missing name" or "disagree"."""
    for i, (a, b) in enumerate(zip(so, to)):
        where = f"example {i}: {snippet.examples[i].source.strip()}"
        if b.kind == "error":
            if a.kind != "error":
                return "disagree", f"{where}: torch raised {type(b.value).__name__}: " \
                    f"{b.value}; strided did not"
            if type(a.value).__name__ != type(b.value).__name__:
                kind = "missing name" if _is_missing_name(a.value) else "disagree"
                return kind, f"{where}: {type(a.value).__name__}: {a.value} vs " \
                    f"torch {type(b.value).__name__}: {b.value}"
            continue
        if a.kind == "error":
            kind = "missing name" if _is_missing_name(a.value) else "disagree"
            return kind, f"{where}: strided raised {type(a.value).__name__}: {a.value}"
        if a.kind != b.kind:
            return "disagree", f"{where}: {a.kind} {a.value!r} vs torch {b.kind} {b.value!r}"
        if a.kind == "value":
            src = snippet.examples[i].source
            if re.match(r"\s*torch\.dist\(", src):
                # a round-off measure (distance between two ways to compute one thing):
                # both small, not equal
                small = float(a.value) < 1e-2 and float(b.value) < 1e-2
                if not small and _same(a.value, b.value):
                    return "disagree", f"{where}: round-off {a.value} vs torch {b.value}"
                continue
            r = _same(a.value, b.value, values=not _UNINITIALIZED.search(snippet.source))
            if r:
                return "disagree", f"{where}{r}"
        elif a.kind == "printed":
            if _normalize_printed(a.value) != b.value:
                # printed tensors compared by value, not by text, only when the texts differ
                # in float formatting; otherwise the text itself must match
                return "disagree", f"{where}: printed\n{a.value}\nvs torch\n{b.value}"
    return "agree", ""


def evaluate(snippets=None):
    """[(snippet, outcome, detail)]: outcome "agree", "missing name", "disagree",
    "not run: <reason>", "excused: <reason>" or "stale KNOWN entry"."""
    import torch

    import strided
    snippets = collect() if snippets is None else snippets
    results = []
    torch_default = torch.get_default_dtype()
    for sn in snippets:
        reason = not_run(sn)
        if reason is not None:
            results.append((sn, f"not run: {reason}", ""))
            continue
        try:
            to = run(sn, torch)
            so = run(sn, strided)
        finally:
            torch.set_default_dtype(torch_default)
            torch.set_default_device(None)
            torch.use_deterministic_algorithms(False)
            strided.use_deterministic_algorithms(False)
            torch.set_flush_denormal(False)
            torch.set_printoptions(profile="default")
            strided.set_printoptions(profile="default")
            strided.set_default_dtype(strided.float32)
            torch.set_grad_enabled(True)
            strided.set_grad_enabled(True)
        outcome, detail = compare(sn, so, to)
        reason = excuse(sn)
        if outcome != "agree" and reason is not None:
            outcome, detail = f"excused: {reason}", f"[{outcome}] {detail}"
        elif outcome == "agree" and sn.name in KNOWN:
            outcome, detail = "stale KNOWN entry", "agrees now: remove it from KNOWN"
        results.append((sn, outcome, detail))
    return results


def counts(results) -> dict[str, int]:
    c: dict[str, int] = {}
    for _, outcome, _ in results:
        c[outcome] = c.get(outcome, 0) + 1
    return dict(sorted(c.items(), key=lambda kv: -kv[1]))


if __name__ == "__main__":
    import sys
    import time
    t0 = time.time()
    res = evaluate()
    for sn, outcome, detail in res:
        if outcome in ("missing name", "disagree") and (len(sys.argv) < 2 or
                                                        outcome in sys.argv[1:]):
            print(f"=== {sn.name} [{outcome}]\n{detail[:600]}\n")
    print(f"{len(res)} snippets in {time.time() - t0:.1f}s:", counts(res))
    raw = {k: sum(1 for _, o, d in res if o.startswith("excused") and d.startswith(f"[{k}]"))
           for k in ("missing name", "disagree")}
    print("excused snippets by what they do:", raw)
