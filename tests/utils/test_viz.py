"""``strided.viz.storage_map``: the picture of a view over its storage (issue 6).

The expected reached cells are computed here independently of the module, from
(sizes, strides, offset) with ``itertools.product``, and the geometry of each seed-001
example is cross-checked against torch."""

import importlib.util
import itertools
import xml.etree.ElementTree as ET

import pytest
import torch

import strided
from strided import viz

SVG = "{http://www.w3.org/2000/svg}"


def expected_hits(sizes, strides, offset):
    """{cell: [multi-index, ...]} with indices in row-major order."""
    hits = {}
    for idx in itertools.product(*(range(n) for n in sizes)):
        cell = offset + sum(i * s for i, s in zip(idx, strides))
        hits.setdefault(cell, []).append(idx)
    return hits


def fmt(idx):
    return "[" + ",".join(map(str, idx)) + "]"


def parse_text(text):
    """From the text map: ({cell: label} for drawn cells, [gap headers], {cell: top-border})."""
    lines = text.splitlines()
    labels, gaps, marks = {}, [], {}
    for k, line in enumerate(lines):
        if not line.startswith("cell  |"):
            continue
        heads = [h.strip() for h in line.split("|")[1:-1]]
        border = lines[k + 1].strip()[1:-1].split("+")
        assert lines[k + 2].startswith("view  |")
        labs = [v.strip() for v in lines[k + 2].split("|")[1:-1]]
        assert len(heads) == len(labs) == len(border)
        for h, lab, b in zip(heads, labs, border):
            if ".." in h:
                gaps.append(h)
                assert lab == "…"
            else:
                labels[int(h)] = lab
                marks[int(h)] = b[0]
    return labels, gaps, marks


def check_text(m, sizes, strides, offset):
    hits = expected_hits(sizes, strides, offset)
    labels, gaps, marks = parse_text(m.text())
    drawn_hits = {c: v for c, v in hits.items() if c in labels}
    assert {c for c, lab in labels.items() if lab} == set(drawn_hits)
    assert {c for c, b in marks.items() if b == "="} == set(drawn_hits)
    for c, idxs in drawn_hits.items():
        if len(idxs) == 1:
            assert labels[c] == fmt(idxs[0])
        else:
            assert labels[c] in (f"{fmt(idxs[0])}+{len(idxs) - 1}", f"x{len(idxs)}")
            line = f"cell {c} reached {len(idxs)} times: " + " ".join(map(fmt, idxs[:16]))
            assert line in m.text()
    assert m.reached == drawn_hits
    return labels, gaps


def check_svg(m, sizes, strides, offset):
    hits = expected_hits(sizes, strides, offset)
    root = ET.fromstring(m.svg())
    assert root.tag == SVG + "svg"
    rects = root.findall(f".//{SVG}rect")
    assert len(rects) == len(m.drawn_cells)
    assert [int(r.get("data-cell")) for r in rects] == m.drawn_cells
    hit_rects = {int(r.get("data-cell")) for r in rects if "reached" in r.get("class").split()}
    assert hit_rects == {c for c in hits if c in m.drawn_cells}
    labels = {}
    for t in root.findall(f".//{SVG}text"):
        if t.get("class") == "label":
            labels.setdefault(int(t.get("data-cell")), []).append(t.text)
    assert labels == {c: [fmt(i) for i in v[:3]] for c, v in hits.items() if c in m.drawn_cells}
    caption = " ".join(t.text for t in root.findall(f".//{SVG}text")
                       if "caption" in t.get("class"))
    assert f"sizes {tuple(sizes)}" in caption and f"strides {tuple(strides)}" in caption
    assert f"storage_offset {offset}" in caption
    steps = {int(p.get("data-dim")) for p in root.findall(f"{SVG}path")
             if p.get("class") == "step"}
    if all(n for n in sizes):
        assert steps == {d for d, n in enumerate(sizes) if n > 1}
    return root


# (recipe run with m = strided and m = torch, expected sizes, strides, offset)
SEED_VIEWS = {
    "diagonal_-1": (lambda m: m.rand(2, 4, 4).diagonal(-1, 1, 2), (2, 3), (16, 5), 4),
    "diagonal_0": (lambda m: m.rand(2, 4, 4).diagonal(0, 1, 2), (2, 4), (16, 5), 0),
    "diagonal_1": (lambda m: m.rand(2, 4, 4).diagonal(1, 1, 2), (2, 3), (16, 5), 1),
    "diagonal_0_0_1": (lambda m: m.rand(2, 4, 4).diagonal(0, 0, 1), (4, 2), (1, 20), 0),
    "expand": (lambda m: m.rand(2, 1, 4).expand(2, 4, 4), (2, 4, 4), (4, 0, 1), 0),
    "expand_new_dims": (lambda m: m.rand(3, 1, 4).expand(2, 3, 2, 4), (2, 3, 2, 4),
                        (0, 4, 0, 1), 0),
    "narrow": (lambda m: m.rand(2, 4, 4).narrow(1, 1, 2), (2, 2, 4), (16, 4, 1), 4),
    "permute": (lambda m: m.rand(2, 3, 4).permute(2, 0, 1), (4, 2, 3), (1, 12, 4), 0),
    "unfold": (lambda m: m.rand(2, 3, 4).unfold(1, 2, 1), (2, 2, 4, 2), (12, 4, 1, 4), 0),
    "transpose": (lambda m: m.arange(4).reshape(2, 2).transpose(0, 1), (2, 2), (1, 2), 0),
}


@pytest.mark.parametrize("name", list(SEED_VIEWS))
def test_seed_views(name):
    recipe, sizes, strides, offset = SEED_VIEWS[name]
    t, ref = recipe(strided), recipe(torch)
    assert (tuple(t.shape), t.stride(), t.storage_offset()) == (sizes, strides, offset)
    assert (tuple(ref.shape), ref.stride(), ref.storage_offset()) == (sizes, strides, offset)
    m = viz.storage_map(t)
    assert (m.sizes, m.strides, m.offset) == (sizes, strides, offset)
    assert m.storage_cells == t.untyped_storage().nbytes() // t.element_size()
    labels, gaps = check_text(m, sizes, strides, offset)
    assert not gaps and sorted(labels) == list(range(m.storage_cells))  # small: all drawn
    check_svg(m, sizes, strides, offset)
    text = m.text()
    for d, (n, s) in enumerate(zip(sizes, strides)):
        assert f"dim {d}: size {n}, stride {s} -> +{s} cells" in text
    assert f"storage_offset {offset}" in text and f"dtype {t.dtype.name}" in text
    assert f"storage: {m.storage_cells} cells of {t.dtype.name}" in text


def test_diagonal_worked_example_cells_and_values():
    base = strided.arange(32.0).reshape(2, 4, 4)
    t = base.diagonal(-1, 1, 2)
    m = viz.storage_map(t)
    assert m.reached == {4: [(0, 0)], 9: [(0, 1)], 14: [(0, 2)],
                         20: [(1, 0)], 25: [(1, 1)], 30: [(1, 2)]}
    # values come from the storage: cell c of arange holds c
    assert all(m.values[c] == f"{c:.1f}" for c in range(32))
    # torch's as_strided over the same flat storage reaches the same elements
    flat = torch.arange(32.0)
    ref = torch.as_strided(flat, m.sizes, m.strides, m.offset)
    assert sorted(int(v) for v in ref.flatten()) == sorted(m.reached)
    assert "dim 1: size 3, stride 5 -> +5 cells  ([0,0] @4 -> [0,1] @9)" in m.text()
    assert str(m) == m.text()


def test_expand_repeated_cells():
    t = strided.tensor([1, 2, 3]).expand(4, 3)
    m = viz.storage_map(t)
    assert m.reached == {c: [(i, c) for i in range(4)] for c in range(3)}
    labels, _, _ = parse_text(m.text())
    assert labels == {0: "[0,0]+3", 1: "[0,1]+3", 2: "[0,2]+3"}
    assert "cell 1 reached 4 times: [0,1] [1,1] [2,1] [3,1]" in m.text()
    assert "stride 0: every index of this dim reuses the same cells" in m.text()
    root = check_svg(m, (4, 3), (0, 1), 0)
    more = [t.text for t in root.iter(SVG + "text") if t.get("class") == "more"]
    assert more == ["+1 more"] * 3
    assert [v for _, v in sorted(m.values.items())] == ["1", "2", "3"]


def test_overlapping_as_strided():
    base = strided.arange(10)
    t = strided.as_strided(base, (4, 3), (2, 1), 1)
    m = viz.storage_map(t)
    check_text(m, (4, 3), (2, 1), 1)
    check_svg(m, (4, 3), (2, 1), 1)
    assert m.reached[3] == [(0, 2), (1, 0)]
    assert m.reached_count == 9


def test_offset_and_non_contiguous_other_dtypes():
    for dtype in (strided.int8, strided.float64, strided.bool, strided.complex64,
                  strided.bfloat16):
        t = strided.zeros(6, 5, dtype=dtype)[1:, ::2].t()
        m = viz.storage_map(t)
        assert m.storage_cells == 30
        assert f"dtype {dtype.name}" in m.text()
        check_text(m, tuple(t.shape), t.stride(), t.storage_offset())
        check_svg(m, tuple(t.shape), t.stride(), t.storage_offset())


def test_zero_dim():
    t = strided.arange(5.0)[3]
    m = viz.storage_map(t)
    assert (m.sizes, m.strides, m.offset) == ((), (), 3)
    assert m.reached == {3: [()]}
    labels, _, _ = parse_text(m.text())
    assert labels[3] == "[]" and sum(1 for v in labels.values() if v) == 1
    assert "0-dim" in m.text()
    root = ET.fromstring(m.svg())
    assert [t.text for t in root.iter(SVG + "text") if t.get("class") == "label"] == ["[]"]


def test_empty():
    m = viz.storage_map(strided.empty(0, 3))
    assert m.reached == {} and m.segments == [] and m.numel == 0
    assert "the view is empty" in m.text() and "no cells" in m.text()
    root = ET.fromstring(m.svg())
    assert root.findall(f".//{SVG}rect") == []
    # an empty view over a non-empty storage draws the storage, reaching nothing
    m = viz.storage_map(strided.arange(6.0)[2:2])
    labels, _, marks = parse_text(m.text())
    assert sorted(labels) == list(range(6)) and not any(labels.values())
    assert set(marks.values()) == {"-"}
    check_svg(m, (0,), (1,), 2)


def test_meta_geometry_only():
    t = strided.empty(3, 4, device="meta").t()
    m = viz.storage_map(t)
    assert m.values == {} and "value |" not in m.text()
    assert "meta tensor: geometry only" in m.text() and "device meta" in m.text()
    check_text(m, (4, 3), (1, 4), 0)
    check_svg(m, (4, 3), (1, 4), 0)


def test_huge_storage_window():
    base = strided.zeros(1000, 1000)
    t = base[500, 10:14]  # offset 500010, 4 cells, storage of 10**6 cells
    m = viz.storage_map(t)
    assert m.storage_cells == 10**6
    labels, gaps, _ = parse_text(m.text())
    assert {c for c, v in labels.items() if v} == set(range(500010, 500014))
    # window: first cell, the reached run with one cell of context, last cell
    assert sorted(labels) == [0, *range(500009, 500015), 999999]
    assert gaps == ["1..500008", "500015..999998"]
    assert m.segments[1] == ("gap", 1, 500009, 0)
    assert "window: 8 of 1000000 cells drawn; elided: 1..500008, 500015..999998" in m.text()
    check_text(m, (4,), (1,), 500010)
    root = check_svg(m, (4,), (1,), 500010)
    assert len([t for t in root.iter(SVG + "text") if t.get("class") == "gap"]) == 2
    assert len(m.text().splitlines()) < 40


def test_huge_view_is_capped():
    t = strided.zeros(512, 512)[:, 7]  # 512 reached cells, 7 + 512*k
    m = viz.storage_map(t, max_cells=40)
    assert len(m.drawn_cells) == 40
    last = m.segments[-1]
    assert last[0] == "gap" and last[2] == 512 * 512
    hits = expected_hits((512,), (512,), 7)
    assert last[3] == sum(1 for c in hits if c >= last[1])  # hidden reached cells counted
    check_text(m, (512,), (512,), 7)
    check_svg(m, (512,), (512,), 7)
    assert f"({last[3]} reached)" in m.text()
    # enumeration cap: only the first elements are enumerated, and the map says so
    m = viz.storage_map(strided.zeros(100, 100), max_elements=50)
    assert m.enumerated == 50 and "first 50 elements enumerated" in m.text()


def test_stride_zero_everywhere():
    t = strided.tensor(7.0).expand(2, 3)
    m = viz.storage_map(t)
    assert m.reached == {0: [(i, j) for i in range(2) for j in range(3)]}
    check_text(m, (2, 3), (0, 0), 0)
    check_svg(m, (2, 3), (0, 0), 0)


def test_deterministic_and_wrapping():
    t = strided.arange(60.0).reshape(3, 20)[:, 1::3]
    a, b = viz.storage_map(t), viz.storage_map(t)
    assert a.svg() == b.svg() and a.text() == b.text()
    assert all(len(line) <= 60 for line in a.text(width=60).splitlines()[6:])
    check_text(a, (3, 7), (20, 3), 1)


def test_save_svg_and_txt(tmp_path):
    m = viz.storage_map(strided.rand(2, 4, 4).narrow(1, 1, 2))
    p = m.save(tmp_path / "map.svg")
    assert open(p, encoding="utf-8").read() == m.svg()
    ET.parse(p)
    m.save(tmp_path / "map.txt")
    assert (tmp_path / "map.txt").read_text(encoding="utf-8") == m.text() + "\n"
    with pytest.raises(ValueError, match="unsupported file type"):
        m.save(tmp_path / "map.gif")


def test_save_png(tmp_path):
    m = viz.storage_map(strided.rand(2, 4, 4).diagonal(-1, 1, 2))
    have = any(importlib.util.find_spec(n) is not None for n in ("PIL", "matplotlib"))
    path = tmp_path / "map.png"
    if have:
        m.save(path)
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    else:
        with pytest.raises(ImportError, match=r"strided\[viz\]"):
            m.save(path)
        assert not path.exists()


def test_rejects_non_tensors():
    for bad in (torch.zeros(2), [1, 2], 3.0, None):
        with pytest.raises(TypeError, match="expected a Tensor"):
            viz.storage_map(bad)


def test_exported():
    assert strided.viz is viz and strided.viz.storage_map is viz.storage_map
