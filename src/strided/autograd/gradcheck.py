"""``gradcheck`` and ``gradgradcheck``: analytical gradients against finite differences.

    gradcheck(fn, (x, y))        # True, or raises GradcheckError naming the mismatch

For every output element ``j`` (and, for complex outputs, both the real and the
imaginary unit as grad_output ``v``) the analytical vector-Jacobian product
``autograd.grad(out, inputs, v * e_j)`` is compared with central differences of the
real function ``L(x) = Re(conj(v) * out_j(x))``: ``dL/dRe(x)`` plus, for complex
inputs, ``i * dL/dIm(x)`` (torch's convention for gradients of complex inputs).
"""

from __future__ import annotations

import itertools

import numpy as np

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]


class GradcheckError(RuntimeError):
    pass


def _tuple(x):
    return tuple(x) if isinstance(x, (list, tuple)) else (x,)


def _differentiable(inputs):
    return [i for i, t in enumerate(inputs) if _is_tensor(t) and t.requires_grad]


def _is_tensor(x):
    from ..core.tensor_impl import TensorImpl
    return isinstance(x, TensorImpl)


def _outputs(fn, inputs):
    from . import grad_mode
    with grad_mode.enable_grad():
        return _tuple(fn(*inputs))


def _flat_outputs(fn, inputs, out_index):
    out = _tuple(fn(*inputs))[out_index]
    return np.asarray(out.detach().reshape(-1).tolist(), dtype=np.complex128)


def _numeric_columns(fn, inputs, idx, out_index, eps):
    """For each element k of ``inputs[idx]`` and each part (1, and 1j for complex inputs):
    the central difference of the flattened output ``out_index``."""
    t = inputs[idx]
    parts = (1.0, 1j) if t.is_complex() else (1.0,)
    columns = []
    if any(st == 0 and n > 1 for n, st in zip(t._sizes, t._strides)):
        raise RuntimeError(
            f"The {idx}th input has a dimension with stride 0. gradcheck only supports inputs "
            f"that are non-overlapping to be able to compute the numerical gradients "
            f"correctly. You should call .contiguous on the input before passing it to "
            f"gradcheck.")
    # a detached alias (any layout): writing it records nothing, and ``fn`` still runs with
    # grad mode on (gradgradcheck's function calls autograd.grad); elements are visited in
    # the logical row-major order the analytical rows use
    view = t.detach()
    for k in itertools.product(*(range(n) for n in t._sizes)):
        orig = view[k].item()
        per_part = []
        for part in parts:
            view[k] = orig + part * eps
            plus = _flat_outputs(fn, inputs, out_index)
            view[k] = orig - part * eps
            minus = _flat_outputs(fn, inputs, out_index)
            view[k] = orig
            per_part.append((plus - minus) / (2 * eps))
        columns.append(per_part)
    return columns


def _numeric_row(columns, j, v, complex_input):
    """d Re(conj(v) out_j) / d x as torch defines a gradient (real part + i imag part)."""
    row = np.zeros(len(columns), dtype=np.complex128 if complex_input else np.float64)
    for k, per_part in enumerate(columns):
        value = (np.conj(v) * per_part[0][j]).real
        if complex_input:
            value = value + 1j * (np.conj(v) * per_part[1][j]).real
        row[k] = value
    return row


def _analytic_row(outputs, inputs, diff_idx, out_index, j, v):
    from ..kernels.factory import zeros
    from . import grad
    out = outputs[out_index]
    if not out.requires_grad:
        return [None for _ in diff_idx]
    go = zeros(out._sizes, out._dtype)
    go.view(-1)[j] = v
    return grad((out,), [inputs[i] for i in diff_idx], (go,), retain_graph=True,
                allow_unused=True)


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False,
              check_forward_ad=False, check_backward_ad=True, fast_mode=False,
              masked=None):
    """True if the analytical gradients of ``func`` at ``inputs`` match finite differences
    (within ``atol + rtol * |numerical|``)."""
    if check_forward_ad or check_batched_forward_grad:
        raise ValueError("gradcheck: forward-mode AD is not available in strided "
                         "(check_forward_ad / check_batched_forward_grad must be False)")
    inputs = _tuple(inputs)
    diff_idx = _differentiable(inputs)
    if not diff_idx:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, "
                         "but none of the them have requires_grad=True.")
    for i in diff_idx:
        if inputs[i]._dtype.name not in ("float64", "complex128"):
            import warnings
            warnings.warn(f"Input #{i} requires gradient and is not a double precision "
                          f"floating point or complex. This check will likely fail if all "
                          f"the inputs are not of double precision floating point or "
                          f"complex. ", stacklevel=2)
    try:
        outputs = _outputs(func, inputs)
        for oi, out in enumerate(outputs):
            if not _is_tensor(out) or not (out.is_floating_point() or out.is_complex()):
                continue
            units = (1.0, 1j) if out.is_complex() else (1.0,)
            # the analytical rows first: the finite differences perturb the inputs in
            # place, which (rightly) invalidates the graph's saved tensors
            outputs = _outputs(func, inputs)
            rows = {(j, v): _analytic_row(outputs, inputs, diff_idx, oi, j, v)
                    for j in range(out.numel()) for v in units}
            columns = {i: _numeric_columns(func, inputs, i, oi, eps) for i in diff_idx}
            for j in range(out.numel()):
                for v in units:
                    analytic = rows[(j, v)]
                    for pos, i in enumerate(diff_idx):
                        numeric = _numeric_row(columns[i], j, v, inputs[i].is_complex())
                        a = analytic[pos]
                        a_np = np.zeros_like(numeric) if a is None else \
                            np.asarray(a.detach().reshape(-1).tolist(), dtype=numeric.dtype)
                        if not np.allclose(a_np, numeric, rtol=rtol, atol=atol):
                            raise GradcheckError(
                                f"Jacobian mismatch for output {oi} with respect to input "
                                f"{i},\nnumerical:{numeric}\nanalytical:{a_np}\n"
                                f"(output element {j}, grad_output {v})")
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False,
                  check_batched_grad=False, check_fwd_over_rev=False, check_rev_over_rev=True,
                  fast_mode=False, masked=False):
    """gradcheck of the first derivative: the gradients of ``func`` (taken with
    ``create_graph=True``) are themselves checked against finite differences."""
    from . import grad
    inputs = _tuple(inputs)
    diff_idx = _differentiable(inputs)
    outputs = [o for o in _outputs(func, inputs)
               if _is_tensor(o) and (o.is_floating_point() or o.is_complex())]
    if grad_outputs is None:
        import strided
        gen = strided.Generator().manual_seed(0)
        grad_outputs = []
        for o in outputs:
            g = strided.rand(o.shape, dtype=o.dtype, generator=gen) if not o.is_complex() \
                else strided.ones(o.shape, dtype=o.dtype)
            grad_outputs.append(g.requires_grad_())
    grad_outputs = _tuple(grad_outputs)
    n_in = len(inputs)

    def first_derivative(*args):
        ins, gos = args[:n_in], args[n_in:]
        outs = [o for o in _tuple(func(*ins))
                if _is_tensor(o) and (o.is_floating_point() or o.is_complex())]
        diff = [ins[i] for i in diff_idx]
        gs = grad(outs, diff, gos, create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(first_derivative, inputs + tuple(grad_outputs), eps=eps, atol=atol,
                     rtol=rtol, raise_exception=raise_exception)
