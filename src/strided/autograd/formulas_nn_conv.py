"""Backward helpers of the convolution family (autograd/derivatives/nn_conv.yaml).

They call public operators only (``convolution``, ``convolution_backward``), so the
gradients they build are recorded in turn: double backward gives torch's
``ConvolutionBackwardBackward0`` nodes.
"""

from __future__ import annotations

import strided as _s

__all__ = ["conv_backward_grads", "conv_double_backward", "im2col", "col2im"]


def _conv_backward(*args):
    return _s.ops.aten.convolution_backward.default(*args)


def conv_backward_grads(grad, input, weight, bias_sizes, stride, padding, dilation,
                        transposed, output_padding, groups, node):
    """(grad_input, grad_weight, grad_bias) of ``convolution``, only those with live edges."""
    mask = [node._need(0), node._need(1), node._need(2)]
    return _conv_backward(grad, input, weight, bias_sizes, stride, padding, dilation,
                          transposed, output_padding, groups, mask)


def conv_double_backward(grads, grad_output, input, weight, stride, padding, dilation,
                         transposed, output_padding, groups, node):
    """``convolution_backward`` is linear in each of (grad_output, input) and
    (grad_output, weight): with y = B(x, w) the convolution, its gradients are
    gx = dB/dx^T(go; w), gw = dB/dw^T(go; x), gb = sum(go). Given the incoming
    ggx, ggw, ggb:

    - grad_output gets B(ggx, w) + B(x, ggw) + ggb (broadcast over the channels);
    - input gets dB/dx^T(go; ggw), weight gets dB/dw^T(go; ggx).
    """
    ggi, ggw, ggb = grads[0], grads[1], grads[2]
    bias_sizes = None if ggb is None else ggb.shape
    r_go = r_in = r_w = None
    if node._need(0):
        terms = []
        if ggi is not None:
            terms.append(_s.convolution(ggi, weight, None, stride, padding, dilation, transposed,
                                        output_padding, groups))
        if ggw is not None:
            terms.append(_s.convolution(input, ggw, None, stride, padding, dilation, transposed,
                                        output_padding, groups))
        if ggb is not None:
            view = [1] * grad_output.dim()
            view[1] = ggb.shape[0]
            terms.append(ggb.reshape(view).expand(grad_output.shape))
        if terms:
            r_go = terms[0]
            for t in terms[1:]:
                r_go = r_go + t
    if node._need(1) and ggw is not None:
        r_in = _conv_backward(grad_output, input, ggw, bias_sizes, stride, padding, dilation,
                              transposed, output_padding, groups, [True, False, False])[0]
    if node._need(2) and ggi is not None:
        r_w = _conv_backward(grad_output, ggi, weight, bias_sizes, stride, padding, dilation,
                             transposed, output_padding, groups, [False, True, False])[1]
    return r_go, r_in, r_w


def im2col(grad, kernel_size, dilation, padding, stride):
    return _s.nn.functional._generated.im2col(grad, kernel_size, dilation, padding, stride)


def col2im(grad, output_size, kernel_size, dilation, padding, stride):
    return _s.nn.functional._generated.col2im(grad, output_size, kernel_size, dilation,
                                             padding, stride)
