"""View kernels against torch: sizes, strides, storage offset, values, dtype, aliasing
(shared storage, ``_base``, version counter), torch's errors, the worked numbers of
seed 001, meta tensors, and hypothesis-driven chains of views."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
from conftest import assert_same, check, hyp
from hypothesis import given
from hypothesis import strategies as st

import strided
from strided.kernels import views as views_kernels

# =========================================================================== helpers

INPUTS = {
    # contiguous, with a storage offset of 0 but a _base (arange(...).view)
    "c": lambda m: m.arange(24.).view(2, 3, 4),
    # shape (2, 3, 4) with permuted strides (1, 2, 6)
    "p": lambda m: m.arange(24.).view(4, 3, 2).permute(2, 1, 0),
    # a strided window with an offset: sizes (2, 3, 4) strides (30, 10, 2) offset 7
    "w": lambda m: m.arange(80.).as_strided((2, 3, 4), (30, 10, 2), 7),
    # size-1 dims
    "o": lambda m: m.arange(6.).view(2, 1, 3, 1),
    # 0-dim
    "s": lambda m: m.tensor(3.5),
    # empty
    "e": lambda m: m.zeros(2, 0, 3),
    # meta
    "m": lambda m: m.empty(2, 3, 4, device="meta"),
    # not a view at all (no _base)
    "r": lambda m: m.arange(24.).view(2, 3, 4).clone(),
}


def _tensors(r):
    if isinstance(r, (tuple, list)):
        out = []
        for x in r:
            out.extend(_tensors(x))
        return out
    return [r] if isinstance(r, (torch.Tensor, strided.Tensor)) else []


def _alias_facts(x, r):
    """How ``r`` relates to its input ``x``: storage shared, is x itself, is a view of x's
    root, is a view at all, same version counter."""
    root = x._base if x._base is not None else x
    facts = []
    for t in _tensors(r):
        shares = (t.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
                  if x.device.type != "meta" else None)
        facts.append((shares, t is x, t._base is root, t._base is None, t._version,
                      x._version))
    return facts


def vcheck(make, op, *, warns=True, first_line=False):
    """``op(make(m))`` for strided and torch: same result (or error) and same aliasing."""
    seen = {}

    def recipe(m):
        x = make(m)
        r = op(x)
        seen[m] = (x, r)
        return r

    rs, rt = check(recipe, warns=warns, first_line=first_line)
    if torch in seen and strided in seen:
        assert _alias_facts(*seen[strided]) == _alias_facts(*seen[torch])
    return rs, rt


# =========================================================================== the op table

# (name, input keys, op) — every op with several argument combinations and its errors.
TABLE = [
    # view / view_as / reshape / reshape_as
    ("view", "cpwrme", lambda x: x.view(-1)),
    ("view_2", "cm", lambda x: x.view(4, 3, 2)),
    ("view_keep", "cpwm", lambda x: x.view(2, 3, 4)),
    ("view_split_last", "cpwm", lambda x: x.view(2, 3, 2, 2)),
    ("view_bad", "c", lambda x: x.view(5, -1)),
    ("view_bad_no_infer", "c", lambda x: x.view(5, 5)),
    ("view_negative", "c", lambda x: x.view(-2, -12)),
    ("view_negative_later", "c", lambda x: x.view(-1, -12)),
    ("view_zero_infer", "c", lambda x: x.view(0, -1)),
    ("view_nc", "pw", lambda x: x.view(6, 4)),
    ("view_nc_ok", "p", lambda x: x.view(2, 3, 2, 2)),
    ("view_two_infer", "c", lambda x: x.view(-1, -1)),
    ("view_0d", "s", lambda x: x.view(1, 1)),
    ("view_empty", "e", lambda x: x.view(0, 5)),
    ("view_empty_infer", "e", lambda x: x.view(-1, 0)),
    ("view_as", "cpm", lambda x: x.view_as(x.new_empty(4, 6))),
    ("reshape", "cpwrmse", lambda x: x.reshape(-1)),
    ("reshape_same", "cpwm", lambda x: x.reshape(2, 3, 4)),
    ("reshape_merge", "cpwm", lambda x: x.reshape(6, 4)),
    ("reshape_bad", "c", lambda x: x.reshape(7, -1)),
    ("reshape_as", "cpm", lambda x: x.reshape_as(x.new_empty(3, 8))),
    # flatten / unflatten / ravel
    ("flatten", "cpwosem", lambda x: x.flatten()),
    ("flatten_mid", "cpwm", lambda x: x.flatten(1)),
    ("flatten_range", "cpwom", lambda x: x.flatten(0, -2)),
    ("flatten_same", "cpwm", lambda x: x.flatten(1, 1)),
    ("flatten_neg_same", "s", lambda x: x.flatten(-1, 0)),
    ("flatten_bad", "c", lambda x: x.flatten(2, 1)),
    ("flatten_oob", "cs", lambda x: x.flatten(3)),
    ("unflatten", "cpwm", lambda x: x.unflatten(2, (2, -1))),
    ("unflatten_first", "cpw", lambda x: x.unflatten(0, (1, 2, 1))),
    ("unflatten_neg", "cpw", lambda x: x.unflatten(-2, (3, 1))),
    ("unflatten_empty", "c", lambda x: x.unflatten(1, ())),
    ("unflatten_bad", "c", lambda x: x.unflatten(2, (3, -1))),
    ("unflatten_bad2", "c", lambda x: x.unflatten(2, (3, 2))),
    ("unflatten_oob", "c", lambda x: x.unflatten(3, (1,))),
    ("ravel", "cpwosem", lambda x: x.ravel()),
    ("torch_ravel", "cp", lambda x: _mod(x).ravel(x)),
    # squeeze / unsqueeze
    ("squeeze", "cosem", lambda x: x.squeeze()),
    ("squeeze_dim", "cosm", lambda x: x.squeeze(0)),
    ("squeeze_dim1", "o", lambda x: x.squeeze(1)),
    ("squeeze_dim_neg", "os", lambda x: x.squeeze(-1)),
    ("squeeze_dim_oob", "os", lambda x: x.squeeze(4)),
    ("squeeze_dims", "o", lambda x: x.squeeze((1, 3))),
    ("squeeze_dims_mixed", "o", lambda x: x.squeeze((0, -1, 2))),
    ("squeeze_dims_empty", "o", lambda x: x.squeeze(())),
    ("squeeze_dims_dup", "o", lambda x: x.squeeze((1, -3))),
    ("squeeze_dims_0d_dup", "s", lambda x: x.squeeze((0, -1))),
    ("squeeze_dims_0d", "s", lambda x: x.squeeze((0,))),
    ("squeeze_dims_oob", "o", lambda x: x.squeeze((1, 9))),
    ("unsqueeze", "cpwosem", lambda x: x.unsqueeze(0)),
    ("unsqueeze_mid", "cpwom", lambda x: x.unsqueeze(2)),
    ("unsqueeze_end", "cpwosm", lambda x: x.unsqueeze(-1)),
    ("unsqueeze_oob", "cs", lambda x: x.unsqueeze(4)),
    # transposes
    ("transpose", "cpwosem", lambda x: x.transpose(0, -1)),
    ("transpose_same", "cpm", lambda x: x.transpose(1, 1)),
    ("transpose_oob", "c", lambda x: x.transpose(0, 3)),
    ("swapdims", "cpw", lambda x: x.swapdims(0, 1)),
    ("swapaxes", "cpw", lambda x: x.swapaxes(2, 1)),
    ("t_2d", "cpw", lambda x: x.select(0, 1).t()),
    ("t_1d", "cp", lambda x: x.select(0, 1).select(0, 0).t()),
    ("t_0d", "s", lambda x: x.t()),
    ("t_3d", "c", lambda x: x.t()),
    ("adjoint", "cpwom", lambda x: x.adjoint()),
    ("adjoint_1d", "c", lambda x: x.flatten().adjoint()),
    ("mT", "cpwom", lambda x: x.mT),
    ("mT_1d", "c", lambda x: x.flatten().mT),
    ("mH", "cpwom", lambda x: x.mH),
    ("mH_1d", "c", lambda x: x.flatten().mH),
    ("T", "cpwom", lambda x: x.T),
    ("T_2d", "cpw", lambda x: x.select(1, 2).T),
    ("T_1d", "cp", lambda x: x.flatten().T),
    ("H", "cpw", lambda x: x.select(1, 2).H),
    ("H_3d", "c", lambda x: x.H),
    ("H_1d", "c", lambda x: x.flatten().H),
    ("permute", "cpwm", lambda x: x.permute(2, 0, 1)),
    ("permute_neg", "cpw", lambda x: x.permute(-1, 0, -2)),
    ("permute_tuple", "cpw", lambda x: x.permute((1, 2, 0))),
    ("permute_0d", "s", lambda x: x.permute(())),
    ("permute_short", "c", lambda x: x.permute(0, 1)),
    ("permute_dup", "c", lambda x: x.permute(0, 1, 1)),
    ("permute_neg_dup", "c", lambda x: x.permute(0, 1, -2)),
    ("permute_oob", "c", lambda x: x.permute(0, 1, 3)),
    ("movedim", "cpwm", lambda x: x.movedim(0, -1)),
    ("movedim_list", "cpwo", lambda x: x.movedim((0, 1), (2, 0))),
    ("movedim_same", "cp", lambda x: x.movedim(1, 1)),
    ("movedim_empty", "cp", lambda x: x.movedim((), ())),
    ("movedim_0d", "s", lambda x: x.movedim(0, -1)),
    ("movedim_lens", "c", lambda x: x.movedim((0, 1), (2,))),
    ("movedim_rep_src", "c", lambda x: x.movedim((0, -3), (1, 2))),
    ("movedim_rep_dst", "c", lambda x: x.movedim((0, 1), (2, 2))),
    ("movedim_oob", "c", lambda x: x.movedim((0, 5), (1, 2))),
    ("moveaxis", "cpw", lambda x: x.moveaxis(2, 0)),
    ("moveaxis_list", "cpw", lambda x: x.moveaxis((2, 1), (0, 2))),
    # expand / broadcast
    ("expand", "om", lambda x: x.expand(3, 2, 4, 3, 5)),
    ("expand_keep", "o", lambda x: x.expand(-1, 2, -1, 1)),
    ("expand_lead1", "cpwo", lambda x: x.expand(1, 1, *x.shape)),
    ("expand_0d", "s", lambda x: x.expand(1)),
    ("expand_0d_2", "s", lambda x: x.expand(3, 1, 2)),
    ("expand_0d_empty", "s", lambda x: x.expand(())),
    ("expand_zero", "o", lambda x: x.expand(2, 0, 3, 1)),
    ("expand_zero_lead", "o", lambda x: x.expand(0, 2, 1, 3, 1)),
    ("expand_few", "cpw", lambda x: x.expand(3, 4)),
    ("expand_mismatch", "o", lambda x: x.expand(2, 1, 4, 1)),
    ("expand_lead_infer", "o", lambda x: x.expand(-1, 2, 1, 3, 1)),
    ("expand_negative", "o", lambda x: x.expand(2, -2, 3, 1)),
    ("expand_negative_bad", "o", lambda x: x.expand(-2, 1, 3, 1)),
    ("expand_bool", "o", lambda x: x.bool().expand(2, 3, 3, 2)),
    ("expand_long", "c", lambda x: x.long().expand(2, 3)),
    ("expand_cfloat_msg", "c", lambda x: x.to(torch.complex64 if isinstance(
        x, torch.Tensor) else strided.complex64).expand(2, 3)),
    ("expand_meta_msg", "m", lambda x: x.expand(2, 3)),
    ("expand_as", "o", lambda x: x.expand_as(x.new_empty(2, 2, 5, 3, 4))),
    ("broadcast_to", "o", lambda x: x.broadcast_to((2, 4, 3, 3))),
    ("broadcast_to_bad", "o", lambda x: x.broadcast_to((2, 4, 4, 3))),
    ("broadcast_to_few", "c", lambda x: x.broadcast_to((4,))),
    # narrow / slice / select
    ("narrow", "cpwm", lambda x: x.narrow(1, 1, 2)),
    ("narrow_neg_start", "cpw", lambda x: x.narrow(-1, -3, 2)),
    ("narrow_end", "cpw", lambda x: x.narrow(1, 3, 0)),
    ("narrow_empty", "e", lambda x: x.narrow(1, 0, 0)),
    ("narrow_start_oob", "c", lambda x: x.narrow(1, 4, 0)),
    ("narrow_start_oob_neg", "c", lambda x: x.narrow(1, -4, 0)),
    ("narrow_exceeds", "c", lambda x: x.narrow(1, 2, 2)),
    ("narrow_exceeds_neg", "c", lambda x: x.narrow(1, -1, 2)),
    ("narrow_neg_length", "c", lambda x: x.narrow(5, 0, -1)),
    ("narrow_0d", "s", lambda x: x.narrow(0, 0, 1)),
    ("narrow_dim_oob", "c", lambda x: x.narrow(3, 0, 1)),
    ("narrow_tensor", "cpw", lambda x: x.narrow(2, _mod(x).tensor(1), 3)),
    ("narrow_tensor_neg", "cpw", lambda x: x.narrow(2, _mod(x).tensor(-2, dtype=_mod(x).int32), 2)),
    ("narrow_tensor_float", "c", lambda x: x.narrow(2, _mod(x).tensor(1.), 3)),
    ("narrow_tensor_1d", "c", lambda x: x.narrow(2, _mod(x).tensor([1]), 3)),
    ("narrow_tensor_bool", "c", lambda x: x.narrow(2, _mod(x).tensor(True), 3)),
    ("select", "cpwm", lambda x: x.select(1, -1)),
    ("select_oob", "c", lambda x: x.select(1, 3)),
    ("select_0d", "s", lambda x: x.select(0, 0)),
    # diagonal / unfold
    ("diagonal", "cpwm", lambda x: x.diagonal()),
    ("diagonal_12", "cpw", lambda x: x.diagonal(0, 1, 2)),
    ("diagonal_pos", "cpw", lambda x: x.diagonal(1, 1, 2)),
    ("diagonal_neg", "cpw", lambda x: x.diagonal(-1, 1, 2)),
    ("diagonal_rev", "cpw", lambda x: x.diagonal(1, 2, 0)),
    ("diagonal_big", "cpw", lambda x: x.diagonal(5, 1, 2)),
    ("diagonal_big_neg", "cpw", lambda x: x.diagonal(-3, 1, 2)),
    ("diagonal_empty", "e", lambda x: x.diagonal(0, 1, 2)),
    ("diagonal_same", "c", lambda x: x.diagonal(0, 1, -2)),
    ("diagonal_1d", "c", lambda x: x.flatten().diagonal()),
    ("diagonal_0d", "s", lambda x: x.diagonal()),
    ("diagonal_oob", "c", lambda x: x.diagonal(0, 1, 5)),
    ("unfold", "cpwm", lambda x: x.unfold(1, 2, 1)),
    ("unfold_step", "cpw", lambda x: x.unfold(2, 2, 2)),
    ("unfold_partial", "cpw", lambda x: x.unfold(2, 3, 2)),
    ("unfold_neg_dim", "cpw", lambda x: x.unfold(-1, 1, 3)),
    ("unfold_size0", "cpwe", lambda x: x.unfold(1, 0, 1)),
    ("unfold_0d", "s", lambda x: x.unfold(0, 1, 1)),
    ("unfold_0d_0", "s", lambda x: x.unfold(0, 0, 2)),
    ("unfold_0d_big", "s", lambda x: x.unfold(0, 2, 1)),
    ("unfold_big", "c", lambda x: x.unfold(2, 5, 1)),
    ("unfold_step0", "c", lambda x: x.unfold(2, 2, 0)),
    ("unfold_step_neg", "c", lambda x: x.unfold(2, 2, -1)),
    ("unfold_size_neg", "c", lambda x: x.unfold(2, -1, 0)),
    ("unfold_oob", "c", lambda x: x.unfold(3, 1, 1)),
    # splits
    ("split", "cpwm", lambda x: x.split(2, 2)),
    ("split_1", "cpw", lambda x: x.split(1)),
    ("split_big", "cpw", lambda x: x.split(10, 1)),
    ("split_zero_empty", "e", lambda x: x.split(0, 1)),
    ("split_zero", "c", lambda x: x.split(0)),
    ("split_neg", "c", lambda x: x.split(-1, 5)),
    ("split_0d", "s", lambda x: x.split(1)),
    ("split_sizes", "cpwm", lambda x: x.split([1, 3], 2)),
    ("split_sizes_zero", "cpw", lambda x: x.split([0, 3, 0], 1)),
    ("split_sizes_bad", "c", lambda x: x.split([1, 1], -1)),
    ("split_sizes_neg", "c", lambda x: x.split([-1, 5], 2)),
    ("split_sizes_0d", "s", lambda x: x.split([1])),
    ("split_with_sizes", "cpw", lambda x: x.split_with_sizes([2, 1], 1)),
    ("torch_split", "cp", lambda x: _mod(x).split(x, 2, -1)),
    ("torch_split_sizes", "cp", lambda x: _mod(x).split(x, [3, 1], -1)),
    ("tensor_split", "cpwm", lambda x: x.tensor_split(3, 2)),
    ("tensor_split_more", "cpw", lambda x: x.tensor_split(7, 1)),
    ("tensor_split_zero", "c", lambda x: x.tensor_split(0)),
    ("tensor_split_oob", "c", lambda x: x.tensor_split(0, 5)),
    ("tensor_split_idx", "cpwm", lambda x: x.tensor_split([1, 3], 2)),
    ("tensor_split_idx_unordered", "cpw", lambda x: x.tensor_split([3, 1, 10], 2)),
    ("tensor_split_idx_neg", "cpw", lambda x: x.tensor_split([-1], 2)),
    ("tensor_split_idx_empty", "cpw", lambda x: x.tensor_split([], 1)),
    ("tensor_split_t0", "cpw", lambda x: x.tensor_split(_mod(x).tensor(2), 2)),
    ("tensor_split_t1", "cpw", lambda x: x.tensor_split(_mod(x).tensor([1, 2]), 2)),
    ("tensor_split_t_float", "c", lambda x: x.tensor_split(_mod(x).tensor([1., 2.]), 2)),
    ("tensor_split_t_int", "c", lambda x: x.tensor_split(
        _mod(x).tensor([1, 2], dtype=_mod(x).int32), 2)),
    ("tensor_split_t_2d", "c", lambda x: x.tensor_split(_mod(x).tensor([[1, 2]]), 2)),
    ("tensor_split_t_meta", "c", lambda x: x.tensor_split(_mod(x).zeros(2, device="meta"))),
    ("tensor_split_0d", "s", lambda x: x.tensor_split(2)),
    ("tensor_split_idx_0d", "s", lambda x: x.tensor_split([1])),
    ("chunk", "cpwm", lambda x: x.chunk(2, 2)),
    ("chunk_uneven", "cpw", lambda x: x.chunk(2, 1)),
    ("chunk_many", "cpw", lambda x: x.chunk(7, -1)),
    ("chunk_empty", "e", lambda x: x.chunk(3, 1)),
    ("chunk_zero", "c", lambda x: x.chunk(0, 9)),
    ("chunk_neg", "c", lambda x: x.chunk(-1)),
    ("chunk_0d", "s", lambda x: x.chunk(1)),
    ("hsplit", "cpwm", lambda x: x.hsplit(3)),
    ("hsplit_1d", "cp", lambda x: x.flatten().hsplit(4)),
    ("hsplit_arr", "cpw", lambda x: x.hsplit([1, 2])),
    ("hsplit_bad", "c", lambda x: x.hsplit(2)),
    ("hsplit_zero", "c", lambda x: x.hsplit(0)),
    ("hsplit_0d", "s", lambda x: x.hsplit(1)),
    ("hsplit_arr_0d", "s", lambda x: x.hsplit([1])),
    ("vsplit", "cpwm", lambda x: x.vsplit(2)),
    ("vsplit_arr", "cpw", lambda x: x.vsplit([1])),
    ("vsplit_bad", "c", lambda x: x.vsplit(3)),
    ("vsplit_1d", "c", lambda x: x.flatten().vsplit(2)),
    ("vsplit_arr_1d", "c", lambda x: x.flatten().vsplit([2])),
    ("dsplit", "cpwm", lambda x: x.dsplit(2)),
    ("dsplit_arr", "cpw", lambda x: x.dsplit([1, 3])),
    ("dsplit_bad", "c", lambda x: x.dsplit(3)),
    ("dsplit_2d", "c", lambda x: x.select(0, 0).dsplit(2)),
    ("unbind", "cpwm", lambda x: x.unbind(1)),
    ("unbind_0d", "s", lambda x: x.unbind(0)),
    # alias / detach
    ("alias", "cpwsm", lambda x: _mod(x).ops.aten.alias.default(x)),
    ("detach", "cpwrm", lambda x: x.detach()),
    ("slice", "cpwm", lambda x: _mod(x).ops.aten.slice.Tensor(x, 2, 1, 4, 2)),
    ("slice_none", "cpw", lambda x: _mod(x).ops.aten.slice.Tensor(x, 1, None, None, 2)),
    ("slice_neg", "cpw", lambda x: _mod(x).ops.aten.slice.Tensor(x, -1, -3, -1)),
    ("slice_clamp", "cpw", lambda x: _mod(x).ops.aten.slice.Tensor(x, 2, -30, 100)),
    ("slice_reversed", "cpw", lambda x: _mod(x).ops.aten.slice.Tensor(x, 2, 3, 1)),
    ("slice_beyond", "cpw", lambda x: _mod(x).ops.aten.slice.Tensor(x, 2, 10, 20)),
    ("slice_default", "cpw", lambda x: _mod(x).ops.aten.slice.Tensor(x)),
    ("slice_step0", "c", lambda x: _mod(x).ops.aten.slice.Tensor(x, 2, 0, 4, 0)),
    ("slice_step_neg", "c", lambda x: _mod(x).ops.aten.slice.Tensor(x, 2, 0, 4, -1)),
    ("slice_0d", "s", lambda x: _mod(x).ops.aten.slice.Tensor(x, 0, 0, 1)),
    ("slice_oob", "c", lambda x: _mod(x).ops.aten.slice.Tensor(x, 3, 0, 1)),
    # dtype views
    ("view_dtype_same_size", "cpwsm", lambda x: x.view(_mod(x).int32)),
    ("view_dtype_same", "cpw", lambda x: x.view(_mod(x).float32)),
    ("view_dtype_smaller", "cpm", lambda x: x.contiguous().view(_mod(x).int16)),
    ("view_dtype_bytes", "cw", lambda x: x.narrow(2, 1, 1).view(_mod(x).uint8)),
    ("view_dtype_bool", "c", lambda x: x.view(_mod(x).bool)),
    ("view_dtype_larger", "cm", lambda x: x.view(_mod(x).float64)),
    ("view_dtype_complex", "c", lambda x: x.view(_mod(x).complex64)),
    ("view_dtype_complex128", "c", lambda x: x.view(_mod(x).complex128)),
    ("view_dtype_larger_odd", "c", lambda x: x.narrow(2, 0, 3).view(_mod(x).float64)),
    ("view_dtype_larger_offset", "c", lambda x: x.narrow(2, 1, 2).view(_mod(x).float64)),
    ("view_dtype_larger_stride", "c", lambda x: x.view(-1).as_strided((3, 4), (8, 2)).view(
        _mod(x).float64)),
    ("view_dtype_larger_outer", "c", lambda x: x.view(-1).as_strided((3, 2), (3, 1)).view(
        _mod(x).float64)),
    ("view_dtype_larger_ok_outer", "c", lambda x: x.view(-1).as_strided((2, 2), (6, 1), 2)
     .view(_mod(x).float64)),
    ("view_dtype_smaller_nc", "p", lambda x: x.view(_mod(x).int16)),
    ("view_dtype_smaller_size1", "c", lambda x: x.view(-1).as_strided((4, 1), (3, 5), 1).view(
        _mod(x).int16)),
    ("view_dtype_0d", "s", lambda x: x.view(_mod(x).float64)),
    ("view_dtype_0d_small", "s", lambda x: x.view(_mod(x).int16)),
    ("view_dtype_empty", "e", lambda x: x.view(_mod(x).float64)),
    # in-place view ops (result is self; metadata changed)
    ("t_", "c", lambda x: x.select(0, 0).t_()),
    ("t__1d", "c", lambda x: x.select(0, 0).select(0, 0).t_()),
    ("t__3d", "c", lambda x: x.t_()),
    ("transpose_", "cpwm", lambda x: x.transpose_(0, 2)),
    ("squeeze_", "om", lambda x: x.squeeze_()),
    ("squeeze__dim", "o", lambda x: x.squeeze_(1)),
    ("squeeze__dim_noop", "o", lambda x: x.squeeze_(0)),
    ("squeeze__dims", "o", lambda x: x.squeeze_((1, 3))),
    ("squeeze__dims_dup", "o", lambda x: x.squeeze_((1, 1))),
    ("squeeze__0d", "s", lambda x: x.squeeze_()),
    ("squeeze__noop", "c", lambda x: x.squeeze_()),
    ("unsqueeze_", "cpwsm", lambda x: x.unsqueeze_(1)),
    ("unsqueeze__oob", "c", lambda x: x.unsqueeze_(5)),
    ("as_strided_", "cpw", lambda x: x.as_strided_((2, 2), (1, 2), 1)),
    ("as_strided__keep_offset", "w", lambda x: x.as_strided_((3,), (5,))),
    ("as_strided__oob", "c", lambda x: x.as_strided_((5,), (10,), 3)),
    ("as_strided__neg_offset", "c", lambda x: x.as_strided_((2,), (1,), -1)),
    ("as_strided__lens", "c", lambda x: x.as_strided_((2,), (1, 1))),
    ("as_strided_fn_", "c", lambda x: _mod(x).as_strided_(x, (3, 3), (1, 3))),
    ("as_strided", "cpwm", lambda x: x.as_strided((2, 2), (2, 1), 3)),
    ("detach_", "r", lambda x: x.detach_()),
    ("detach__view", "c", lambda x: x.detach_()),
    ("detach__fn", "r", lambda x: _mod(x).detach_(x)),
]


def _mod(x):
    return torch if isinstance(x, torch.Tensor) else strided


PARAMS = [pytest.param(k, op, id=f"{name}-{k}") for name, keys, op in TABLE for k in keys]


@pytest.mark.parametrize("key, op", PARAMS)
def test_view_op(key, op):
    vcheck(INPUTS[key], op, warns=False)


# =========================================================================== seed 001

def _rand(m, *shape):
    return m.arange(float(np.prod(shape))).view(shape)


def _geometry(t):
    return tuple(t.shape), t.stride(), t.storage_offset()


@pytest.mark.parametrize("m", [strided, torch], ids=["strided", "torch"])
def test_seed_001_worked_numbers(m):
    """The numbers seed 001 derives by hand, for strided and (as a check of the test) torch."""
    arr = m.arange(32.).view(2, 4, 4)   # the seed uses rand; any data will do
    assert arr.stride() == (16, 4, 1)
    # diagonal: diag_size = max(min(4, 4 - offset), 0) etc.
    assert _geometry(arr.diagonal(0, 1, 2)) == ((2, 4), (16, 5), 0)
    assert _geometry(arr.diagonal(1, 1, 2)) == ((2, 3), (16, 5), 1)
    assert _geometry(arr.diagonal(-1, 1, 2)) == ((2, 3), (16, 5), 4)
    assert _geometry(arr.diagonal(0, 0, 1)) == ((4, 2), (1, 20), 0)
    # the chained diagonal: shape [2], stride [16 + 5], offset 4 + 5
    d = arr.diagonal(-1, 1, 2)
    assert _geometry(d.diagonal(1, 0, 1)) == ((2,), (21,), 9)
    flat = arr.flatten()
    picked = [flat[9 + i * 21].item() for i in range(2)] if m is torch else \
        [flat.select(0, 9 + i * 21).item() for i in range(2)]
    assert d.diagonal(1, 0, 1).tolist() == picked
    # expand: size-1 dims and new leading dims get stride 0
    assert _geometry(_rand(m, 3, 1, 4).expand(2, 3, 2, 4)) == ((2, 3, 2, 4), (0, 4, 0, 1), 0)
    assert _geometry(_rand(m, 2, 1, 4).expand(-1, 4, -1)) == ((2, 4, 4), (4, 0, 1), 0)
    assert _geometry(_rand(m, 2, 1, 4).expand(2, 4, 4)) == ((2, 4, 4), (4, 0, 1), 0)
    # narrow: offset += stride[dim] * start
    assert _geometry(arr.narrow(1, 1, 2)) == ((2, 2, 4), (16, 4, 1), 4)
    # permute: sizes and strides reordered
    assert _geometry(_rand(m, 2, 3, 4).permute(2, 0, 1)) == ((4, 2, 3), (1, 12, 4), 0)
    # unfold: dim -> (n - size) // step + 1 windows, new last dim of `size`
    assert _geometry(_rand(m, 2, 3, 4).unfold(1, 2, 1)) == ((2, 2, 4, 2), (12, 4, 1, 4), 0)
    # the index formula of the seed, element by element
    diag = arr.diagonal(-1, 1, 2)
    values = np.asarray(arr.flatten().tolist())
    expected = [values[4 + d1 * 16 + d2 * 5] for d1 in range(2) for d2 in range(3)]
    assert np.allclose(np.asarray(diag.tolist()).ravel(), expected)


def test_seed_001_view_shares_memory():
    t = strided.arange(16.).view(4, 4)
    b = t.view(2, 8)
    assert t.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
    b.select(0, 0).select(0, 0).fill_(3.14)
    assert abs(t.select(0, 0).select(0, 0).item() - 3.14) < 1e-6
    base = strided.tensor([[0, 1], [2, 3]])
    assert base.is_contiguous()
    tt = base.transpose(0, 1)
    assert not tt.is_contiguous()
    c = tt.contiguous()
    assert c.is_contiguous() and c.tolist() == [[0, 2], [1, 3]]


# =========================================================================== aliasing

def test_views_of_views_point_at_the_root_and_share_the_version():
    for m in (strided, torch):
        root = m.arange(24.)
        a = root.view(2, 3, 4)
        b = a.transpose(0, 2)
        c = b.narrow(0, 1, 2).diagonal(0, 0, 1)
        d = c.unsqueeze(0).expand(3, 2, 2)
        for v in (a, b, c, d):
            assert v._base is root
            assert v._version == root._version == 0
        c.fill_(-1.0)
        assert root._version == a._version == d._version == 1
        assert root.tolist().count(-1.0) == 4
    # the same writes seen from every alias, strided against torch
    vals = {}
    for m in (strided, torch):
        root = m.arange(24.)
        c = root.view(2, 3, 4).transpose(0, 2).narrow(0, 1, 2).diagonal(0, 0, 1)
        c.fill_(-1.0)
        vals[m] = (root.tolist(), c.tolist(), root.view(2, 3, 4).permute(1, 0, 2).tolist())
    assert vals[strided] == vals[torch]


def test_write_through_every_alias_kind():
    def build(m):
        root = m.zeros(4, 6)
        return root, [root.t(), root.view(24), root.narrow(1, 2, 3), root.unfold(1, 2, 2),
                      root.split(2)[1], root.chunk(3, 1)[2], root.movedim(0, 1),
                      root.unsqueeze(1).squeeze(1), root.reshape(2, 12), root.flatten(),
                      root.select(0, 3), root.diagonal(1), root.tensor_split([1, 4], 1)[1],
                      root.view(m.int32), root.as_strided((2, 2), (7, 1), 3),
                      root.detach(), root.unflatten(1, (2, 3)), root.ravel()]

    rs, vs = build(strided)
    rt, vt = build(torch)
    for i, (s_view, t_view) in enumerate(zip(vs, vt)):
        if s_view.dtype is strided.int32:
            s_view.fill_(i)
            t_view.fill_(i)
        else:
            s_view.fill_(float(i))
            t_view.fill_(float(i))
        assert rs._version == rt._version
        assert_same(rs, rt)
        for a, b in zip(vs, vt):
            assert a._version == b._version
            assert_same(a, b)


def test_real_imag_views_alias_complex_storage():
    def build(m):
        c = m.view_as_complex(m.arange(48.).view(2, 3, 4, 2)).narrow(1, 1, 2)
        return c, c.real, c.imag, m.view_as_real(c), m.real(c), m.imag(c)

    s = build(strided)
    t = build(torch)
    for a, b in zip(s, t):
        assert_same(a, b)
    for a, b in zip(s[1:], t[1:]):
        assert (a._base is s[0]._base) == (b._base is t[0]._base)
    s[1].fill_(7.0)
    t[1].fill_(7.0)
    s[2].fill_(-1.0)
    t[2].fill_(-1.0)
    for a, b in zip(s, t):
        assert_same(a, b)


COMPLEX_VIEWS = [
    ("real", lambda m, c: c.real),
    ("imag", lambda m, c: c.imag),
    ("torch_real", lambda m, c: m.real(c)),
    ("torch_imag", lambda m, c: m.imag(c)),
    ("view_as_real", lambda m, c: m.view_as_real(c)),
    ("view_as_real_0d", lambda m, c: m.view_as_real(c.select(0, 0).select(0, 0))),
    ("view_as_real_meta", lambda m, c: m.view_as_real(m.empty(2, 3, dtype=m.complex128,
                                                             device="meta"))),
    ("real_meta", lambda m, c: m.empty(2, 3, dtype=m.complex128, device="meta").real),
    ("view_as_real_of_real", lambda m, c: m.view_as_real(c.real)),
    ("imag_of_real", lambda m, c: c.real.imag),
    ("torch_imag_of_real", lambda m, c: m.imag(c.real)),
    ("real_of_real_is_self", lambda m, c: (lambda r: r.real is r)(c.real)),
    ("torch_real_of_real_is_self", lambda m, c: (lambda r: m.real(r) is r)(c.real)),
    ("view_as_complex", lambda m, c: m.view_as_complex(m.view_as_real(c))),
    ("view_as_complex_double", lambda m, c: m.view_as_complex(m.zeros(3, 2, dtype=m.float64))),
    ("view_as_complex_off", lambda m, c: m.view_as_complex(
        m.arange(24.).view(4, 3, 2).narrow(0, 1, 2))),
    ("view_as_complex_stride0", lambda m, c: m.view_as_complex(m.zeros(1, 2).expand(3, 2))),
    ("view_as_complex_1d", lambda m, c: m.view_as_complex(m.zeros(2))),
    ("view_as_complex_empty", lambda m, c: m.view_as_complex(m.zeros(0, 2))),
    ("view_as_complex_meta", lambda m, c: m.view_as_complex(m.empty(3, 2, device="meta"))),
    ("view_as_complex_0d", lambda m, c: m.view_as_complex(m.tensor(1.))),
    ("view_as_complex_last3", lambda m, c: m.view_as_complex(m.zeros(2, 3))),
    ("view_as_complex_last_stride", lambda m, c: m.view_as_complex(m.zeros(2, 4).narrow(
        1, 0, 2).as_strided((2, 2), (4, 2)))),
    ("view_as_complex_stride_odd", lambda m, c: m.view_as_complex(
        m.arange(30.).as_strided((3, 2), (3, 1)))),
    ("view_as_complex_offset_odd", lambda m, c: m.view_as_complex(
        m.arange(30.).as_strided((2, 2), (4, 1), 1))),
    ("view_as_complex_int", lambda m, c: m.view_as_complex(m.zeros(2, 2, dtype=m.int64))),
    ("view_as_complex_int_0d", lambda m, c: m.view_as_complex(m.tensor(1))),
    ("view_as_complex_bf16", lambda m, c: m.view_as_complex(m.zeros(2, 2, dtype=m.bfloat16))),
    ("complex_T", lambda m, c: c.T),
    ("complex_mT", lambda m, c: c.mT),
    ("complex_transpose", lambda m, c: c.transpose(0, 1)),
    ("complex_view_dtype", lambda m, c: c.view(m.float32)),
    ("complex_view_dtype_same", lambda m, c: c.view(m.float64)),
]


@pytest.mark.parametrize("op", [pytest.param(op, id=name) for name, op in COMPLEX_VIEWS])
def test_complex_views(op):
    def make(m):
        return m.view_as_complex(m.arange(48.).view(2, 3, 4, 2)).narrow(1, 1, 2)
    vcheck(make, lambda c: op(_mod(c), c))


CONJ_VIEWS = [
    ("H", lambda c: c.select(0, 1).H),
    ("mH", lambda c: c.mH),
    ("adjoint", lambda c: c.adjoint()),
    ("adjoint_fn", lambda c: _mod(c).adjoint(c)),
]


@pytest.mark.parametrize("op", [pytest.param(op, id=name) for name, op in CONJ_VIEWS])
def test_conjugate_transposes_of_complex_tensors(op):
    """Note [Conjugate and negative bits]: as torch's, the result is a view carrying the
    conjugate bit; sizes, strides, offset and the resolved values match torch."""
    def make(m):
        return m.view_as_complex(m.arange(48.).view(2, 3, 4, 2))
    base = make(strided)
    s = op(base)
    t = op(make(torch))
    assert s.is_conj() and t.is_conj()
    assert s.untyped_storage().data_ptr() == base.untyped_storage().data_ptr()
    assert tuple(s.shape) == tuple(t.shape) and s.stride() == t.stride()
    assert s.storage_offset() == t.storage_offset()
    assert np.array_equal(s.resolve_conj().numpy(), t.resolve_conj().numpy())
    m = op(strided.empty(2, 3, 4, dtype=strided.complex64, device="meta"))
    mt = op(torch.empty(2, 3, 4, dtype=torch.complex64, device="meta"))
    assert (tuple(m.shape), m.stride(), str(m.dtype)) == (tuple(mt.shape), mt.stride(),
                                                          str(mt.dtype))


def test_real_and_imag_setters():
    def recipe(m):
        c = m.view_as_complex(m.arange(12.).view(3, 2, 2))
        c.real = m.ones(3, 2)
        c.imag = 2.5
        r = m.arange(4.)
        r.real = m.zeros(4)
        return m.view_as_real(c), r
    check(recipe)
    check(lambda m: setattr(m.arange(4.), "imag", m.zeros(4)))
    check(lambda m: setattr(m.zeros(2, dtype=m.complex64), "real", [1, 2]))


# =========================================================================== set_ and resize

SET_CASES = [
    ("storage", lambda m, x, src: x.set_(src.untyped_storage())),
    ("storage_other_dtype", lambda m, x, src: x.set_(src.long().untyped_storage())),
    ("storage_offset", lambda m, x, src: x.set_(src.untyped_storage(), 2, (2, 3))),
    ("storage_offset_strides", lambda m, x, src: x.set_(src.untyped_storage(), 1, (2, 2),
                                                        (1, 3))),
    ("storage_offset_kw", lambda m, x, src: x.set_(src.untyped_storage(), storage_offset=3,
                                                   size=(4,), stride=(2,))),
    ("storage_grows", lambda m, x, src: (x.set_(src.untyped_storage(), 0, (40,)).fill_(1.0),
                                         src.untyped_storage().nbytes())[1]),
    ("storage_zero_numel", lambda m, x, src: x.set_(src.untyped_storage(), 100, (0, 3))),
    ("storage_neg_offset", lambda m, x, src: x.set_(src.untyped_storage(), -1, (2,))),
    ("storage_lens", lambda m, x, src: x.set_(src.untyped_storage(), -1, (2,), (1, 1))),
    ("storage_neg_size", lambda m, x, src: x.set_(src.untyped_storage(), 0, (-2,))),
    ("storage_neg_stride", lambda m, x, src: x.set_(src.untyped_storage(), 0, (2,), (-1,))),
    ("storage_device", lambda m, x, src: x.set_(m.empty(3, device="meta").untyped_storage())),
    ("tensor", lambda m, x, src: x.set_(src.t())),
    ("tensor_view", lambda m, x, src: x.set_(src.narrow(1, 1, 2))),
    ("tensor_self", lambda m, x, src: x.set_(x)),
    ("tensor_dtype", lambda m, x, src: x.set_(src.long())),
    ("tensor_dtype_complex", lambda m, x, src: x.set_(src.to(m.complex64))),
    ("empty", lambda m, x, src: x.set_()),
]


@pytest.mark.parametrize("op", [pytest.param(op, id=name) for name, op in SET_CASES])
def test_set_(op):
    state = {}

    def recipe(m):
        x = m.zeros(2, 2)
        src = m.arange(12.).view(3, 4)
        r = op(m, x, src)
        state[m] = (x, r, src)
        return (r, x, x._version)
    rs, rt = check(recipe)
    if rs is not None and isinstance(rt[0], torch.Tensor):
        xs, r_s, src_s = state[strided]
        xt, r_t, src_t = state[torch]
        assert (r_s is xs) == (r_t is xt)
        same_s = xs.untyped_storage().data_ptr() == src_s.untyped_storage().data_ptr()
        same_t = xt.untyped_storage().data_ptr() == src_t.untyped_storage().data_ptr()
        assert same_s == same_t


def test_set_shares_writes_and_keeps_base():
    for m in (strided, torch):
        x = m.zeros(3, 4)
        y = x.narrow(0, 1, 2)
        src = m.arange(6.)
        y.set_(src, 1, (2, 2), (2, 1))
        assert y._base is x
        y.fill_(9.0)
        assert src.tolist() == [0.0, 9.0, 9.0, 9.0, 9.0, 5.0]
        y.set_()
        assert tuple(y.shape) == (0,) and y.untyped_storage().nbytes() == 0


def test_set_on_meta():
    check(lambda m: m.empty(2, 3, device="meta").set_())
    check(lambda m: m.empty(2, 3, device="meta").set_(m.empty(4, device="meta")))
    check(lambda m: m.empty(2, device="meta").set_(m.empty(4, device="meta").untyped_storage(),
                                                   1, (3,)))


def test_resize_as_():
    def recipe(m):
        x = m.arange(6.).view(2, 3).clone()
        v0 = x._version
        r = x.resize_as_(m.zeros(2, 3))
        v1 = x._version
        m.resize_as_(x, m.zeros(4))
        return r is x, v0, v1, x._version, x.narrow(0, 0, 4)
    check(recipe)
    check(lambda m: m.empty(2, 3, device="meta").resize_as_(m.empty(5, 5)))


def test_in_place_view_ops_bump_version_and_reset_the_numpy_cache():
    def recipe(m):
        x = m.arange(24.).view(2, 3, 4).clone()
        out = []
        for op in (lambda t: t.transpose_(0, 2), lambda t: t.t_() if t.dim() <= 2 else t,
                   lambda t: t.unsqueeze_(1), lambda t: t.squeeze_(1), lambda t: t.squeeze_(),
                   lambda t: t.squeeze_((0,)), lambda t: t.as_strided_((3, 2), (1, 3), 2),
                   lambda t: t.t_(), lambda t: t.resize_(2, 2)):
            r = op(x)
            out.append((r is x, x._version, x.clone()))
        return out
    check(recipe)


def test_in_place_view_op_on_a_view_keeps_base_and_sees_writes():
    for m in (strided, torch):
        root = m.arange(12.)
        v = root.view(3, 4)
        v.t_()
        assert v._base is root and tuple(v.shape) == (4, 3)
        v.select(0, 1).fill_(-1.0)
        assert root.tolist()[1::4] == [-1.0, -1.0, -1.0]


def test_flatten_returns_self_when_nothing_to_merge():
    for m in (strided, torch):
        x = m.arange(6.)
        assert x.flatten() is x
        y = m.zeros(2, 3)
        assert y.flatten(1, -1) is y
        assert y.flatten(0) is not y
        s = m.tensor(1.)
        assert s.flatten() is not s and s.flatten()._base is s


def test_broadcast_tensors():
    def make(m):
        return m.arange(12.).view(3, 1, 4), m.zeros(5, 1), m.tensor(2.), m.zeros(3, 5, 4)
    check(lambda m: m.broadcast_tensors(*make(m)))
    check(lambda m: m.broadcast_tensors(make(m)[0]))
    check(lambda m: m.broadcast_tensors())
    check(lambda m: m.broadcast_tensors(m.zeros(2, 3), m.zeros(3, 4)))
    check(lambda m: m.broadcast_tensors(m.zeros(0, 1), m.zeros(1, 3)))
    check(lambda m: m.broadcast_tensors(m.empty(2, 1, device="meta"), m.empty(3, device="meta")))
    for m in (strided, torch):
        a, b = m.zeros(3, 4), m.zeros(4)
        ra, rb = m.broadcast_tensors(a, b)
        assert ra is a and rb._base is b


@pytest.mark.parametrize("shapes", [
    ((2,), (3, 1), (1, 1, 1)), ((3, 1, 4), (5, 1)), (2, (3, 1)), (), ((),), (None, (2,)),
    ([2, 1], (3,)), ((3, 1, 4), (5, 3)), ((3, 1, 4), (5, 1), 2), ((3, -1, 4), (5, 1)), (-1,),
    ((3.0,),), ((0, 1), (2, 3)), ((2, 3), [4, 3]), ((1,), (0,)),
])
def test_broadcast_shapes(shapes):
    check(lambda m: m.broadcast_shapes(*shapes))


def test_broadcast_shapes_of_sizes_and_tensors():
    check(lambda m: m.broadcast_shapes(m.Size([2, 1]), [3]))
    check(lambda m: m.broadcast_shapes(m.Size([2, 1]), m.Size([3, 2])))
    check(lambda m: m.broadcast_shapes(m.tensor(3)))


# =========================================================================== warnings

WARN_ONCE = [
    ("T3d", lambda m: m.zeros(2, 3, 4).T, "The use of `x.T` on tensors of dimension other "
     "than 2 to reverse their shape is deprecated and it will throw an error in a future "
     "release. Consider `x.mT` to transpose batches of matrices or `x.permute(*torch.arange("
     "x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor."),
    ("T0d", lambda m: m.tensor(1.).T, "Tensor.T is deprecated on 0-D tensors. This function "
     "is the identity in these cases."),
    ("mT0d", lambda m: m.tensor(1.).mT, "Tensor.mT is deprecated on 0-D tensors. This "
     "function is the identity in these cases."),
    ("H0d", lambda m: m.tensor(1.).H, "Tensor.H is deprecated on 0-D tensors. Consider using "
     "x.conj()."),
    ("mH0d", lambda m: m.tensor(1.).mH, "Tensor.mH is deprecated on 0-D tensors. Consider "
     "using x.conj()."),
    ("adjoint0d", lambda m: m.tensor(1.).adjoint(), "adjoint() is deprecated on 0-D tensors. "
     "Consider using x.conj()."),
]


@pytest.mark.parametrize("fn, message", [pytest.param(f, msg, id=n) for n, f, msg in WARN_ONCE])
def test_deprecation_warnings_are_given_once(fn, message):
    """torch warns once per process (TORCH_WARN_ONCE), so the torch side of this test cannot
    be rerun here: the texts are torch 2.13's."""
    views_kernels._warned.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn(strided)
        fn(strided)
    assert [(w.category, str(w.message)) for w in caught] == [(UserWarning, message)]
    assert caught[0].filename == __file__


def test_zero_dim_matrix_views_return_self():
    for m in (strided, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s = m.tensor(2.)
            assert s.mT is s and s.H is s and s.mH is s and s.adjoint() is s
            assert s.T is not s and s.T._base is s


# =========================================================================== reshape copies

@pytest.mark.parametrize("key", ["p", "w"])
def test_reshape_copies_exactly_when_view_fails(key):
    for shape in [(-1,), (4, 6), (2, 12), (6, 4), (3, 2, 4), (2, 3, 2, 2), (24, 1)]:
        def recipe(m, shape=shape):
            x = INPUTS[key](m)
            try:
                x.view(shape)
                viewable = True
            except RuntimeError:
                viewable = False
            r = x.reshape(shape)
            shares = r.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
            return viewable, shares, r._base is None, r._version, r
        check(recipe)


def test_reshape_copy_is_independent():
    for m in (strided, torch):
        x = m.arange(6.).view(2, 3).t()
        r = x.reshape(6)
        r.fill_(0.0)
        assert x.tolist() == [[0, 3], [1, 4], [2, 5]]


def test_ravel_of_non_contiguous_is_a_view_of_a_copy():
    vcheck(INPUTS["p"], lambda x: (x.ravel(), x.ravel()._base is None, x.ravel()._is_view()))


# =========================================================================== hypothesis chains

def _chain_step(draw, shape):
    """One view op valid for ``shape``: (name, function of a tensor)."""
    ndim = len(shape)
    choices = ["unsqueeze", "alias", "reshape", "flatten", "view_split", "expand"]
    if ndim:
        choices += ["transpose", "permute", "narrow", "slice", "select", "unfold", "movedim",
                    "squeeze_dim", "split", "chunk", "tensor_split", "unflatten", "flip_view"]
    if ndim >= 2:
        choices += ["diagonal", "mT"]
    if ndim <= 2:
        choices += ["t"]
    name = draw(st.sampled_from(choices))
    dim = draw(st.integers(-ndim, ndim - 1)) if ndim else 0
    size = shape[dim] if ndim else 1
    if name == "unsqueeze":
        d = draw(st.integers(-ndim - 1, ndim))
        return name, lambda t: t.unsqueeze(d)
    if name == "alias":
        return name, lambda t: _mod(t).ops.aten.alias.default(t)
    if name == "reshape":
        numel = int(np.prod(shape))
        divisors = [k for k in range(1, numel + 1) if numel % k == 0] or [1]
        k = draw(st.sampled_from(divisors))
        return name, lambda t: t.reshape(k, -1) if numel else t.reshape(0, k)
    if name == "flatten":
        a = draw(st.integers(0, max(ndim - 1, 0)))
        b = draw(st.integers(a, max(ndim - 1, 0)))
        return name, lambda t: t.flatten(a, b)
    if name == "view_split":
        return name, lambda t: t.view(*shape, 1) if ndim < 5 else t
    if name == "expand":
        new = [draw(st.integers(1, 3)) if s == 1 else -1 for s in shape]
        lead = draw(st.lists(st.integers(1, 2), max_size=1))
        return name, lambda t: t.expand((*lead, *new)) if len(lead) + ndim <= 5 else t
    if name == "transpose":
        d2 = draw(st.integers(-ndim, ndim - 1))
        return name, lambda t: t.transpose(dim, d2)
    if name == "permute":
        perm = draw(st.permutations(range(ndim)))
        return name, lambda t: t.permute(*perm)
    if name == "narrow":
        start = draw(st.integers(0, size))
        length = draw(st.integers(0, size - start))
        return name, lambda t: t.narrow(dim, start, length)
    if name == "slice":
        a = draw(st.integers(-size - 1, size + 1))
        b = draw(st.integers(-size - 1, size + 1))
        step = draw(st.integers(1, 3))
        return name, lambda t: _mod(t).ops.aten.slice.Tensor(t, dim, a, b, step)
    if name == "select":
        if size == 0:
            return "alias", lambda t: t
        i = draw(st.integers(-size, size - 1))
        return name, lambda t: t.select(dim, i)
    if name == "unfold":
        w = draw(st.integers(0, size))
        step = draw(st.integers(1, 3))
        return name, lambda t: t.unfold(dim, w, step) if ndim < 5 else t
    if name == "movedim":
        d2 = draw(st.integers(-ndim, ndim - 1))
        return name, lambda t: t.movedim(dim, d2)
    if name == "squeeze_dim":
        return name, lambda t: t.squeeze(dim)
    if name in ("split", "chunk", "tensor_split"):
        k = draw(st.integers(1, 4))
        pick = draw(st.integers(0, 10))
        if name == "split":
            if size == 0:
                return "alias", lambda t: t
            return name, lambda t: (lambda ps: ps[pick % len(ps)])(t.split(k, dim))
        if name == "chunk":
            return name, lambda t: (lambda ps: ps[pick % len(ps)])(t.chunk(k, dim))
        return name, lambda t: (lambda ps: ps[pick % len(ps)])(t.tensor_split(k, dim))
    if name == "unflatten":
        divs = [k for k in range(1, size + 1) if size % k == 0] or [1]
        k = draw(st.sampled_from(divs))
        return name, lambda t: t.unflatten(dim, (k, -1)) if size else t.unflatten(dim, (0, k))
    if name == "flip_view":   # a view with a dtype of the same size
        return name, lambda t: t.view(_mod(t).int64 if t.element_size() == 8 else
                                      _mod(t).int32).view(t.dtype)
    if name == "diagonal":
        d1 = draw(st.integers(0, ndim - 1))
        d2 = draw(st.sampled_from([d for d in range(ndim) if d != d1]))
        off = draw(st.integers(-3, 3))
        return name, lambda t: t.diagonal(off, d1, d2)
    if name == "mT":
        return name, lambda t: t.mT
    return "t", lambda t: t.t()


def _compare_chain_state(s, t, s_root, t_root):
    assert tuple(s.shape) == tuple(t.shape)
    assert s.stride() == t.stride()
    assert s.storage_offset() == t.storage_offset()
    if t.numel():   # see test_empty_tensors_are_contiguous
        assert s.is_contiguous() == t.is_contiguous()
    assert (s._base is None) == (t._base is None)
    assert (s._base is s_root) == (t._base is t_root)
    s_shares = s.untyped_storage().data_ptr() == s_root.untyped_storage().data_ptr()
    t_shares = t.untyped_storage().data_ptr() == t_root.untyped_storage().data_ptr()
    assert s_shares == t_shares
    assert np.array_equal(s._array(), t.numpy())


@hyp(150)
@given(st.data())
def test_random_view_chains(data):
    shape = tuple(data.draw(st.lists(st.integers(0, 4), min_size=0, max_size=4), label="shape"))
    numel = int(np.prod(shape))
    s_root = strided.arange(float(numel), dtype=strided.float64)
    t_root = torch.arange(float(numel), dtype=torch.float64)
    s = s_root.view(shape)
    t = t_root.view(shape)
    steps = data.draw(st.integers(1, 6), label="steps")
    for _ in range(steps):
        name, fn = _chain_step(data.draw, tuple(t.shape))
        t = fn(t)
        s = fn(s)
        _compare_chain_state(s, t, s_root, t_root)
    # a write through the final alias is seen in the root (when they share memory)
    if t.numel() and t.untyped_storage().data_ptr() == t_root.untyped_storage().data_ptr():
        t_root.view(-1).narrow(0, 0, numel).fill_(0.0) if numel else None
        s_root.view(-1).narrow(0, 0, numel).fill_(0.0) if numel else None
        assert np.array_equal(s._array(), t.numpy())


@hyp(60)
@given(st.data())
def test_random_view_chains_on_meta(data):
    shape = tuple(data.draw(st.lists(st.integers(0, 4), min_size=0, max_size=4), label="shape"))
    s = strided.empty(shape, device="meta")
    t = torch.empty(shape, device="meta")
    for _ in range(data.draw(st.integers(1, 5), label="steps")):
        name, fn = _chain_step(data.draw, tuple(t.shape))
        if name == "reshape" and not t.is_contiguous():
            continue
        t = fn(t)
        s = fn(s)
        assert_same(s, t)


def test_empty_tensors_are_contiguous():
    check(lambda m: m.zeros(0, 2, 2).unsqueeze(0).transpose(0, -1).is_contiguous())


# =========================================================================== function forms

FUNCTION_FORMS = [
    ("squeeze", lambda m, x: m.squeeze(x.unsqueeze(1))),
    ("squeeze_dim", lambda m, x: m.squeeze(x.unsqueeze(1), 1)),
    ("squeeze_dims", lambda m, x: m.squeeze(x.unsqueeze(1), (1, 0))),
    ("unsqueeze", lambda m, x: m.unsqueeze(x, -2)),
    ("transpose", lambda m, x: m.transpose(x, 0, 2)),
    ("swapdims", lambda m, x: m.swapdims(x, 0, 1)),
    ("swapaxes", lambda m, x: m.swapaxes(x, 0, 1)),
    ("t", lambda m, x: m.t(x.select(0, 0))),
    ("adjoint", lambda m, x: m.adjoint(x)),
    ("permute", lambda m, x: m.permute(x, (2, 1, 0))),
    ("movedim", lambda m, x: m.movedim(x, 0, 2)),
    ("movedim_list", lambda m, x: m.movedim(x, [0, 2], [2, 0])),
    ("moveaxis", lambda m, x: m.moveaxis(x, -1, 0)),
    ("narrow", lambda m, x: m.narrow(x, 2, 1, 2)),
    ("narrow_tensor", lambda m, x: m.narrow(x, 2, m.tensor(1), 2)),
    ("diagonal", lambda m, x: m.diagonal(x, 1, 0, 2)),
    ("flatten", lambda m, x: m.flatten(x, 1)),
    ("unflatten", lambda m, x: m.unflatten(x, 1, (3, 1))),
    ("ravel", lambda m, x: m.ravel(x)),
    ("reshape", lambda m, x: m.reshape(x, (4, -1))),
    ("broadcast_to", lambda m, x: m.broadcast_to(x, (2, 2, 3, 4))),
    ("split", lambda m, x: m.split(x, 2, 2)),
    ("split_sizes", lambda m, x: m.split(x, [1, 1], 0)),
    ("split_with_sizes", lambda m, x: m.split_with_sizes(x, [2, 1], 1)),
    ("tensor_split", lambda m, x: m.tensor_split(x, 2, 1)),
    ("tensor_split_idx", lambda m, x: m.tensor_split(x, [1], 1)),
    ("chunk", lambda m, x: m.chunk(x, 3, 1)),
    ("hsplit", lambda m, x: m.hsplit(x, 3)),
    ("vsplit", lambda m, x: m.vsplit(x, [1])),
    ("dsplit", lambda m, x: m.dsplit(x, 4)),
    ("unbind", lambda m, x: m.unbind(x, 2)),
    ("select", lambda m, x: m.select(x, 2, 1)),
    ("as_strided", lambda m, x: m.as_strided(x, (3, 3), (1, 2), 1)),
    ("detach", lambda m, x: m.detach(x)),
    ("view_as_real", lambda m, x: m.view_as_real(m.view_as_complex(x.unflatten(2, (2, 2))))),
    # keyword arguments
    ("kw_flatten", lambda m, x: x.flatten(start_dim=1, end_dim=2)),
    ("kw_diagonal", lambda m, x: x.diagonal(offset=1, dim1=2, dim2=0)),
    ("kw_unfold", lambda m, x: x.unfold(dimension=2, size=2, step=1)),
    ("kw_narrow", lambda m, x: x.narrow(dim=1, start=1, length=1)),
    ("kw_transpose", lambda m, x: x.transpose(dim0=0, dim1=1)),
    ("kw_movedim", lambda m, x: x.movedim(source=(0,), destination=(1,))),
    ("kw_chunk", lambda m, x: x.chunk(chunks=2, dim=1)),
    ("kw_split", lambda m, x: x.split(2, dim=2)),
    ("kw_squeeze", lambda m, x: x.unsqueeze(dim=0).squeeze(dim=0)),
    ("kw_expand", lambda m, x: x.expand(size=(2, 2, 3, 4))),
    ("kw_view", lambda m, x: x.view(size=(4, 6))),
    ("kw_reshape", lambda m, x: x.reshape(shape=(6, 4))),
    ("kw_permute", lambda m, x: x.permute(dims=(1, 0, 2))),
    ("kw_unflatten", lambda m, x: x.unflatten(dim=2, sizes=(2, 2))),
]


@pytest.mark.parametrize("op", [pytest.param(op, id=name) for name, op in FUNCTION_FORMS])
def test_function_and_keyword_forms(op):
    vcheck(INPUTS["w"], lambda x: op(_mod(x), x))


UNFLATTEN_ODD = [
    lambda m: m.arange(24.).view(2, 3, 4).unflatten(2, (-1, -1)),
    lambda m: m.tensor(1.).unflatten(0, (1,)),
    lambda m: m.zeros(2, 0).unflatten(1, (0, -1)),
    lambda m: m.zeros(2, 0).unflatten(1, (0, 5)),
    lambda m: m.zeros(2, 0).unflatten(1, (-1, 5)),
    lambda m: m.zeros(2, 6).unflatten(1, (0, -1)),
    lambda m: m.zeros(2, 6).unflatten(1, (-2, -3)),
]


@pytest.mark.parametrize("recipe", UNFLATTEN_ODD)
def test_unflatten_odd_sizes(recipe):
    """torch wraps some of these errors and appends a C++ backtrace: compare up to it."""
    outcome = {}
    for m in (strided, torch):
        try:
            r = recipe(m)
            outcome[m] = (None, tuple(r.shape), r.stride())
        except Exception as e:  # noqa: BLE001 - compared below
            outcome[m] = (type(e), str(e).split("\nException raised from")[0])
    assert outcome[strided] == outcome[torch]


@st.composite
def strided_layouts(draw):
    """(size, stride, offset) of a view into arange(64), with non-overlapping dims."""
    ndim = draw(st.integers(0, 4))
    sizes = draw(st.lists(st.integers(0, 4), min_size=ndim, max_size=ndim))
    perm = draw(st.permutations(range(ndim)))
    gaps = draw(st.lists(st.integers(1, 2), min_size=ndim, max_size=ndim))
    strides = [0] * ndim
    acc = 1
    for d in reversed(perm):
        strides[d] = acc * gaps[d] if sizes[d] != 1 else draw(st.integers(0, 9))
        acc *= max(sizes[d], 1) * gaps[d]
    extent = 1 + sum((s - 1) * t for s, t in zip(sizes, strides)) if 0 not in sizes else 0
    if extent > 64:
        return (), (), 0
    offset = draw(st.integers(0, 64 - max(extent, 0)))
    return tuple(sizes), tuple(strides), offset


@hyp(200)
@given(strided_layouts(), st.data())
def test_view_and_reshape_of_random_layouts(layout, data):
    size, stride, offset = layout
    numel = int(np.prod(size))
    factors = []
    rest = numel
    for _ in range(data.draw(st.integers(0, 3), label="ndims")):
        divs = [k for k in range(1, rest + 1) if rest % k == 0] if rest else [0, 1, 2]
        k = data.draw(st.sampled_from(divs), label="factor")
        factors.append(k)
        rest = rest // k if k else rest
    target = tuple(factors) + ((rest,) if numel else (-1,) if 0 in factors else (0,))

    def recipe(m):
        x = m.arange(64.).as_strided(size, stride, offset)
        out = []
        try:
            out.append(x.view(target))
        except RuntimeError as e:
            out.append(str(e))
        r = x.reshape(target)
        out.append(r)
        out.append(r.untyped_storage().data_ptr() == x.untyped_storage().data_ptr())
        out.append(x.flatten())
        return tuple(out)
    check(recipe)
