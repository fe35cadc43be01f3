"""Tensor printing: ``repr(tensor)`` laid out exactly as torch lays it out.

The entry point is :func:`tensor_repr`. It takes the tensor only for its
metadata (dtype, shape, device, autograd state) and a NumPy array holding the
tensor's values, so this module never needs the Tensor class itself and imports
nothing of strided beyond :mod:`strided.core.dtypes`.

Note [How a tensor is printed]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
1. Pick the elements that will be shown. When the tensor holds more than
   ``threshold`` elements it is *summarised*: along every axis longer than
   ``2 * edgeitems`` only the first and last ``edgeitems`` entries are kept and
   the gap is written ``...``. Those edge entries are gathered with one fancy
   index (``np.ix_``), so a huge array is never walked in full.
2. Choose one cell style for all shown elements (:class:`_CellStyle`): the
   width every cell is right-aligned to and, for floats, the notation. Floats
   whose finite non-zero values are all whole numbers print as ``3.``; the
   notation switches to scientific when the largest/smallest magnitude ratio
   exceeds 1000, the largest exceeds 1e8 or the smallest is below 1e-4 (unless
   ``sci_mode`` forces it). Complex tensors get one style for the real parts
   and one for the imaginary parts.
3. Lay the cells out: rows are wrapped to ``linewidth``; outer dimensions are
   separated by ``,`` plus one blank line per extra dimension, and continuation
   lines are indented to sit under the opening bracket.
4. Append the keyword suffixes (device, size, dtype, grad_fn/requires_grad),
   moving a suffix to its own line when it would overflow ``linewidth``.
"""

from __future__ import annotations

import contextlib
import math
from typing import Any

import numpy as np

from strided.core import dtypes as _dtypes

__all__ = [
    "get_printoptions",
    "printoptions",
    "set_printoptions",
    "tensor_repr",
    "tensor_str",
]


# --------------------------------------------------------------------------- options

_DEFAULTS = {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80}
_PROFILES = {
    "default": _DEFAULTS,
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80},
}


class _Options:
    """The live print settings; one module-level instance, ``_OPTS``."""

    __slots__ = ("edgeitems", "linewidth", "precision", "sci_mode", "threshold")
    _ORDER = ("precision", "threshold", "edgeitems", "linewidth", "sci_mode")

    def __init__(self):
        for key, value in _DEFAULTS.items():
            setattr(self, key, value)
        self.sci_mode = None

    def as_dict(self) -> dict[str, Any]:
        return {key: getattr(self, key) for key in self._ORDER}


_OPTS = _Options()


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """Change how tensors print.

    ``profile`` ('default', 'short' or 'full') resets the four numeric options
    first; explicit arguments then override it. ``sci_mode`` is always
    assigned: omitting it returns to the automatic notation choice.
    """
    if profile in _PROFILES:
        for key, value in _PROFILES[profile].items():
            setattr(_OPTS, key, value)
    for key, value in (("precision", precision), ("threshold", threshold),
                       ("edgeitems", edgeitems), ("linewidth", linewidth)):
        if value is not None:
            setattr(_OPTS, key, value)
    _OPTS.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    """The current options, as keyword arguments accepted by :func:`set_printoptions`."""
    return _OPTS.as_dict()


@contextlib.contextmanager
def printoptions(**kwargs):
    """Apply ``set_printoptions(**kwargs)`` inside the ``with`` block only."""
    saved = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**saved)


# --------------------------------------------------------------------------- cells

class _CellStyle:
    """How one family of scalars (a real tensor, or the real/imag half of a
    complex one) is turned into fixed-width cells.

    Built from a flat array of exactly the elements that will be displayed.
    """

    __slots__ = ("floating", "precision", "sci", "whole", "width")

    def __init__(self, flat: np.ndarray, floating: bool):
        self.floating = floating
        self.whole = True  # every finite non-zero float is an integer
        self.sci = False
        self.width = 1
        self.precision = _OPTS.precision
        if not floating:
            self.width = max(1, _widest_integer(flat))
            return
        with np.errstate(all="ignore"):
            shown = flat[np.isfinite(flat) & (flat != 0)]
            if shown.size == 0:
                return
            magnitude = np.abs(shown)
            smallest = float(magnitude.min())
            largest = float(magnitude.max())
            self.whole = bool(np.all(np.ceil(shown) == shown))
            if _OPTS.sci_mode is None:
                self.sci = (largest / smallest > 1000.0 or largest > 1.0e8
                            or smallest < 1.0e-4)
            else:
                self.sci = bool(_OPTS.sci_mode)
        # Cell length grows with the magnitude of the rounded value (and, in
        # scientific notation, with the magnitude of the exponent), separately
        # for each sign, so the widest cell is one of these four extremes.
        positive = shown[shown > 0]
        negative = shown[shown < 0]
        extremes = [float(a.max()) for a in (positive, negative) if a.size]
        extremes += [float(a.min()) for a in (positive, negative) if a.size]
        self.width = max(1, max(self._measure(v) for v in extremes))

    def _measure(self, value: float) -> int:
        if self.sci:
            return len(f"{value:.{self.precision}e}")
        if self.whole:
            return len(f"{value:.0f}") + 1  # room for the trailing '.'
        return len(f"{value:.{self.precision}f}")

    def cell(self, value) -> str:
        """``value`` is a Python scalar (float for floating styles)."""
        if not self.floating:
            text = str(value)
        elif self.sci:
            text = f"{value:{self.width}.{self.precision}e}"
        elif self.whole:
            text = f"{value:.0f}"
            if math.isfinite(value):
                text += "."
        else:
            text = f"{value:.{self.precision}f}"
        return text.rjust(self.width)


def _widest_integer(flat: np.ndarray) -> int:
    """Length of the longest ``str()`` of an element of a bool or integer array."""
    if flat.size == 0:
        return 0
    if flat.dtype == np.bool_:
        return 5 if not flat.all() else 4  # 'False' / 'True'
    return max(len(str(int(flat.min()))), len(str(int(flat.max()))))


class _Cells:
    """Formats 1-d runs of values with one style (real) or two (complex)."""

    def __init__(self, shown: np.ndarray, kind: str):
        self.kind = kind  # 'int', 'float' or 'complex'
        if kind == "complex":
            self.real = _CellStyle(shown.real.reshape(-1), True)
            self.imag = _CellStyle(shown.imag.reshape(-1), True)
            # ', ' between cells, plus the imaginary part and its 'j'
            self.span = self.real.width + 2 + self.imag.width + 1
        else:
            self.real = _CellStyle(shown.reshape(-1), kind == "float")
            self.span = self.real.width + 2

    def run(self, vec: np.ndarray) -> list[str]:
        """Cells for every element of the 1-d array ``vec`` (already widened)."""
        if self.kind != "complex":
            cell = self.real.cell
            return [cell(v) for v in vec.tolist()]
        return [self._pair(re, im) for re, im in zip(vec.real.tolist(), vec.imag.tolist())]

    def _pair(self, re: float, im: float) -> str:
        left = self.real.cell(re)
        right = (self.imag.cell(im) + "j").lstrip()
        if right[0] in "+-":
            return left + right
        return left + "+" + right


def _widen(values: np.ndarray, kind: str) -> np.ndarray:
    """Convert to the NumPy type whose ``tolist()`` gives the Python scalars
    that are formatted: float64 / complex128 for the floating kinds (exact for
    every narrower float, bfloat16 included)."""
    if kind == "int":
        return values
    if values.dtype == _dtypes.COMPLEX32_NP:   # (float16 pairs: the parts, exactly)
        wide = np.empty(values.shape, np.complex128)
        wide.real, wide.imag = values["real"], values["imag"]
        return wide
    with np.errstate(invalid="ignore"):  # signalling NaNs
        return values.astype(np.complex128 if kind == "complex" else np.float64)


# --------------------------------------------------------------------------- layout

def _edge_elements(values: np.ndarray, edge: int) -> np.ndarray:
    """The elements a summarised print shows (Note [How a tensor is printed])."""
    if values.ndim == 0:
        return values
    if not edge:  # only '...' is shown
        return values[(slice(0, 0),) * values.ndim]
    if values.ndim == 1:  # plain slices, which negative edgeitems also follow
        return np.concatenate((values[:edge], values[-edge:]))
    picks = []
    for n in values.shape:
        if n > 2 * edge:
            picks.append(np.concatenate((np.arange(edge), np.arange(n - edge, n))))
        else:
            picks.append(np.arange(n))
    return values[np.ix_(*picks)]


def _row(vec: np.ndarray, indent: int, summarize: bool, cells: _Cells) -> str:
    edge = _OPTS.edgeitems
    if summarize and not edge:
        items = ["..."]
    elif summarize and vec.shape[0] > 2 * edge:
        items = cells.run(vec[:edge]) + [" ..."] + cells.run(vec[-edge:])
    else:
        items = cells.run(vec)
    per_line = max(1, math.floor((_OPTS.linewidth - indent) / cells.span))
    lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _block(values: np.ndarray, indent: int, summarize: bool, cells: _Cells) -> str:
    if values.ndim == 0:
        return cells.run(values.reshape(1))[0]
    if values.ndim == 1:
        return _row(values, indent, summarize, cells)
    n = values.shape[0]
    edge = _OPTS.edgeitems
    if summarize and n > 2 * edge:
        rows = list(range(edge)) + [None] + list(range(n - edge, n))
    else:
        rows = range(n)
    parts = ["..." if i is None else _block(values[i], indent + 1, summarize, cells)
             for i in rows]
    joint = "," + "\n" * (values.ndim - 1) + " " * (indent + 1)
    return "[" + joint.join(parts) + "]"


def _body(values: np.ndarray, dtype, indent: int) -> str:
    """The bracketed contents of a tensor with at least one element."""
    if dtype.is_complex:
        kind = "complex"
    elif dtype.is_floating_point:
        kind = "float"
    else:
        kind = "int"
    summarize = values.size > _OPTS.threshold
    if not summarize:
        wide = _widen(values, kind)
        return _block(wide, indent, False, _Cells(wide, kind))
    cells = _Cells(_widen(_edge_elements(values, _OPTS.edgeitems), kind), kind)
    return _block(values, indent, True, _WideningCells(cells, kind))


class _WideningCells:
    """A :class:`_Cells` fed unconverted runs: each short run is widened only
    when it is formatted, so summarising never converts the whole array."""

    def __init__(self, cells: _Cells, kind: str):
        self._cells = cells
        self._kind = kind
        self.span = cells.span

    def run(self, vec: np.ndarray) -> list[str]:
        return self._cells.run(_widen(vec, self._kind))


def _with_suffixes(text: str, suffixes: list[str], indent: int,
                   force_newline: bool = False) -> str:
    """``text`` closed with its ``, suffix`` parts, wrapped as torch's _add_suffixes wraps
    them (``force_newline``: the first suffix starts a new line, as for COO tensors)."""
    pieces = [text]
    # Length of the last line, measured the way torch measures it (two over).
    tail = len(text) - text.rfind("\n") + 1
    for i, suffix in enumerate(suffixes):
        if (force_newline and not i) or tail + len(suffix) + 2 > _OPTS.linewidth:
            pieces.append(",\n" + " " * indent + suffix)
            tail = indent + len(suffix)
        else:
            pieces.append(", " + suffix)
            tail += len(suffix) + 2
    pieces.append(")")
    return "".join(pieces)


def tensor_repr(t, values, *, prefix: str = "tensor(") -> str:
    """``repr(t)`` as torch writes it.

    ``t`` supplies ``dtype``, ``shape``, ``device``, ``requires_grad`` and
    ``grad_fn``; ``values`` is a NumPy array of its elements with shape
    ``t.shape`` (``None`` for meta tensors). ``prefix`` is the opening text
    (torch uses ``'<ClassName>('`` for tensor subclasses).
    """
    indent = len(prefix)
    dtype = t.dtype
    shape = tuple(int(n) for n in t.shape)
    default = _dtypes.get_default_dtype()
    suffixes = []
    device = t.device
    if device.type != "cpu":
        suffixes.append(f"device='{device}'")

    if device.type == "meta" or values is None:
        suffixes.append(f"size={shape}")
        if dtype.name != default.name:
            suffixes.append(f"dtype={dtype!r}")
        body = "..."
    elif math.prod(shape) == 0:
        if len(shape) != 1:
            suffixes.append(f"size={shape}")
        # nothing to infer the dtype from, so even int64 is spelled out
        if dtype.name != default.name:
            suffixes.append(f"dtype={dtype!r}")
        body = "[]"
    else:
        if not _OPTS.edgeitems:
            suffixes.append(f"size={shape}")
        implicit = (default.name, _dtypes.default_complex_dtype().name, "int64", "bool")
        if dtype.name not in implicit:
            suffixes.append(f"dtype={dtype!r}")
        body = _body(np.asarray(values).reshape(shape), dtype, indent)

    grad_fn = getattr(t, "grad_fn", None)
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{grad_fn.name().rsplit('::', 1)[-1]}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")

    return _with_suffixes(prefix + body, suffixes, indent)


# torch's str() of a tensor is its repr()
tensor_str = tensor_repr


def sparse_repr(t, *, prefix: str = "tensor(") -> str:
    """``repr`` of a sparse tensor, any layout (Note [Sparse tensors] in
    core/sparse_tensor.py): its member tensors' bodies, then size, nnz, dtype, layout."""
    from ..core import layouts
    indent = len(prefix)
    sp = t._sparse
    layout = sp.layout
    dtype = t.dtype
    default = _dtypes.get_default_dtype()
    meta = t.device.type == "meta"
    suffixes = []
    if t.device.type != "cpu":
        suffixes.append(f"device='{t.device}'")
    suffixes.append(f"size={tuple(t.shape)}")
    if not meta:
        nnz = sp.indices.shape[1] if sp.indices is not None else sp.plain_indices.shape[-1]
        suffixes.append(f"nnz={nnz}")
    implicit = (default.name, _dtypes.default_complex_dtype().name, "int64", "bool")
    if dtype.name not in implicit:
        suffixes.append(f"dtype={dtype!r}")
    if sp.indices is not None:
        members = (("indices", sp.indices), ("values", sp.values))
    else:
        row = layout in (layouts.sparse_csr, layouts.sparse_bsr)
        members = (("crow_indices" if row else "ccol_indices", sp.compressed_indices),
                   ("col_indices" if row else "row_indices", sp.plain_indices),
                   ("values", sp.values))
    texts = []
    for name, member in members:
        head = f"{name}=tensor("
        shape = tuple(member.shape)
        if meta:
            body = "..."
        elif math.prod(shape) == 0:
            body = "[]"
        else:
            body = _body(np.asarray(member.detach()._array()).reshape(shape), member.dtype,
                         indent + len(head))
        if meta or math.prod(shape) == 0:
            body += f", size={shape}"
        texts.append(head + body + ")")
    text = prefix + (",\n" + " " * indent).join(texts)
    suffixes.append(f"layout={layout!r}")
    grad_fn = getattr(t, "grad_fn", None)
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{grad_fn.name().rsplit('::', 1)[-1]}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    # torch starts a COO tensor's suffixes on a new line
    return _with_suffixes(text, suffixes, indent, force_newline=sp.indices is not None)
