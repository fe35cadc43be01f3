"""Safetensors files for strided tensors: the API of ``safetensors.torch``, without torch.

    from strided.utils.safetensors import save_file, load_file, safe_open
    save_file({"w": strided.ones(2, 3)}, "model.safetensors", metadata={"step": "10"})
    load_file("model.safetensors")["w"]

The format: an 8-byte little-endian header length N, N bytes of JSON (``{"__metadata__":
{str: str}, name: {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]}, ...}``,
padded with spaces to a multiple of 8), then the tensors' bytes, back to back. Like the
reference writer, tensors are laid out by dtype (widest first) then name, so the files are
byte-identical to ``safetensors.torch``'s.
"""

from __future__ import annotations

import json
import mmap as _mmap
import os
import struct
from typing import Any

from ..core import dtypes as _dt

__all__ = ["load", "load_file", "load_model", "safe_open", "save", "save_file", "save_model"]

# the reference's dtype enum order; tensors are laid out by it, descending
_CODES = [("BOOL", _dt.bool_), ("U8", _dt.uint8), ("I8", _dt.int8), ("I16", _dt.int16),
          ("U16", _dt.uint16), ("F16", _dt.float16), ("BF16", _dt.bfloat16),
          ("I32", _dt.int32), ("U32", _dt.uint32), ("F32", _dt.float32),
          ("C64", _dt.complex64), ("F64", _dt.float64), ("I64", _dt.int64),
          ("U64", _dt.uint64)]
_CODE_OF = {d: c for c, d in _CODES}
_DTYPE_OF = {c: d for c, d in _CODES}
_RANK = {c: i for i, (c, _) in enumerate(_CODES)}


def _check_tensors(tensors: dict) -> None:
    from ..frontend.tensor import Tensor
    if not isinstance(tensors, dict):
        raise ValueError(f"Expected a dict of [str, torch.Tensor] but received {type(tensors)}")
    for k, v in tensors.items():
        if not isinstance(v, Tensor):
            raise ValueError(f"Key `{k}` is invalid, expected torch.Tensor but received "
                             f"{type(v)}")
    # tensors that overlap in memory are refused (they would come back as copies)
    shared = [names for names in _find_shared_tensors(tensors) if len(names) > 1]
    if shared:
        raise RuntimeError(f"""
            Some tensors share memory, this will lead to duplicate memory on disk and potential differences when loading them again: {shared}.
            A potential way to correctly save your model is to use `save_model`.
            More information at https://huggingface.co/docs/safetensors/torch_shared_tensors
            """)  # noqa: E501
    for k, v in tensors.items():
        if not v.is_contiguous():
            raise ValueError(
                f"You are trying to save a non contiguous tensor: `{k}` which is not allowed. It "
                "either means you are trying to save tensors which are reference of each other "
                "in which case it's recommended to save only the full tensors, and reslice at "
                "load time, or simply call `.contiguous()` on your tensor to pack it before "
                "saving.")
        if v.dtype not in _CODE_OF:
            raise KeyError(str(v.dtype))


def _end_ptr(t) -> int:
    if t.numel():
        return t.reshape(-1)[-1].data_ptr() + t.element_size()
    return t.data_ptr()


def _find_shared_tensors(tensors: dict) -> list:
    """Groups of names whose tensors overlap in memory (one storage, overlapping byte
    ranges), in the reference's order; singletons included."""
    by_storage: dict = {}
    for k, v in tensors.items():
        storage = v.untyped_storage()
        if v.device.type != "meta" and storage.data_ptr() != 0 and storage.nbytes() != 0:
            by_storage.setdefault((str(v.device), storage.data_ptr(), storage.nbytes()),
                                  set()).add(k)
    groups = []
    for names in sorted(by_storage.values(), key=sorted):
        if len(names) < 2:
            groups.append(names)
            continue
        areas = sorted((tensors[n].data_ptr(), _end_ptr(tensors[n]), n) for n in names)
        _, last_stop, first = areas[0]
        groups.append({first})
        for start, stop, name in areas[1:]:
            if start >= last_stop:
                groups.append({name})
            else:
                groups[-1].add(name)
            last_stop = stop
    return groups


def _is_complete(t) -> bool:
    storage = t.untyped_storage()
    return t.data_ptr() == storage.data_ptr() and \
        t.numel() * t.element_size() == storage.nbytes()


def _remove_duplicate_names(state_dict: dict, *, preferred_names=None,
                            discard_names=None) -> dict:
    """For each group of overlapping tensors: the name to keep -> the names to drop."""
    preferred_names = set(preferred_names or [])
    discard_names = set(discard_names or [])
    to_remove: dict = {}
    for shared in _find_shared_tensors(state_dict):
        complete = {n for n in shared if _is_complete(state_dict[n])}
        if not complete:
            raise RuntimeError(
                "Error while trying to find names to remove to save state dict, but found no "
                f"suitable name to keep for saving amongst: {shared}. None is covering the "
                "entire storage.Refusing to save/load the model since you could be storing "
                "much more memory than needed. Please refer to https://huggingface.co/docs/"
                "safetensors/torch_shared_tensors for more information. Or open an issue.")
        keep = sorted(complete)[0]
        if complete - discard_names:
            keep = sorted(complete - discard_names)[0]
        if preferred_names & complete:
            keep = sorted(preferred_names & complete)[0]
        for name in sorted(shared):
            if name != keep:
                to_remove.setdefault(keep, []).append(name)
    return to_remove


def save_model(model, filename, metadata: dict | None = None,
               force_contiguous: bool = True) -> None:
    """Saves ``model.state_dict()``, keeping one name of each group of tied tensors (the
    dropped names are recorded in the metadata as ``dropped -> kept``)."""
    state_dict = model.state_dict()
    for kept, dropped in _remove_duplicate_names(state_dict).items():
        for name in dropped:
            if metadata is None:
                metadata = {}
            if name not in metadata:
                metadata[name] = kept
            del state_dict[name]
    if force_contiguous:
        state_dict = {k: v.contiguous() for k, v in state_dict.items()}
    try:
        save_file(state_dict, filename, metadata=metadata)
    except ValueError as e:
        raise ValueError(str(e) + " Or use save_model(..., force_contiguous=True), read the "
                         "docs for potential caveats.") from None


def load_model(model, filename, strict: bool = True, device="cpu") -> tuple:
    """Loads a file written by ``save_model`` into ``model``; returns (missing, unexpected)
    names, and with ``strict`` raises when either is non-empty (tied names are not
    missing)."""
    state_dict = load_file(filename, device=device)
    to_remove = _remove_duplicate_names(model.state_dict(), preferred_names=state_dict.keys())
    missing, unexpected = model.load_state_dict(state_dict, strict=False)
    missing = set(missing)
    for dropped in to_remove.values():
        for name in dropped:
            if name not in missing:
                unexpected.append(name)
            else:
                missing.remove(name)
    if strict and (missing or unexpected):
        error = f"Error(s) in loading state_dict for {model.__class__.__name__}:"
        if missing:
            error += "\n    Missing key(s) in state_dict: " + ", ".join(
                f'"{k}"' for k in sorted(missing))
        if unexpected:
            error += "\n    Unexpected key(s) in state_dict: " + ", ".join(
                f'"{k}"' for k in sorted(unexpected))
        raise RuntimeError(error)
    return missing, unexpected


def _serialize(tensors: dict, metadata: dict | None):
    """(header bytes, [(tensor, nbytes)]) in file order."""
    _check_tensors(tensors)
    if metadata is not None:
        for k, v in metadata.items():
            if not isinstance(k, str) or not isinstance(v, str):
                raise TypeError("argument 'metadata': 'int' object cannot be converted to "
                                "'PyString'" if not isinstance(v, str) else
                                "argument 'metadata': key must be str")
    order = sorted(tensors, key=lambda k: (-_RANK[_CODE_OF[tensors[k].dtype]], k))
    header: dict[str, Any] = {}
    if metadata:
        header["__metadata__"] = dict(sorted(metadata.items()))   # deterministic order
    offset = 0
    items = []
    for name in order:
        t = tensors[name]
        nbytes = t.numel() * t.element_size()
        header[name] = {"dtype": _CODE_OF[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + nbytes]}
        offset += nbytes
        items.append((t, nbytes))
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text, items


def _tensor_bytes(t):
    """A C-contiguous CPU tensor's bytes, zero-copy, as a flat uint8 array."""
    from .. import uint8
    flat = t.detach().reshape(-1)
    if flat.numel() == 0:
        return b""
    return flat.view(uint8).numpy() if t.dtype.itemsize else b""


def save(tensors: dict, metadata: dict | None = None) -> bytes:
    """The safetensors file for ``tensors`` (a dict of contiguous tensors), as bytes."""
    head, items = _serialize(tensors, metadata)
    return head + b"".join(bytes(memoryview(_tensor_bytes(t)).cast("B")) if n else b""
                           for t, n in items)


def save_file(tensors: dict, filename, metadata: dict | None = None) -> None:
    """Writes ``tensors`` (a dict of contiguous tensors) to a safetensors file."""
    head, items = _serialize(tensors, metadata)
    with open(filename, "wb") as f:
        f.write(head)
        for t, n in items:
            if n:
                f.write(_tensor_bytes(t))


def _parse_header(buf, size: int):
    if size < 8:
        raise ValueError("Error while deserializing header: HeaderTooSmall")
    (n,) = struct.unpack("<Q", bytes(buf[:8]))
    if 8 + n > size:
        raise ValueError("Error while deserializing header: InvalidHeaderLength")
    try:
        header = json.loads(bytes(buf[8:8 + n]).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError("Error while deserializing header: InvalidHeaderDeserialization") \
            from e
    metadata = header.pop("__metadata__", None)
    return 8 + n, header, metadata


def _make_tensor(buf, start: int, info: dict, device: str, copy: bool = True):
    from .. import empty, uint8
    from ..core.devices import device as _device
    dtype = _DTYPE_OF[info["dtype"]]
    shape = tuple(info["shape"])
    begin, end = info["data_offsets"]
    nbytes = end - begin
    raw = empty(nbytes, dtype=uint8)
    if nbytes:
        raw.numpy()[:] = memoryview(buf)[start + begin:start + end]
    out = empty((0,), dtype=dtype).set_(raw.untyped_storage(), 0, shape,
                                       _contiguous_strides(shape))
    if _device(device).type != "cpu":
        out = out.to(device)
    return out


def _contiguous_strides(shape):
    strides, acc = [], 1
    for s in reversed(shape):
        strides.append(acc)
        acc *= max(s, 1)
    return tuple(reversed(strides))


def _load_buffer(buf, device="cpu") -> dict:
    start, header, _ = _parse_header(buf, len(buf))
    return {name: _make_tensor(buf, start, info, device)
            for name, info in sorted(header.items(), key=lambda kv: kv[0])}


def load(data: bytes) -> dict:
    """The tensors of a safetensors file given as bytes."""
    return _load_buffer(data)


def load_file(filename, device="cpu") -> dict:
    """The tensors of a safetensors file, on ``device`` ('cpu' or 'meta')."""
    with safe_open(filename, framework="pt", device=device) as f:
        return {k: f.get_tensor(k) for k in f.keys()}


class _Slice:
    """``safe_open(...).get_slice(name)``: shape and dtype without reading, ``[...]`` reads."""

    def __init__(self, opened, name):
        self._opened = opened
        self._name = name
        self._info = opened._header[name]

    def get_shape(self):
        return list(self._info["shape"])

    def get_dtype(self):
        return self._info["dtype"]

    def __getitem__(self, index):
        return self._opened.get_tensor(self._name)[index]


class safe_open:
    """``with safe_open(path, framework="pt") as f: f.keys(), f.get_tensor(k),
    f.get_slice(k), f.metadata()``: the file is mapped, and only the tensors asked for are
    read."""

    def __init__(self, filename, framework: str = "pt", device="cpu"):
        self._file = open(os.fspath(filename), "rb")
        size = os.fstat(self._file.fileno()).st_size
        self._map = _mmap.mmap(self._file.fileno(), 0, access=_mmap.ACCESS_READ) if size \
            else b""
        self._start, self._header, self._metadata = _parse_header(self._map, size)
        self._device = str(device)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        if isinstance(self._map, _mmap.mmap):
            self._map.close()
        self._file.close()

    def keys(self) -> list:
        return sorted(self._header)

    def offset_keys(self) -> list:
        return [k for k, _ in sorted(self._header.items(),
                                     key=lambda kv: kv[1]["data_offsets"][0])]

    def metadata(self):
        return self._metadata

    def get_tensor(self, name: str):
        if name not in self._header:
            raise RuntimeError(f"File does not contain tensor {name}")
        return _make_tensor(self._map, self._start, self._header[name], self._device)

    def get_slice(self, name: str) -> _Slice:
        if name not in self._header:
            raise RuntimeError(f"File does not contain tensor {name}")
        return _Slice(self, name)
