"""Helpers shared by the tests that replay PyTorch's own corpora (``op_db`` and
``module_db``) against strided.

A sample is made once, by torch's generator functions, as torch tensors; ``to_strided``
turns it into the same values for strided (through NumPy, keeping ``requires_grad``), so
both libraries see identical inputs. ``compare`` checks an output pair the way the
corpora's own tests do: same structure, dtype and shape, values within a tolerance that
depends on the dtype (torch's CPU kernels sum in other orders than NumPy's).
"""

from __future__ import annotations

import math
import types

import numpy as np
import torch

import strided

TOLERANCES = {  # dtype name -> (rtol, atol)
    "float64": (1e-7, 1e-7),
    "float32": (1e-4, 1e-5),
    "complex128": (1e-7, 1e-7),
    "complex64": (1e-4, 1e-5),
}


def sample_indices(n: int, k: int) -> list[int]:
    """Up to ``k`` indices spread evenly over ``range(n)``, first and last included."""
    if n <= k:
        return list(range(n))
    return sorted({round(i * (n - 1) / (k - 1)) for i in range(k)})


def strided_dtype(d: torch.dtype):
    return getattr(strided, str(d).removeprefix("torch."))


def to_strided(x):
    """A torch value (tensors, dtypes, devices, torch callables, containers) as strided's."""
    if isinstance(x, torch.Tensor) and _SHARED is not None:   # one torch tensor, one strided
        key = ("tensor", id(x))
        if key not in _SHARED:
            _SHARED[key] = (x, _to_strided_tensor(x))      # (x kept alive: ids stay unique)
        return _SHARED[key][1]
    if isinstance(x, torch.Tensor):
        return _to_strided_tensor(x)
    if isinstance(x, torch.dtype):
        return strided_dtype(x)
    if isinstance(x, (torch.memory_format, torch.layout)):
        return getattr(strided, str(x).removeprefix("torch."))
    if isinstance(x, torch.device):
        return strided.device(str(x))
    if isinstance(x, torch.Size):
        return strided.Size(x)
    if isinstance(x, (list, tuple)):
        converted = [to_strided(v) for v in x]
        if hasattr(x, "_fields"):          # a named tuple
            return type(x)(*converted)
        return type(x)(converted)
    if isinstance(x, dict):
        return {k: to_strided(v) for k, v in x.items()}
    if isinstance(x, torch.nn.Module):
        return _strided_module(x)
    if callable(x) and getattr(x, "__module__", "") and (
            x.__module__.startswith("torch")) and hasattr(x, "__name__"):
        return _strided_callable(x)
    return x


def _to_strided_tensor(x):
    """One torch tensor as strided's (see ``to_strided``)."""
    t = x.detach()
    if t.device.type == "meta":     # (linalg helper) op_db's device-mismatch error inputs
        return strided.empty_strided(tuple(t.shape), t.stride(),
                                     dtype=strided_dtype(t.dtype), device="meta")
    if t.numel() == 0 and t.layout == torch.strided:   # NumPy would zero its strides
        s = strided.empty_strided(tuple(t.shape), t.stride(),
                                  dtype=strided_dtype(t.dtype))
    elif _needs_layout(t) or (_SHARED is not None and t.layout == torch.strided
                              and not (t.is_conj() or t.is_neg() or t._is_zerotensor())):
        # (op_db fixes) keep strides, offset, storage; under to_strided_shared, tensors
        # sharing a storage in torch (out= the input itself) share one in strided
        n = t.untyped_storage().nbytes() // t.element_size()
        key = (t.untyped_storage().data_ptr(), t.dtype)
        whole = None if _SHARED is None else _SHARED.get(key)
        if whole is None:
            flat = t.new_empty(0).set_(t.untyped_storage(), 0, (n,), (1,))
            arr = _numpy_of(flat)
            whole = strided.from_numpy(arr).clone()    # a resizable storage, as torch's
            if t.dtype == torch.bfloat16:
                whole = whole.to(strided.bfloat16)
            elif t.dtype == torch.complex32:
                whole = strided.view_as_complex(whole).clone()
            if _SHARED is not None:
                _SHARED[key] = whole
        s = whole.as_strided(tuple(t.shape), t.stride(), t.storage_offset()).detach()
    else:
        arr = _numpy_of(t.resolve_conj())
        s = strided.from_numpy(arr)
        if t.dtype == torch.bfloat16:
            s = s.to(strided.bfloat16)
        elif t.dtype == torch.complex32:
            s = strided.view_as_complex(s).clone()
    if x.requires_grad:
        s.requires_grad_(True)
    return s


def _numpy_of(t: torch.Tensor) -> np.ndarray:
    """A copy of ``t``'s values in NumPy: bfloat16 widened to float32 (exact), complex32 as
    its (..., 2) float16 pairs (NumPy has neither type)."""
    if t.dtype == torch.bfloat16:
        t = t.float()
    elif t.dtype == torch.complex32:
        t = torch.view_as_real(t)
    return t.numpy().copy()


_SHARED: dict | None = None


def to_strided_shared(x):
    """``to_strided`` where tensors that share a storage in torch share one in strided (an
    error input's ``out=`` that is the input itself must overlap it in both)."""
    global _SHARED
    _SHARED = {}
    try:
        return to_strided(x)
    finally:
        _SHARED = None


def _needs_layout(t: torch.Tensor) -> bool:
    """A plain strided CPU tensor whose layout a contiguous copy would not reproduce:
    non-contiguous strides, a storage offset or a storage larger than the tensor (samples
    such as as_strided's partial views, ravel's non-contiguous input)."""
    if t.layout != torch.strided or t.is_conj() or t.is_neg() or t._is_zerotensor():
        return False
    n = t.untyped_storage().nbytes() // max(t.element_size(), 1)
    return not (t.is_contiguous() and t.storage_offset() == 0 and n == t.numel())


def _strided_module(module):
    """A torch module given as an argument (``distance_function=nn.PairwiseDistance()``,
    ``TransformerEncoder(encoder_layer)``) as a strided module of the same class (by module
    path) with the same settings, parameters, buffers and submodules."""
    path = type(module).__module__.replace("torch.", "strided.", 1).split(".")[1:]
    namespace = strided
    for part in path:
        namespace = getattr(namespace, part)
    cls = getattr(namespace, type(module).__name__)
    converted = cls.__new__(cls)
    strided.nn.Module.__init__(converted)
    bookkeeping = set(vars(converted))
    for name, value in vars(module).items():
        if name not in bookkeeping:
            object.__setattr__(converted, name, to_strided(value))
    for name, param in module._parameters.items():
        converted.register_parameter(name, None if param is None else strided.nn.Parameter(
            to_strided(param.detach()), requires_grad=param.requires_grad))
    for name, buf in module._buffers.items():
        converted.register_buffer(name, None if buf is None else to_strided(buf),
                                  persistent=name not in module._non_persistent_buffers_set)
    for name, sub in module._modules.items():
        converted.add_module(name, None if sub is None else _strided_module(sub))
    converted.train(module.training)
    return converted


def _strided_callable(fn):
    """torch.nn.functional.relu -> strided.nn.functional.relu, torch.add -> strided.add."""
    module = fn.__module__.replace("torch._C._nn", "torch.nn.functional")
    if module.startswith("torch._C") or module == "torch.functional":
        module = "torch"
    target = strided
    for part in module.split(".")[1:]:
        target = getattr(target, part)
    return getattr(target, fn.__name__)


def leaf_pairs(value_s, value_t) -> list:
    """(strided, torch) pairs of the tensors at the same place in two (nested) values,
    where torch's is a leaf that requires grad (a non-leaf keeps no ``.grad``)."""
    if isinstance(value_t, torch.Tensor):
        # (a leaf that is a view of another tensor, like istft's window.real[:8], keeps its
        # base in torch; to_strided makes it a fresh leaf, so its .grad is not comparable)
        plain_leaf = value_t.requires_grad and value_t.is_leaf and value_t._base is None
        return [(value_s, value_t)] if plain_leaf else []
    if isinstance(value_t, (list, tuple)):
        return [p for vs, vt in zip(value_s, value_t) for p in leaf_pairs(vs, vt)]
    if isinstance(value_t, dict):
        return [p for k in value_t for p in leaf_pairs(value_s[k], value_t[k])]
    return []


def compare_grads(pairs) -> None:
    """Each pair's ``.grad`` agrees (both None, or both close)."""
    for k, (ls, lt) in enumerate(pairs):
        if lt.grad is None:
            assert ls.grad is None, f"leaf {k}: torch has no gradient, strided has"
        else:
            assert ls.grad is not None, f"leaf {k}: strided has no gradient"
            compare(ls.grad, lt.grad, f"gradient of leaf {k}")


def tensors(value) -> list:
    """Every tensor in a (nested) output, in order."""
    if isinstance(value, (torch.Tensor, strided.Tensor)):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in tensors(v)]
    return []


def values(t) -> np.ndarray:
    """A tensor's values as NumPy (bfloat16 and half widened to float32)."""
    t = t.detach()
    if isinstance(t, torch.Tensor):
        if t.dtype in (torch.bfloat16,):
            t = t.float()
        elif t.dtype == torch.complex32:    # (exact)
            t = t.to(torch.complex64)
        return t.numpy(force=True)          # resolves conjugate views and zero tensors
    if t.dtype is strided.bfloat16:
        t = t.to(strided.float32)
    elif t.dtype is strided.complex32:
        t = t.to(strided.complex64)
    return t.resolve_conj().resolve_neg().numpy()     # the values conj / neg views stand for


def dtype_name(d) -> str:
    return str(d).removeprefix("torch.").removeprefix("strided.")


def compare(out_s, out_t, what: str = "output", tol: tuple | None = None) -> None:
    """Same structure, dtypes, shapes; values close for the dtype (NaN equal to NaN), or
    within ``tol`` = (rtol, atol) when given."""
    if isinstance(out_t, torch.Tensor):
        assert isinstance(out_s, strided.Tensor), f"{what}: expected a tensor, got {out_s!r}"
        assert tuple(out_s.shape) == tuple(out_t.shape), (what, out_s.shape, out_t.shape)
        assert dtype_name(out_s.dtype) == dtype_name(out_t.dtype), (what, out_s.dtype,
                                                                     out_t.dtype)
        rtol, atol = tol or TOLERANCES.get(dtype_name(out_t.dtype), (0, 0))
        np.testing.assert_allclose(values(out_s), values(out_t), rtol=rtol, atol=atol,
                                   equal_nan=True, err_msg=what)
    elif isinstance(out_t, (list, tuple)):
        assert isinstance(out_s, (list, tuple)) and len(out_s) == len(out_t), (what, out_s)
        for i, (a, b) in enumerate(zip(out_s, out_t)):
            compare(a, b, f"{what}[{i}]", tol)
    elif isinstance(out_t, float):
        assert math.isclose(out_s, out_t, rel_tol=1e-6, abs_tol=1e-9) or (
            math.isnan(out_s) and math.isnan(out_t)), (what, out_s, out_t)
    else:
        assert out_s == out_t, (what, out_s, out_t)


def backward_both(outs_s, outs_t, seed: int = 0) -> bool:
    """Backpropagate the same random cotangents through every floating output that has a
    graph, in both libraries. Returns False when no output needs a gradient."""
    pairs = [(s, t) for s, t in zip(tensors(outs_s), tensors(outs_t))
             if t.requires_grad and (t.is_floating_point() or t.is_complex())]
    if not pairs:
        return False
    rng = np.random.default_rng(seed)
    total_s, total_t = None, None
    for s, t in pairs:
        if t.dtype == torch.complex32:     # (torch sums no complex32: widen, exactly, first)
            s, t = s.to(strided.complex64), t.to(torch.complex64)
        cot = rng.standard_normal(tuple(t.shape))
        if t.is_complex():
            cot = cot + 1j * rng.standard_normal(tuple(t.shape))
        ct = torch.from_numpy(np.asarray(cot)).to(t.dtype)
        cs = to_strided(ct)
        term_t = (t * ct).sum()
        term_s = (s * cs).sum()
        if t.is_complex():
            term_t, term_s = term_t.real, term_s.real
        total_t = term_t if total_t is None else total_t + term_t
        total_s = term_s if total_s is None else total_s + term_s
    total_t.backward()
    total_s.backward()
    return True


def grad_fn_name(t) -> str | None:
    fn = getattr(t, "grad_fn", None)
    return None if fn is None else fn.name()


def seeded(op, *args, **kwargs):
    """strided's ``wrapper_set_seed``: the op under a fixed seed (torch's uses 42)."""
    state = strided.get_rng_state()
    strided.manual_seed(42)
    try:
        return op(*args, **kwargs)
    finally:
        strided.set_rng_state(state)


def _resolve(root, dotted: str):
    for part in dotted.split("."):
        if not hasattr(root, part):
            return None
        root = getattr(root, part)
    return root


def rebind(fn):
    """A torch-side helper function (an entry's lambda, a sample's output processing)
    with ``torch`` in its globals re-bound to strided."""
    glb = dict(fn.__globals__)
    glb.update(torch=strided, wrapper_set_seed=seeded)
    return types.FunctionType(fn.__code__, glb, fn.__name__, fn.__defaults__, fn.__closure__)


def strided_op(o):
    """The strided callable for an op_db entry, or None when strided has none.

    A lambda (random ops under ``wrapper_set_seed``, argument reorderings, method calls)
    is re-bound to strided; an aten overload (``torch.ops.aten.slice.Tensor``) maps to
    ``strided.ops.aten``; a Tensor slot (``__radd__``, ``cdouble``) to ``strided.Tensor``;
    anything else by the entry's dotted name (``linalg.cond``, ``fft.rfft2``,
    ``nn.functional.relu``)."""
    fn = o.op
    if getattr(fn, "__name__", "") == "<lambda>" or getattr(fn, "__module__", "").startswith(
            "torch.testing._internal"):                  # the corpus's own helper functions
        return rebind(fn)
    if isinstance(fn, (torch._ops.OpOverload, torch._ops.OpOverloadPacket)):
        return _resolve(strided.ops, str(fn))
    if type(fn).__name__ in ("method_descriptor", "wrapper_descriptor") or getattr(
            fn, "__qualname__", "").startswith("Tensor."):
        return getattr(strided.Tensor, fn.__name__, None)
    return (_resolve(strided, o.name.removeprefix("torch."))
            or _resolve(strided, getattr(fn, "__name__", "")))


def storage_sharing(outputs, inputs) -> set:
    """(output index, input index) pairs whose tensors share a storage: which outputs
    alias which inputs."""
    def ptr(t):
        return t.untyped_storage().data_ptr() if t.device.type == "cpu" else None
    outs, ins = tensors(outputs), tensors(inputs)
    return {(i, j) for i, a in enumerate(outs) for j, b in enumerate(ins)
            if ptr(a) is not None and ptr(a) == ptr(b) and a.numel() and b.numel()}


def compare_metadata(out_s, out_t, what: str = "output") -> None:
    """Same structure, shapes, dtypes and strides; values are not compared (an
    uninitialized result)."""
    pairs = list(zip(tensors(out_s), tensors(out_t)))
    assert len(pairs) == len(tensors(out_t)) == len(tensors(out_s)), what
    for k, (s, t) in enumerate(pairs):
        assert tuple(s.shape) == tuple(t.shape), (what, k, s.shape, t.shape)
        assert dtype_name(s.dtype) == dtype_name(t.dtype), (what, k, s.dtype, t.dtype)
        assert tuple(s.stride()) == tuple(t.stride()), (what, k, s.stride(), t.stride())
