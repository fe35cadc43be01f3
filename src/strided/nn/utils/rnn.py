"""torch.nn.utils.rnn: PackedSequence and the pack / pad helpers.

A packed batch stores the time steps one after the other, each holding only the sequences that
are still running: ``data`` is ``(sum(lengths), *)`` and ``batch_sizes[t]`` counts the
sequences longer than ``t`` (the batch is sorted by decreasing length; ``sorted_indices``
records the sort, ``unsorted_indices`` its inverse). Packing and unpacking are one gather each
(``index_select`` with an index computed from the lengths), so autograd flows through them.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ...frontend.tensor import Tensor
from ...ops._generated import torch_functions as _fns

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence",
           "pad_sequence", "unpad_sequence", "pack_sequence", "unpack_sequence"]


class PackedSequence_(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


def bind(optional, fn):
    if optional is None:
        return None
    return fn(optional)


class PackedSequence(PackedSequence_):
    """Holds the data and batch sizes of a packed batch of sequences (make it with
    ``pack_padded_sequence`` or ``pack_sequence``, not directly)."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        return super().__new__(cls, *_packed_sequence_init_args(
            data, batch_sizes, sorted_indices, unsorted_indices))

    def pin_memory(self):
        return type(self)(self.data.pin_memory(), self.batch_sizes,
                          bind(self.sorted_indices, lambda t: t.pin_memory()),
                          bind(self.unsorted_indices, lambda t: t.pin_memory()))

    def to(self, *args, **kwargs):
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        kwargs = dict(filter(lambda t: t[0] != "device" and t[0] != "dtype", kwargs.items()))
        sorted_indices = bind(self.sorted_indices,
                              lambda t: t.to(data.device, **kwargs))
        unsorted_indices = bind(self.unsorted_indices,
                                lambda t: t.to(data.device, **kwargs))
        return type(self)(data, self.batch_sizes, sorted_indices, unsorted_indices)

    def cuda(self, *args, **kwargs):
        return self.to(*args, device="cuda", **kwargs)

    def cpu(self, *args, **kwargs):
        return self.to(*args, device="cpu", **kwargs)

    def double(self):
        return self.to(dtype=_dt("float64"))

    def float(self):
        return self.to(dtype=_dt("float32"))

    def half(self):
        return self.to(dtype=_dt("float16"))

    def long(self):
        return self.to(dtype=_dt("int64"))

    def int(self):
        return self.to(dtype=_dt("int32"))

    def short(self):
        return self.to(dtype=_dt("int16"))

    def char(self):
        return self.to(dtype=_dt("int8"))

    def byte(self):
        return self.to(dtype=_dt("uint8"))

    @property
    def is_cuda(self):
        return self.data.is_cuda

    def is_pinned(self):
        return self.data.is_pinned()


def _dt(name):
    import strided
    return getattr(strided, name)


def _packed_sequence_init_args(data, batch_sizes=None, sorted_indices=None,
                               unsorted_indices=None):
    if unsorted_indices is None:
        unsorted_indices = invert_permutation(sorted_indices)
    if batch_sizes is not None:
        if batch_sizes.device.type != "cpu":
            raise ValueError(
                "batch_sizes should always be on CPU. Instances of PackedSequence should never "
                "be created manually. They should be instantiated by functions like "
                "pack_sequence and pack_padded_sequences in nn.utils.rnn. "
                "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
        return data, batch_sizes, sorted_indices, unsorted_indices
    if not (isinstance(data, (list, tuple)) and len(data) == 2):
        raise AssertionError("Expected data to be a list or tuple of length 2")
    return data[0], data[1], sorted_indices, unsorted_indices


def _packed_sequence_init(data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
    data, batch_sizes, sorted_indices, unsorted_indices = _packed_sequence_init_args(
        data, batch_sizes, sorted_indices, unsorted_indices)
    return PackedSequence(data, batch_sizes, sorted_indices, unsorted_indices)


def invert_permutation(permutation):
    if permutation is None:
        return None
    output = _fns.empty_like(permutation)
    output.scatter_(0, permutation, _fns.arange(0, permutation.numel(),
                                                device=permutation.device))
    return output


def _lengths_list(lengths):
    if isinstance(lengths, Tensor):
        return [int(v) for v in lengths.tolist()]
    return [int(v) for v in lengths]


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Packs a padded batch ``(T, B, *)`` (``(B, T, *)`` with ``batch_first``) whose sequence
    ``b`` has ``lengths[b]`` valid steps."""
    if not isinstance(lengths, Tensor):
        lengths = _dt("as_tensor")(lengths, dtype=_dt("int64"), device="cpu")
    else:
        lengths = lengths.to(dtype=_dt("int64"))
    if enforce_sorted:
        sorted_indices = None
    else:
        lengths, sorted_indices = _fns.sort(lengths, descending=True)
        sorted_indices = sorted_indices.to(input.device)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    lens = _lengths_list(lengths)
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    if batch_first:
        input = input.transpose(0, 1)
    steps, batch = input.shape[0], input.shape[1]
    if lengths.dim() != 1:
        raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got "
                           f"{lengths.dim()}D {lengths.device.type} Long tensor")
    if len(lens) != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{len(lens)} (batch_size={batch})")
    if lens[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    for a, b in zip(lens, lens[1:], strict=False):
        if b > a:
            raise RuntimeError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
                "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
                "pack_sequence to sidestep this requirement if you do not need ONNX "
                "exportability.")
    if lens[0] > steps:
        raise RuntimeError(f"Expected `lengths` to be no greater than the sequence length "
                           f"but got {lens[0]} and {steps}")
    la = np.asarray(lens)
    sizes = (la[None, :] > np.arange(lens[0])[:, None]).sum(1)
    t_idx = np.repeat(np.arange(lens[0]), sizes)
    b_idx = np.concatenate([np.arange(s) for s in sizes])
    flat = _dt("as_tensor")((t_idx * batch + b_idx).astype(np.int64), device=input.device)
    data = input.reshape((steps * batch,) + tuple(input.shape[2:])).index_select(0, flat)
    batch_sizes = _dt("as_tensor")(sizes.astype(np.int64))
    return _packed_sequence_init(data, batch_sizes, sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """Inverse of ``pack_padded_sequence``: returns ``(padded, lengths)``."""
    sizes = [int(s) for s in sequence.batch_sizes.tolist()]
    max_seq_length = len(sizes)
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError("Expected total_length to be at least the length of the longest "
                             f"sequence in input, but got total_length={total_length} and max "
                             f"sequence length being {max_seq_length}")
        max_seq_length = total_length
    data = sequence.data
    batch = sizes[0]
    n = data.shape[0]
    feat = tuple(data.shape[1:])
    sa = np.asarray(sizes)
    offsets = np.concatenate([[0], np.cumsum(sa)[:-1]])
    gather = np.full((max_seq_length, batch), n, dtype=np.int64)
    b = np.arange(batch)
    gather[:len(sizes)] = np.where(b[None, :] < sa[:, None], offsets[:, None] + b[None, :], n)
    if batch_first:
        gather = gather.T
    pad = data.new_full((1,) + feat, padding_value)
    src = _fns.cat([data, pad], 0)
    idx = _dt("as_tensor")(np.ascontiguousarray(gather).reshape(-1), device=data.device)
    padded = src.index_select(0, idx).reshape(gather.shape + feat)
    lengths = _dt("as_tensor")((sa[None, :] > b[:, None]).sum(1).astype(np.int64))
    if sequence.unsorted_indices is not None:
        batch_dim = 0 if batch_first else 1
        return (padded.index_select(batch_dim, sequence.unsorted_indices),
                lengths[sequence.unsorted_indices.cpu()])
    return padded, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stacks sequences of shapes ``(L_i, *)`` into ``(max L, B, *)`` (``(B, max L, *)`` with
    ``batch_first``), padding each on ``padding_side`` with ``padding_value``."""
    if isinstance(sequences, Tensor):
        sequences = sequences.unbind(0)
    sequences = list(sequences)
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got "
                         f"{padding_side}.")
    if len(sequences) == 0:
        raise RuntimeError("received an empty list of sequences")
    max_len = max(s.size(0) for s in sequences)
    padded = []
    for s in sequences:
        extra = max_len - s.size(0)
        if extra:
            fill = s.new_full((extra,) + tuple(s.shape[1:]), padding_value)
            s = _fns.cat([s, fill] if padding_side == "right" else [fill, s], 0)
        padded.append(s)
    return _fns.stack(padded, 0 if batch_first else 1)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """Splits a padded batch back into its list of sequences."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    max_length = padded_sequences.shape[1]
    steps = _fns.arange(max_length, device=padded_sequences.device)
    # a boolean-mask gather, as torch does: each sequence comes back as a fresh tensor
    return [seq[steps < length] for seq, length in
            zip(padded_sequences, _lengths_list(lengths), strict=False)]


def pack_sequence(sequences, enforce_sorted=True):
    """Packs a list of sequences of shapes ``(L_i, *)``."""
    lengths = _dt("as_tensor")([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths,
                                enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """Inverse of ``pack_sequence``: the list of sequences."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
