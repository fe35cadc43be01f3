"""The chunked ``linear_cross_entropy`` (``options`` given): two custom differentiable ops.

Note [chunked linear cross entropy]
    ``loss = cross_entropy(input @ W.T + b, target)`` needs the ``(N, C)`` logits; for a
    large vocabulary ``C`` that is the biggest tensor of a step. The chunked path walks the
    batch ``batch_chunk_size`` rows at a time and, for each chunk, computes the logits,
    the loss terms and (for ``"mean"``/``"sum"``) already the gradients of input, weight
    and bias, so nothing of size ``(N, C)`` outlives a chunk:

      shifted  = logits - max(logits)                (row-wise, for a stable exp)
      loss    += sum_n w_n * shifted[n, t_n] - w_n * log(sum_c exp(shifted[n, c]))
      P        = softmax(shifted) * w_n              (w_n: -weight[t_n]/d, 0 if ignored)
      dX[n]    = W[t_n] * w_n - P @ W
      dW      -= P.T @ X ; dW[t_n] += X[n] * w_n
      db      -= sum_n P[n] ; db[t_n] += w_n

    ``d`` is the sum of the kept class weights for ``"mean"`` and 1 for ``"sum"``. The
    scalar op's backward only scales those precomputed gradients by the incoming
    gradient (consuming them unless ``allow_retain_graph``). ``reduction="none"`` cannot
    precompute (the per-row upstream gradient is unknown): its forward returns the
    ``(N,)`` losses, and its backward runs the same loop again with ``w_n`` multiplied by
    the upstream gradient of row ``n``.

    torch defines both as ``torch.library.custom_op`` ops (``torch_nn::...``) whose graph
    nodes are named ``GeneratedBackwardFor_torch_nn__<op>_defaultBackward``; here they are
    ``strided.autograd.Function`` subclasses named so that their nodes carry those names.

Half-precision inputs may accumulate in ``acc_dtype`` (float32): which intermediate is kept
in which dtype follows torch's CPU choices for each ``acc_policy`` (``_Plan``), so the
rounding happens at the same places.
"""

from __future__ import annotations

import strided as _st

from ...autograd import grad_mode
from ...autograd.function import Function

__all__: list[str] = []


class _Plan:
    """The dtypes and buffer choices of one chunked call (torch's CPU dispatch)."""

    def __init__(self, dtype, acc_dtype, acc_policy, compute_input_grad,
                 compute_linear_weight_grad, compute_linear_bias_grad):
        if dtype != acc_dtype and not (dtype in (_st.float16, _st.bfloat16)
                                       and acc_dtype == _st.float32):
            raise RuntimeError(
                "linear_cross_entropy supports float32 acc_dtype with float16/bfloat16 "
                f"inputs, but got {acc_dtype} acc_dtype and {dtype} inputs.")
        self.dtype = dtype
        self.acc_dtype = acc_dtype
        self.use_acc = use_acc = dtype != acc_dtype
        memory_like = acc_policy in ("balanced", "compact")
        if use_acc:
            self.output_dtype = acc_dtype if dtype == _st.float16 else dtype
            self.grad_input_dtype = dtype if memory_like else acc_dtype
            self.logits_dtype = dtype if (dtype == _st.float16 and memory_like) else acc_dtype
            self.weight_chunk_dtype = acc_dtype
        else:
            self.output_dtype = self.grad_input_dtype = dtype
            self.logits_dtype = self.weight_chunk_dtype = dtype
        # off CUDA the matmuls run in one dtype: the weight is cast to the logits' dtype
        self.linear_weight_cast_dtype = self.logits_dtype if use_acc else dtype
        self.weight_grad_scratch = compute_linear_weight_grad and not (
            acc_policy == "compact" and self.logits_dtype == dtype)
        self.bias_grad_scratch = compute_linear_bias_grad and use_acc
        self.input_grad_buf = (compute_input_grad
                               and self.grad_input_dtype != self.linear_weight_cast_dtype)
        self.input_acc_copy = use_acc and (compute_linear_weight_grad
                                           or dtype != self.logits_dtype)
        self.forward_uses_acc_input = use_acc and dtype != self.logits_dtype
        self.logits_downcast = (compute_linear_weight_grad and not self.weight_grad_scratch
                                and self.logits_dtype != dtype)


def _class_weights(target, weight, ignore_index, num_classes, reduction, dtype,
                   loss_grad_output):
    """(target with out-of-range ignored entries set to 0, per-row weights ``w_n``)."""
    mask = target == ignore_index
    if ignore_index < 0 or ignore_index >= num_classes:
        target = _st.where(mask, 0, target)
    if weight is None:
        w = (~mask).to(dtype)
    elif target.numel() > weight.numel():
        w = _st.where(mask, 0, weight.to(dtype).index_select(0, target))
    else:
        w = _st.where(mask, 0, weight.index_select(0, target).to(dtype))
    if reduction == "mean":
        d = w.sum()
        w.div_(_st.where(d == 0, float("nan"), -d))
    elif reduction == "sum":
        w.neg_()
    elif loss_grad_output is not None:     # "none" backward: fold in the upstream grads
        w.neg_().mul_(loss_grad_output.to(w.dtype))
    return target, w


def _accumulate(input, linear_weight, target, linear_bias, weight, reduction, ignore_index,
                label_smoothing, batch_chunk_size, acc_policy, acc_dtype, compute_input_grad,
                compute_linear_weight_grad, compute_linear_bias_grad,
                loss_grad_output=None):
    """The chunk loop of Note [chunked linear cross entropy]; returns
    ``(loss, grad_input, grad_linear_weight, grad_linear_bias)`` (unrequested gradients
    are empty tensors of the right rank)."""
    if acc_policy == "auto" or acc_dtype is None:
        raise RuntimeError(f"unresolved acc_policy={acc_policy!r} or acc_dtype={acc_dtype!r};"
                           " use F.linear_cross_entropy.")
    if target.dtype != _st.int64:
        raise TypeError(
            f"linear_cross_entropy: target dtype must be torch.int64, got {target.dtype}.")
    if label_smoothing > 0.0:
        raise NotImplementedError("linear_cross_entropy does not support label smoothing")
    if reduction not in ("mean", "sum", "none"):
        raise NotImplementedError(f"linear_cross_entropy does not support {reduction=}")
    if linear_bias is not None and linear_bias.shape != linear_weight.shape[:-1]:
        raise RuntimeError(
            "linear_cross_entropy: expected linear_bias shape "
            f"{tuple(linear_weight.shape[:-1])}, got {tuple(linear_bias.shape)}.")
    dtype = input.dtype
    device = input.device
    num_batches, in_features = input.shape
    num_classes = linear_weight.shape[0]
    plan = _Plan(dtype, acc_dtype, acc_policy, compute_input_grad, compute_linear_weight_grad,
                 compute_linear_bias_grad)
    target, w_rows = _class_weights(target, weight, ignore_index, num_classes, reduction,
                                    plan.weight_chunk_dtype, loss_grad_output)
    lw = (linear_weight.to(plan.linear_weight_cast_dtype)
          if plan.linear_weight_cast_dtype != dtype else linear_weight)
    lb = None if linear_bias is None else linear_bias.to(plan.logits_dtype)
    step = batch_chunk_size

    def chunks():
        for start in range(0, num_batches, step):
            size = min(step, num_batches - start)
            x = input.narrow(0, start, size)
            x_acc = x.to(acc_dtype) if plan.input_acc_copy else x
            yield (start, size, x, x_acc, target.narrow(0, start, size),
                   w_rows.narrow(0, start, size))

    def shifted_logits(x, x_acc):
        logits = _st.mm(x_acc if plan.forward_uses_acc_input else x, lw.T)
        if lb is not None:
            logits.add_(lb)
        return logits.sub_(_st.amax(logits, dim=1, keepdim=True))

    if reduction == "none" and loss_grad_output is None:
        pieces = []
        for _start, _size, x, x_acc, t, w in chunks():
            logits = shifted_logits(x, x_acc)
            at_target = logits.gather(1, t.unsqueeze(1)).squeeze(1)
            denom = logits.exp_().sum(1, dtype=acc_dtype)
            loss = denom.log_().sub_(at_target.to(denom.dtype))
            pieces.append(loss.mul_(w.to(denom.dtype)).to(dtype))
        out = _st.cat(pieces) if pieces else _st.empty((0,), dtype=dtype, device=device)
        return (out, _st.empty((0, 0), dtype=dtype, device=device),
                _st.zeros((0, 0), dtype=dtype, device=device),
                _st.zeros((0,), dtype=dtype, device=device))

    output = _st.zeros((), dtype=plan.output_dtype, device=device)
    if reduction == "mean" and num_batches == 0:
        output.fill_(float("nan"))
    grad_input_pieces = []
    grad_lw = _st.zeros(linear_weight.shape if compute_linear_weight_grad else (0, 0),
                        dtype=dtype, device=device)
    grad_lb = _st.zeros(linear_weight.shape[:-1] if compute_linear_bias_grad else (0,),
                        dtype=dtype, device=device)
    compute_grads = compute_input_grad or compute_linear_weight_grad or compute_linear_bias_grad
    for _start, _size, x, x_acc, t, w in chunks():
        logits = shifted_logits(x, x_acc)
        at_target = logits.gather(1, t.unsqueeze(1)).squeeze(1).to(w.dtype)
        output.add_(w.dot(at_target))
        denom = logits.exp_().sum(1, dtype=acc_dtype)
        if compute_grads:                   # logits become softmax * w_n
            logits.mul_((w / denom).to(plan.logits_dtype).unsqueeze(1))
        output.sub_(w.to(denom.dtype).dot(denom.log_()))
        if not compute_grads:
            continue
        if compute_linear_bias_grad:
            sum_dtype = acc_dtype if plan.use_acc else dtype
            if plan.bias_grad_scratch:
                scratch = _st.zeros(grad_lb.shape, dtype=acc_dtype, device=device)
                scratch.sub_(logits.sum(0, dtype=sum_dtype)).index_add_(0, t, w)
                grad_lb.add_(scratch.to(dtype))
            else:
                grad_lb.sub_(logits.sum(0, dtype=sum_dtype)).index_add_(0, t, w)
        if compute_input_grad:
            gi_dtype = (plan.linear_weight_cast_dtype if plan.input_grad_buf
                        else plan.grad_input_dtype)
            gi = (lw.index_select(0, t) * w.to(gi_dtype).unsqueeze(1)).to(gi_dtype)
            gi = _st.addmm(gi, logits, lw, alpha=-1)
            grad_input_pieces.append(gi.to(plan.grad_input_dtype))
        if compute_linear_weight_grad:
            if plan.weight_grad_scratch:
                probs = logits if plan.logits_dtype == acc_dtype else logits.to(acc_dtype)
                scratch = _st.mm(probs.T, x_acc)
                scratch.index_add_(0, t, x_acc * w.unsqueeze(1), alpha=-1)
                grad_lw.sub_(scratch)
            else:
                probs = logits.to(linear_weight.dtype) if plan.logits_downcast else logits
                grad_lw.addmm_(probs.T, x, alpha=-1)
                grad_lw.index_add_(0, t, (x_acc * w.unsqueeze(1)).to(dtype))
    if compute_input_grad:
        grad_input = (_st.cat(grad_input_pieces) if grad_input_pieces
                      else _st.empty(input.shape, dtype=plan.grad_input_dtype, device=device))
    else:
        grad_input = _st.empty((0, 0), dtype=plan.grad_input_dtype, device=device)
    return output.to(dtype), grad_input.to(dtype), grad_lw, grad_lb


def _check_flags(input, linear_weight, linear_bias, *flags):
    """torch's guard against gradient flags that disagree with ``requires_grad`` (it runs
    inside the op's forward, where grad mode is off, as in torch)."""
    enabled = grad_mode.STATE.enabled
    for flag, tensor, what in zip(flags, (input, linear_weight, linear_bias),
                                  ("input", "linear_weight", "linear_bias")):
        if not flag and tensor is not None and tensor.requires_grad and enabled:
            raise RuntimeError(
                f"linear_cross_entropy chunked op: compute_{what}_grad was False at trace "
                f"time but {what}.requires_grad is True at runtime; recompile the graph "
                "with the desired requires_grad.")


_TWICE = ("linear_cross_entropy chunked backward called twice; retain_graph=True / double "
          "backward are not supported.")


class GeneratedBackwardFor_torch_nn__linear_cross_entropy_batch_chunked_default(Function):  # noqa: N801
    """``torch_nn::_linear_cross_entropy_batch_chunked`` ("mean"/"sum"): the forward
    precomputes the gradients, the backward scales them by the upstream gradient."""

    @staticmethod
    def forward(input, linear_weight, target, linear_bias, weight, reduction, ignore_index,
                label_smoothing, batch_chunk_size, acc_policy, acc_dtype, allow_retain_graph,
                compute_input_grad, compute_linear_weight_grad, compute_linear_bias_grad):
        _check_flags(input, linear_weight, linear_bias, compute_input_grad,
                     compute_linear_weight_grad, compute_linear_bias_grad)
        return _accumulate(input, linear_weight, target, linear_bias, weight, reduction,
                           ignore_index, label_smoothing, batch_chunk_size, acc_policy,
                           acc_dtype, compute_input_grad, compute_linear_weight_grad,
                           compute_linear_bias_grad)

    @staticmethod
    def setup_context(ctx, inputs, output):
        allow, gi_flag, gw_flag, gb_flag = inputs[11:15]
        ctx.allow_retain_graph = allow
        ctx.grads = [output[1].detach() if gi_flag else None,
                     output[2].detach() if gw_flag else None,
                     output[3].detach() if gb_flag else None]
        ctx.wanted = (gi_flag, gw_flag, gb_flag)

    @staticmethod
    def backward(ctx, grad_output, _gi, _gw, _gb):
        result = [None] * 15
        for k, slot in enumerate((0, 1, 3)):
            if not ctx.wanted[k]:
                continue
            if ctx.allow_retain_graph:
                result[slot] = ctx.grads[k] * grad_output
            else:
                g, ctx.grads[k] = ctx.grads[k], None
                if g is None:
                    raise RuntimeError(_TWICE)
                result[slot] = g.mul_(grad_output)
        return tuple(result)


class GeneratedBackwardFor_torch_nn__linear_cross_entropy_batch_chunked_no_reduction_default(  # noqa: N801
        Function):
    """``torch_nn::_linear_cross_entropy_batch_chunked_no_reduction``: per-row losses;
    the backward reruns the chunk loop with the upstream gradients folded in."""

    @staticmethod
    def forward(input, linear_weight, target, linear_bias, weight, ignore_index,
                batch_chunk_size, acc_policy, acc_dtype):
        return _accumulate(input, linear_weight, target, linear_bias, weight, "none",
                           ignore_index, 0.0, batch_chunk_size, acc_policy, acc_dtype,
                           False, False, False)[0]

    @staticmethod
    def setup_context(ctx, inputs, output):
        input, linear_weight, target, linear_bias, weight = inputs[:5]
        ctx.save_for_backward(input.detach(), linear_weight.detach(), target,
                              None if linear_bias is None else linear_bias.detach(),
                              None if weight is None else weight.detach())
        ctx.settings = inputs[5:]

    @staticmethod
    def backward(ctx, grad_output):
        input, linear_weight, target, linear_bias, weight = ctx.saved_tensors
        needs = ctx.needs_input_grad
        gi_flag, gw_flag = needs[0], needs[1]
        gb_flag = linear_bias is not None and needs[3]
        result = [None] * 9
        if not (gi_flag or gw_flag or gb_flag):
            return tuple(result)
        ignore_index, batch_chunk_size, acc_policy, acc_dtype = ctx.settings
        with grad_mode.no_grad():
            _, gi, gw, gb = _accumulate(
                input, linear_weight, target, linear_bias, weight, "none", ignore_index, 0.0,
                batch_chunk_size, acc_policy, acc_dtype, gi_flag, gw_flag, gb_flag,
                loss_grad_output=grad_output)
        if gi_flag:
            result[0] = gi
        if gw_flag:
            result[1] = gw
        if gb_flag:
            result[3] = gb
        return tuple(result)


def _linear_cross_entropy_batch_chunked(input, linear_weight, target, linear_bias, weight,
                                        reduction, ignore_index, label_smoothing,
                                        batch_chunk_size, acc_policy, acc_dtype,
                                        allow_retain_graph, compute_input_grad,
                                        compute_linear_weight_grad,
                                        compute_linear_bias_grad):
    """The scalar-reduction op; returns ``(loss, grad_input, grad_linear_weight,
    grad_linear_bias)``, the gradients being what ``loss.backward()`` will hand out."""
    return GeneratedBackwardFor_torch_nn__linear_cross_entropy_batch_chunked_default.apply(
        input, linear_weight, target, linear_bias, weight, reduction, ignore_index,
        label_smoothing, batch_chunk_size, acc_policy, acc_dtype, allow_retain_graph,
        compute_input_grad, compute_linear_weight_grad, compute_linear_bias_grad)


def _linear_cross_entropy_batch_chunked_no_reduction(input, linear_weight, target,
                                                     linear_bias, weight, ignore_index,
                                                     batch_chunk_size, acc_policy, acc_dtype):
    """The ``reduction="none"`` op: the ``(N,)`` losses."""
    cls = GeneratedBackwardFor_torch_nn__linear_cross_entropy_batch_chunked_no_reduction_default
    return cls.apply(input, linear_weight, target, linear_bias, weight, ignore_index,
                     batch_chunk_size, acc_policy, acc_dtype)
