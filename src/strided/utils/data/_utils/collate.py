"""Collation: turning a list of samples into a batch (``default_collate``) and
converting NumPy data inside one sample to tensors (``default_convert``).

``collate`` walks the structure of the first sample: a type registered in
``collate_fn_map`` (exact type first, then isinstance in the map's order) gets its
function; otherwise mappings, namedtuples and sequences are collated field by field.
Register a function for your own type by copying ``default_collate_fn_map`` and adding
``{MyType: fn}``, where ``fn(batch, *, collate_fn_map)``, as with torch.
"""

from __future__ import annotations

import collections.abc
import copy
import re
from collections.abc import Callable

import numpy as np

import strided

__all__ = [
    "collate", "default_collate", "default_convert", "default_collate_fn_map",
    "collate_tensor_fn", "collate_numpy_array_fn", "collate_numpy_scalar_fn",
    "collate_float_fn", "collate_int_fn", "collate_str_fn",
]

# NumPy dtypes that cannot become tensors: bytes, unicode, void, object
np_str_obj_array_pattern = re.compile(r"[SaUO]")

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, "
    "dicts or lists; found {}")


def _rebuild_like(template, values: dict | list):
    """A container of ``template``'s kind holding ``values``: a shallow copy updated in
    place for mutable containers (keeps subclasses and their attributes), the type
    called on the values for immutable ones, a plain dict/list when neither works."""
    is_map = isinstance(values, dict)
    try:
        if isinstance(template, collections.abc.MutableMapping if is_map
                      else collections.abc.MutableSequence):
            clone = copy.copy(template)
            if is_map:
                clone.update(values)
            else:
                for i, v in enumerate(values):
                    clone[i] = v
            return clone
        return type(template)(values)
    except TypeError:
        return values


def default_convert(data):
    """NumPy arrays and scalars inside ``data`` become tensors (string/object arrays are
    left alone); containers are rebuilt around the converted values, tuples as lists."""
    if isinstance(data, strided.Tensor):
        return data
    cls = type(data)
    if cls.__module__ == "numpy" and cls.__name__ not in ("str_", "string_"):
        if cls.__name__ == "ndarray" and np_str_obj_array_pattern.search(data.dtype.str):
            return data
        return strided.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild_like(data, {k: default_convert(data[k]) for k in data})
    if isinstance(data, tuple):
        if hasattr(data, "_fields"):  # namedtuple
            return cls(*(default_convert(d) for d in data))
        return [default_convert(d) for d in data]  # as torch: tuples come back as lists
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild_like(data, [default_convert(d) for d in data])
    return data


def collate(batch, *, collate_fn_map: dict[type | tuple[type, ...], Callable] | None = None):
    """Collate ``batch`` (a list of samples of one structure) with the per-type functions
    of ``collate_fn_map``; see the module docstring."""
    elem = batch[0]
    cls = type(elem)
    if collate_fn_map is not None:
        fn = collate_fn_map.get(cls)
        if fn is None:
            for key, candidate in collate_fn_map.items():
                if isinstance(elem, key):
                    fn = candidate
                    break
        if fn is not None:
            return fn(batch, collate_fn_map=collate_fn_map)

    if isinstance(elem, collections.abc.Mapping):
        return _rebuild_like(elem, {key: collate([d[key] for d in batch],
                                                 collate_fn_map=collate_fn_map)
                                    for key in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        # the columns are the tuples zip makes, as torch passes them (a column of
        # strings comes back as that tuple)
        return cls(*(collate(field, collate_fn_map=collate_fn_map) for field in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(sample) != size for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [collate(col, collate_fn_map=collate_fn_map) for col in zip(*batch)]
        if isinstance(elem, tuple):
            return columns  # as torch: a batch of tuples collates to a list
        return _rebuild_like(elem, columns)
    raise TypeError(default_collate_err_msg_format.format(cls))


def collate_tensor_fn(batch, *, collate_fn_map=None):
    elem = batch[0]
    if getattr(elem, "is_nested", False):
        raise RuntimeError(
            "Batches of nested tensors are not currently supported by the default "
            "collate_fn; please provide a custom collate_fn to handle them appropriately.")
    if elem.layout is not strided.strided:
        raise RuntimeError(
            "Batches of sparse tensors are not currently supported by the default "
            "collate_fn; please provide a custom collate_fn to handle them appropriately.")
    # torch stacks into shared memory inside workers; here batches cross processes by
    # pickling, so a plain stack is all there is to do.
    return strided.stack(batch, 0)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    dtype = batch[0].dtype
    if np_str_obj_array_pattern.search(dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(dtype))
    return collate([strided.as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    return strided.as_tensor(batch)


def collate_float_fn(batch, *, collate_fn_map=None):
    return strided.tensor(batch, dtype=strided.float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    return strided.tensor(batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    return batch


default_collate_fn_map: dict[type | tuple[type, ...], Callable] = {
    strided.Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def default_collate(batch):
    """Stack a list of samples into a batch, keeping the samples' structure.

    Tensors are stacked along a new first dimension; NumPy arrays and scalars become
    tensors first; Python floats become a float64 tensor, ints an int64 tensor (bools
    a bool tensor); strings and bytes stay a list; mappings,
    namedtuples and sequences are collated field by field (tuples come back as lists).

    >>> default_collate([(0, 1.5), (1, 2.5)])
    [tensor([0, 1]), tensor([1.5000, 2.5000], dtype=torch.float64)]
    """
    return collate(batch, collate_fn_map=default_collate_fn_map)
