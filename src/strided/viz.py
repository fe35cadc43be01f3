"""Pictures of a view over its storage: ``strided.viz.storage_map(t)``.

A tensor is three numbers over one flat storage: ``sizes``, ``strides`` and
``storage_offset``. Element ``[i0, i1, ...]`` lives in storage cell
``offset + i0*stride0 + i1*stride1 + ...`` (cells count elements of the tensor's dtype,
not bytes). ``storage_map`` draws that: the storage as a row of cells, the cells the view
reaches marked (``=`` on the top border in text, highlighted in SVG) and labelled with the
view's multi-index, and one step per dim (``+stride`` cells).

Worked example (seed 001, ``diagonal``)::

    >>> import strided as torch
    >>> t = torch.arange(32.).reshape(2, 4, 4).diagonal(-1, 1, 2)  # sizes (2, 3), strides (16, 5)
    >>> print(torch.viz.storage_map(t).text(width=72))
    storage map: sizes (2, 3), strides (16, 5), storage_offset 4, dtype float32, device cpu
    storage: 32 cells of float32 (128 bytes); the view has 6 elements reaching 6 cells
      dim 0: size 2, stride 16 -> +16 cells  ([0,0] @4 -> [1,0] @20)
      dim 1: size 3, stride 5 -> +5 cells  ([0,0] @4 -> [0,1] @9)
      element [0,0] is at cell 4 = storage_offset
    cell  |   0   |   1   |   2   |   3   |   4   |   5   |   6   |   7   |
          +-------+-------+-------+-------+=======+-------+-------+-------+
    view  |       |       |       |       | [0,0] |       |       |       |
    value |  0.0  |  1.0  |  2.0  |  3.0  |  4.0  |  5.0  |  6.0  |  7.0  |
          +-------+-------+-------+-------+-------+-------+-------+-------+
    cell  |   8   |   9   |   10  |   11  |   12  |   13  |   14  |   15  |
          +-------+=======+-------+-------+-------+-------+=======+-------+
    view  |       | [0,1] |       |       |       |       | [0,2] |       |
    value |  8.0  |  9.0  |  10.0 |  11.0 |  12.0 |  13.0 |  14.0 |  15.0 |
          +-------+-------+-------+-------+-------+-------+-------+-------+
    cell  |   16  |   17  |   18  |   19  |   20  |   21  |   22  |   23  |
          +-------+-------+-------+-------+=======+-------+-------+-------+
    view  |       |       |       |       | [1,0] |       |       |       |
    value |  16.0 |  17.0 |  18.0 |  19.0 |  20.0 |  21.0 |  22.0 |  23.0 |
          +-------+-------+-------+-------+-------+-------+-------+-------+
    cell  |   24  |   25  |   26  |   27  |   28  |   29  |   30  |   31  |
          +-------+=======+-------+-------+-------+-------+=======+-------+
    view  |       | [1,1] |       |       |       |       | [1,2] |       |
    value |  24.0 |  25.0 |  26.0 |  27.0 |  28.0 |  29.0 |  30.0 |  31.0 |
          +-------+-------+-------+-------+-------+-------+-------+-------+

Cells reached more than once (``expand``, stride 0, overlapping ``as_strided`` /
``unfold``) show their first index and ``+k`` (or ``xN`` when that does not fit), and a
footnote ``cell 4 reached 3 times: [0,0] [1,0] [2,0]`` lists them all.

``StorageMap.svg()`` draws the same picture as a standalone SVG (one ``<rect
class="cell">`` per drawn cell, ``reached`` ones highlighted, a ``<text class="label">``
per multi-index, a ``<path class="step">`` arrow per dim, a caption);
``StorageMap.save(path)`` writes ``.svg``, or ``.png`` through Pillow or matplotlib
(``pip install 'strided[viz]'``).

Note [storage map window]
~~~~~~~~~~~~~~~~~~~~~~~~~
A storage can be far larger than what is worth drawing (a narrow of a big tensor, one
column of a matrix). When the storage has at most ``max_cells`` cells every cell is drawn.
Otherwise the drawing keeps a *window*: every reached cell, ``context`` cells on each side
of it, and the first and last cells of the storage. Each maximal run of cells outside the
window that is longer than one cell becomes one elided segment, drawn as ``…`` with its
cell range (``5..99``); a single left-out cell between two kept ones is simply drawn.
If the window itself is still longer than ``max_cells``, drawing stops after
``max_cells`` cells and the rest of the storage becomes one final elided segment, which
says how many reached cells it hides. ``StorageMap.segments`` lists what is drawn, in
order: ``("cell", c)`` or ``("gap", start, stop, reached_inside)`` (``stop`` exclusive).

The reached cells themselves come from enumerating the view's elements with NumPy
(``offset + strides @ indices``); a view with more than ``max_elements`` elements is
enumerated only for its first ``max_elements`` elements in row-major order, and the map
says so. Values are read only for CPU storages (never for meta ones: geometry only).
"""

from __future__ import annotations

import math
import os
from html import escape as _esc

import numpy as np

__all__ = ["StorageMap", "storage_map"]

_PNG_HINT = ("saving a storage map as PNG needs Pillow or matplotlib; install the optional "
             "extra: pip install 'strided[viz]' (or pip install pillow)")


def _fmt_index(idx) -> str:
    return "[" + ",".join(str(int(i)) for i in idx) + "]"


def _n(k: int, word: str) -> str:
    return f"{k} {word}" if k == 1 else f"{k} {word}s"


def _fmt_value(v) -> str:
    if isinstance(v, (bool, np.bool_)):
        return "T" if v else "F"
    if isinstance(v, (complex, np.complexfloating)):
        return f"{v.real:.3g}{v.imag:+.3g}j"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    f = float(v)
    if math.isnan(f) or math.isinf(f):
        return str(f)
    if f == int(f) and abs(f) < 1e6:
        return f"{f:.1f}"
    return f"{f:.4g}"


class StorageMap:
    """Where a view's elements live in its storage; render with ``text()`` / ``svg()``.

    Attributes: ``sizes``, ``strides``, ``offset``, ``dtype``, ``device``, ``numel``,
    ``storage_cells`` (storage size in elements), ``segments`` (what is drawn, see
    Note [storage map window]), ``reached`` (``{cell: [multi-index, ...]}`` for every
    drawn reached cell), ``values`` (``{cell: value}`` for drawn cells, empty when values
    are not shown), ``enumerated`` (how many elements were enumerated).
    """

    def __init__(self, t, *, max_cells: int = 64, context: int = 1, values=None,
                 max_elements: int = 1 << 20):
        from .frontend.tensor import Tensor
        if not isinstance(t, Tensor):
            raise TypeError(f"storage_map(): expected a Tensor, but got {type(t).__name__}")
        if max_cells < 1:
            raise ValueError("storage_map(): max_cells must be at least 1")
        self.sizes = tuple(int(s) for s in t.shape)
        self.strides = tuple(int(s) for s in t.stride())
        self.offset = int(t.storage_offset())
        self.dtype = t.dtype
        self.device = t.device
        self.itemsize = t.dtype.itemsize
        storage = t.untyped_storage()
        self.storage_nbytes = int(storage.nbytes())
        self.storage_cells = self.storage_nbytes // self.itemsize
        self.numel = math.prod(self.sizes)
        self.max_cells = max_cells
        self.context = context

        # -- every element's cell, sorted (cells as int64; element numbers row-major) --
        n = min(self.numel, max_elements)
        self.enumerated = n
        nd = len(self.sizes)
        if nd == 0:
            flat = np.zeros((0, 1), np.int64)
        elif n == 0:
            flat = np.zeros((nd, 0), np.int64)
        elif n == self.numel:
            flat = np.indices(self.sizes, dtype=np.int64).reshape(nd, -1)
        else:
            flat = np.stack(np.unravel_index(np.arange(n, dtype=np.int64), self.sizes))
            flat = flat.astype(np.int64).reshape(nd, -1)
        pos = self.offset + (np.asarray(self.strides, np.int64) @ flat if nd else
                             np.zeros(n, np.int64))
        order = np.argsort(pos, kind="stable")
        self._sorted_pos = pos[order]
        self._order = order
        self.reached_cells = np.unique(self._sorted_pos)
        self.reached_count = int(self.reached_cells.size)
        top = int(self.reached_cells[-1]) + 1 if self.reached_count else 0
        self.cells_total = max(self.storage_cells, top)  # > storage_cells only if out of bounds
        self.out_of_bounds = top > self.storage_cells

        self.segments = self._window()
        drawn = [s[1] for s in self.segments if s[0] == "cell"]
        self.drawn_cells = drawn

        self.reached = {}
        for c in drawn:
            lo = np.searchsorted(self._sorted_pos, c, "left")
            hi = np.searchsorted(self._sorted_pos, c, "right")
            if hi > lo:
                elems = self._order[lo:hi]
                if nd:
                    idx = np.stack(np.unravel_index(elems, self.sizes), axis=1)
                    self.reached[c] = [tuple(int(i) for i in row) for row in idx]
                else:
                    self.reached[c] = [()]

        # -- values: CPU storages only, and only for drawn cells -------------------------
        self.values = {}
        show = values if values is not None else True
        if show and self.device.type == "cpu" and self.storage_cells:
            buf = storage._buf
            if buf is not None:
                arr = np.asarray(buf[: self.storage_cells * self.itemsize]).view(self.dtype.np)
                for c in drawn:
                    if c < self.storage_cells:
                        self.values[c] = _fmt_value(arr[c].item() if hasattr(arr[c], "item")
                                                    else arr[c])

    # -- the window (see Note [storage map window]) ---------------------------------------

    def _window(self):
        total = self.cells_total
        if total == 0:
            return []
        if total <= self.max_cells:
            return [("cell", c) for c in range(total)]
        r = self.reached_cells
        parts = [np.array([0, total - 1], np.int64)]
        for k in range(-self.context, self.context + 1):
            parts.append(r + k)
        keep = np.unique(np.concatenate(parts))
        keep = keep[(keep >= 0) & (keep < total)]
        segs = []
        drawn = 0
        prev = -1
        for c in keep.tolist():
            if drawn >= self.max_cells:  # the rest of the storage: one final elided run
                segs.append(("gap", prev + 1, total, self._reached_in(prev + 1, total)))
                return segs
            gap = c - prev - 1
            if gap == 1:
                segs.append(("cell", prev + 1))
                drawn += 1
            elif gap > 1:
                segs.append(("gap", prev + 1, c, self._reached_in(prev + 1, c)))
            if drawn >= self.max_cells:
                segs.append(("gap", c, total, self._reached_in(c, total)))
                return segs
            segs.append(("cell", c))
            drawn += 1
            prev = c
        return segs

    def _reached_in(self, start, stop) -> int:
        r = self.reached_cells
        return int(np.searchsorted(r, stop, "left") - np.searchsorted(r, start, "left"))

    # -- labels ---------------------------------------------------------------------------

    def _label(self, c, limit=16) -> str:
        idxs = self.reached.get(c)
        if not idxs:
            return ""
        first = _fmt_index(idxs[0])
        if len(idxs) == 1:
            return first if len(first) <= limit else first[: limit - 1] + "…"
        lab = f"{first}+{len(idxs) - 1}"
        return lab if len(lab) <= limit else f"x{len(idxs)}"

    def _first_steps(self):
        """Per dim: (dim, size, stride, from_cell, to_cell) for the step e_0 -> e_dim."""
        nd = len(self.sizes)
        out = []
        for d in range(nd):
            out.append((d, self.sizes[d], self.strides[d], self.offset,
                        self.offset + self.strides[d]))
        return out

    def _step_text(self, d, size, stride, c0, c1):
        nd = len(self.sizes)
        line = f"dim {d}: size {size}, stride {stride} -> +{stride} cells"
        if size == 0:
            return line + "  (size 0: the view is empty)"
        if size == 1:
            return line + "  (size 1: never stepped)"
        e0 = _fmt_index([0] * nd)
        e1 = _fmt_index([1 if k == d else 0 for k in range(nd)])
        line += f"  ({e0} @{c0} -> {e1} @{c1})"
        if stride == 0:
            line += "  stride 0: every index of this dim reuses the same cells"
        return line

    def header_lines(self):
        dev = self.device.type if self.device.index is None else str(self.device)
        lines = [f"storage map: sizes {self.sizes}, strides {self.strides}, "
                 f"storage_offset {self.offset}, dtype {self.dtype.name}, device {dev}"]
        lines.append(f"storage: {_n(self.storage_cells, 'cell')} of {self.dtype.name} "
                     f"({_n(self.storage_nbytes, 'byte')}); the view has "
                     f"{_n(self.numel, 'element')} reaching {_n(self.reached_count, 'cell')}"
                     + ("" if self.enumerated == self.numel else
                        f" (first {self.enumerated} elements enumerated)"))
        for step in self._first_steps():
            lines.append("  " + self._step_text(*step))
        if not self.sizes:
            lines.append(f"  0-dim: the single element [] is at cell {self.offset} "
                         "= storage_offset")
        elif self.numel:
            lines.append(f"  element {_fmt_index([0] * len(self.sizes))} is at cell "
                         f"{self.offset} = storage_offset")
        else:
            lines.append("  the view is empty: it reaches no cells")
        if self.device.type == "meta":
            lines.append("  meta tensor: geometry only, no values")
        if self.out_of_bounds:
            lines.append(f"  warning: the view reaches past the storage's last cell "
                         f"({self.storage_cells - 1})")
        gaps = [s for s in self.segments if s[0] == "gap"]
        if gaps:
            desc = ", ".join(f"{g[1]}..{g[2] - 1}" + (f" ({g[3]} reached)" if g[3] else "")
                             for g in gaps[:6])
            if len(gaps) > 6:
                last = gaps[-1]
                desc += (f", … {len(gaps) - 7} more runs …, {last[1]}..{last[2] - 1}"
                         + (f" ({last[3]} reached)" if last[3] else ""))
            lines.append(f"  window: {len(self.drawn_cells)} of {self.cells_total} cells "
                         f"drawn; elided: {desc}")
        return lines

    # -- text -----------------------------------------------------------------------------

    def text(self, width: int = 100) -> str:
        """The map as text: header, then rows of cells wrapped to ``width`` columns."""
        lines = self.header_lines()
        segs = self.segments
        if not segs:
            lines.append("(the storage has no cells)")
            return "\n".join(lines)
        show_values = bool(self.values)

        def content(s):
            if s[0] == "cell":
                c = s[1]
                return str(c), self._label(c), self.values.get(c, "")
            return f"{s[1]}..{s[2] - 1}", "…", "…" if show_values else ""

        cont = [content(s) for s in segs]
        # one width for all cells (gaps get their own), so that columns line up
        cw = max(3, max(max(len(a), len(b), len(v)) for s, (a, b, v) in zip(segs, cont)
                        if s[0] == "cell") if self.drawn_cells else 3) + 2
        widths = [cw if s[0] == "cell" else max(cw, len(a) + 2) for s, (a, _, _) in
                  zip(segs, cont)]
        prefix = 6  # "cell  ", "view  ", "value "
        rows, cur, used = [], [], prefix + 1
        for k, w in enumerate(widths):
            if cur and used + w + 1 > width:
                rows.append(cur)
                cur, used = [], prefix + 1
            cur.append(k)
            used += w + 1
        rows.append(cur)
        for row in rows:
            ws = [widths[k] for k in row]
            rc = [cont[k] for k in row]
            lines.append("cell  |" + "|".join(a.center(w) for (a, _, _), w in zip(rc, ws)) + "|")
            top = [("=" if segs[k][0] == "cell" and segs[k][1] in self.reached else "-") * w
                   for k, w in zip(row, ws)]
            lines.append(" " * prefix + "+" + "+".join(top) + "+")
            lines.append("view  |" + "|".join(b.center(w) for (_, b, _), w in zip(rc, ws)) + "|")
            if show_values:
                lines.append("value |" + "|".join(v.center(w) for (_, _, v), w in zip(rc, ws))
                             + "|")
            lines.append(" " * prefix + "+" + "+".join("-" * w for w in ws) + "+")
        multi = [(c, ix) for c, ix in sorted(self.reached.items()) if len(ix) > 1]
        for c, ix in multi[:32]:
            shown = " ".join(_fmt_index(i) for i in ix[:16])
            more = f" … (+{len(ix) - 16} more)" if len(ix) > 16 else ""
            lines.append(f"cell {c} reached {len(ix)} times: {shown}{more}")
        if len(multi) > 32:
            lines.append(f"… and {len(multi) - 32} more cells reached more than once")
        return "\n".join(lines)

    __str__ = text

    def __repr__(self):
        return (f"StorageMap(sizes={self.sizes}, strides={self.strides}, offset={self.offset}, "
                f"storage_cells={self.storage_cells}, reached={self.reached_count})")

    # -- layout shared by SVG and PNG -----------------------------------------------------

    def _layout(self, per_row: int = 16):
        """Primitives: ('rect', x, y, w, h, cls, attrs), ('text', x, y, s, cls, attrs),
        ('path', points, cls, attrs) (a quadratic curve start/control/end); and the size."""
        CW, PAD = 56, 16
        max_labels = max((min(len(v), 3) for v in self.reached.values()), default=0)
        more = any(len(v) > 3 for v in self.reached.values())
        ch = 18 + 13 * (max_labels + more) + (13 if self.values else 0)
        ch = max(ch, 30)
        nd = len(self.sizes)
        band = 16 + 10 * nd  # room for the step arrows above each row
        prims = []
        caption = self.header_lines()
        y = PAD
        for k, line in enumerate(caption):
            prims.append(("text", PAD, y + 12, line, "caption" if k else "caption title", {}))
            y += 16
        y += 6
        segs = self.segments
        pos = {}  # segment number -> (x, y_top)
        where = {}  # cell -> segment number (gaps cover ranges)
        for k, s in enumerate(segs):
            r, col = divmod(k, per_row)
            x = PAD + col * CW
            yt = y + r * (band + ch + 18) + band
            pos[k] = (x, yt)
            if s[0] == "cell":
                c = s[1]
                where[c] = k
                hit = c in self.reached
                cls = "cell reached" if hit else "cell"
                prims.append(("rect", x, yt, CW, ch, cls, {"data-cell": str(c)}))
                prims.append(("text", x + CW / 2, yt + ch + 13, str(c), "index",
                              {"data-cell": str(c)}))
                ty = yt + 14
                for ix in self.reached.get(c, [])[:3]:
                    prims.append(("text", x + CW / 2, ty, _fmt_index(ix), "label",
                                  {"data-cell": str(c)}))
                    ty += 13
                if len(self.reached.get(c, [])) > 3:
                    prims.append(("text", x + CW / 2, ty, f"+{len(self.reached[c]) - 3} more",
                                  "more", {"data-cell": str(c)}))
                if c in self.values:
                    prims.append(("text", x + CW / 2, yt + ch - 6, self.values[c], "value",
                                  {"data-cell": str(c)}))
            else:
                _, a, b, nr = s
                prims.append(("text", x + CW / 2, yt + ch / 2 + 4, "…", "gap",
                              {"data-start": str(a), "data-stop": str(b)}))
                prims.append(("text", x + CW / 2, yt + ch + 13, f"{a}..{b - 1}", "index gap",
                              {}))
                if nr:
                    prims.append(("text", x + CW / 2, yt + ch / 2 + 17, f"{nr} reached", "more",
                                  {}))

        def seg_of(c):
            if c in where:
                return where[c]
            for k, s in enumerate(segs):
                if s[0] == "gap" and s[1] <= c < s[2]:
                    return k
            return None

        if self.numel:
            for d, size, stride, c0, c1 in self._first_steps():
                if size < 2:
                    continue
                k0, k1 = seg_of(c0), seg_of(c1)
                if k0 is None or k1 is None:
                    continue
                (x0, y0), (x1, y1) = pos[k0], pos[k1]
                h = 12 + 10 * d
                p0 = (x0 + CW / 2, y0)
                p1 = (x1 + CW / 2 + (6 if k0 == k1 else 0), y1)
                if k0 == k1:  # stride 0: a loop over the same cell
                    ctrl = (x0 + CW / 2 + 3, y0 - h * 1.6)
                    p0 = (x0 + CW / 2 - 6, y0)
                else:
                    ctrl = ((p0[0] + p1[0]) / 2, min(y0, y1) - h * 1.6)
                prims.append(("path", (p0, ctrl, p1), "step", {"data-dim": str(d)}))
                prims.append(("text", ctrl[0], min(y0, y1) - h - 2,
                              f"dim {d}: +{stride}", "steplabel", {"data-dim": str(d)}))
        rows = max(1, math.ceil(len(segs) / per_row))
        width = max(PAD * 2 + min(len(segs), per_row) * CW,
                    PAD * 2 + 7 * max(len(s) for s in caption))
        height = y + rows * (band + ch + 18) + PAD
        return prims, int(width), int(height)

    # -- SVG ------------------------------------------------------------------------------

    def svg(self, per_row: int = 16) -> str:
        """The map as a standalone SVG document (a string)."""
        prims, w, h = self._layout(per_row)
        out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
               f'viewBox="0 0 {w} {h}" font-family="monospace" font-size="11">',
               "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" "
               "markerWidth=\"6\" markerHeight=\"6\" orient=\"auto-start-reverse\">"
               "<path d=\"M 0 0 L 10 5 L 0 10 z\" fill=\"#c0392b\"/></marker>"
               "<style>.cell{fill:#f4f4f4;stroke:#888}.cell.reached{fill:#ffd27f;"
               "stroke:#c0392b;stroke-width:2}.label{fill:#000}.value{fill:#555}"
               ".index{fill:#777}.caption{fill:#222}.title{font-weight:bold}"
               ".step{fill:none;stroke:#c0392b;stroke-width:1.5}.steplabel{fill:#c0392b}"
               ".gap{fill:#777;font-size:16px}.more{fill:#555}</style></defs>",
               # the background is a polygon, so that every <rect> is a storage cell
               f'<polygon class="background" points="0,0 {w},0 {w},{h} 0,{h}" fill="white"/>']

        def attrs(a):
            return "".join(f' {k}="{_esc(v)}"' for k, v in sorted(a.items()))

        def num(v):
            return f"{v:g}"

        for p in prims:
            if p[0] == "rect":
                _, x, y, rw, rh, cls, a = p
                out.append(f'<rect class="{cls}" x="{num(x)}" y="{num(y)}" width="{num(rw)}" '
                           f'height="{num(rh)}"{attrs(a)}/>')
            elif p[0] == "text":
                _, x, y, s, cls, a = p
                anchor = "start" if "caption" in cls else "middle"
                out.append(f'<text class="{cls}" x="{num(x)}" y="{num(y)}" '
                           f'text-anchor="{anchor}"{attrs(a)}>{_esc(s)}</text>')
            else:
                _, (p0, c, p1), cls, a = p
                d = (f"M {num(p0[0])} {num(p0[1])} Q {num(c[0])} {num(c[1])} "
                     f"{num(p1[0])} {num(p1[1])}")
                out.append(f'<path class="{cls}" d="{d}" marker-end="url(#arrow)"{attrs(a)}/>')
        out.append("</svg>")
        return "\n".join(out) + "\n"

    # -- files ----------------------------------------------------------------------------

    def save(self, path) -> str:
        """Write the map to ``path``: ``.svg`` always works; ``.png`` needs Pillow or
        matplotlib (the ``viz`` extra); ``.txt`` writes the text form."""
        path = os.fspath(path)
        ext = os.path.splitext(path)[1].lower()
        if ext == ".svg":
            with open(path, "w", encoding="utf-8") as f:
                f.write(self.svg())
        elif ext == ".txt":
            with open(path, "w", encoding="utf-8") as f:
                f.write(self.text() + "\n")
        elif ext == ".png":
            self._save_png(path)
        else:
            raise ValueError(f"StorageMap.save(): unsupported file type {ext!r} "
                             "(use .svg, .png or .txt)")
        return path

    def _save_png(self, path):
        try:
            from PIL import Image, ImageDraw
        except ImportError:
            Image = None
        prims, w, h = self._layout()
        if Image is not None:
            img = Image.new("RGB", (w, h), "white")
            dr = ImageDraw.Draw(img)
            for p in prims:
                if p[0] == "rect":
                    _, x, y, rw, rh, cls, _a = p
                    hit = "reached" in cls
                    dr.rectangle([x, y, x + rw, y + rh], fill="#ffd27f" if hit else "#f4f4f4",
                                 outline="#c0392b" if hit else "#888888", width=2 if hit else 1)
                elif p[0] == "text":
                    _, x, y, s, cls, _a = p
                    anchor = "ls" if "caption" in cls else "ms"
                    s = s.replace("…", "...")
                    color = "#c0392b" if cls == "steplabel" else "#222222"
                    dr.text((x, y), s, fill=color, anchor=anchor)
                else:
                    _, (p0, c, p1), _cls, _a = p
                    pts = [((1 - u) ** 2 * p0[0] + 2 * (1 - u) * u * c[0] + u * u * p1[0],
                            (1 - u) ** 2 * p0[1] + 2 * (1 - u) * u * c[1] + u * u * p1[1])
                           for u in (i / 24 for i in range(25))]
                    dr.line(pts, fill="#c0392b", width=2)
                    dr.ellipse([p1[0] - 3, p1[1] - 3, p1[0] + 3, p1[1] + 3], fill="#c0392b")
            img.save(path, format="PNG")
            return
        try:
            import matplotlib
        except ImportError:
            raise ImportError(_PNG_HINT) from None
        matplotlib.use("Agg", force=False)
        from matplotlib.figure import Figure
        from matplotlib.patches import FancyArrowPatch, Rectangle
        from matplotlib.path import Path
        fig = Figure(figsize=(w / 100, h / 100), dpi=100)
        ax = fig.add_axes((0, 0, 1, 1))
        ax.set_xlim(0, w)
        ax.set_ylim(h, 0)
        ax.axis("off")
        for p in prims:
            if p[0] == "rect":
                _, x, y, rw, rh, cls, _a = p
                hit = "reached" in cls
                ax.add_patch(Rectangle((x, y), rw, rh, facecolor="#ffd27f" if hit else "#f4f4f4",
                                       edgecolor="#c0392b" if hit else "#888888"))
            elif p[0] == "text":
                _, x, y, s, cls, _a = p
                ax.text(x, y, s, ha="left" if "caption" in cls else "center", va="baseline",
                        fontsize=7, family="monospace")
            else:
                _, (p0, c, p1), _cls, _a = p
                ax.add_patch(FancyArrowPatch(path=Path([p0, c, p1], [1, 3, 3]),
                                             arrowstyle="->", color="#c0392b"))
        fig.savefig(path, format="png")


def storage_map(t, *, max_cells: int = 64, context: int = 1, values=None,
                max_elements: int = 1 << 20) -> StorageMap:
    """Map ``t``'s elements onto its storage's cells; see the module docstring.

    ``max_cells`` caps how many storage cells are drawn (Note [storage map window]),
    ``context`` is how many neighbours of each reached cell stay in the window, ``values``
    (default: when the storage is on the CPU) shows each drawn cell's value.
    """
    return StorageMap(t, max_cells=max_cells, context=context, values=values,
                      max_elements=max_elements)
