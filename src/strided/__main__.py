"""``python -m strided``: walk the seeds' canonical example and show each view's layout.

For every result it prints the values, then sizes, strides, storage offset and
whether it shares storage with the original tensor: the three numbers that make
a view, and the proof that no data moved. Then it explains the seeds' own examples
layer by layer (``strided.explain``).

    python -m strided                          # both sections
    python -m strided explain                  # the seeds' examples, explained
    python -m strided explain "t = torch.rand(3, 4); t[0] + 1"   # or a file path
    python -m strided explain --json "..."     # the JSON form
    python -m strided explain --svg DIR        # a storage map (strided.viz) per view
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import strided as torch

# The seeds' own examples (seeds 004, 000, 001), with the seeds' shapes.
SEED_EXAMPLES = [
    ("seed 004: the life of a tensor (with its frees)",
     "res = torch.rand(3, 4)[0] + torch.rand(3, 4)"),
    ("seed 000: basic indexing assignment",
     "t = torch.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]])\nt[1, 2] = 3"),
    ("seed 000: advanced indexing assignment",
     "t = torch.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]])\n"
     "rows = torch.tensor([0, 2])\ncols = torch.tensor([1, 1])\nt[rows, cols] = 10"),
    ("seed 001: view", "t = torch.rand(4, 4)\nb = t.view(2, 8)"),
    ("seed 001: transpose, then contiguous",
     "base = torch.tensor([[0, 1], [2, 3]])\nt = base.transpose(0, 1)\nc = t.contiguous()"),
    ("seed 001: diagonal", "arr = torch.rand(2, 4, 4)\ndiag_out = arr.diagonal(-1, 1, 2)\n"
                           "out2 = diag_out.diagonal(1, 0, 1)"),
    ("seed 001: expand", "arr = torch.rand(2, 1, 4)\nout = arr.expand(-1, 4, -1)"),
    ("seed 001: narrow", "arr = torch.rand(2, 4, 4)\nout = arr.narrow(1, 1, 2)"),
    ("seed 001: permute", "arr = torch.rand(2, 3, 4)\nout = arr.permute(2, 0, 1)"),
    ("seed 001: unfold", "arr = torch.rand(2, 3, 4)\nout = arr.unfold(1, 2, 1)"),
]


def describe(label: str, t, base=None) -> str:
    shares = "-" if base is None else (
        "yes" if t.untyped_storage().data_ptr() == base.untyped_storage().data_ptr() else "no")
    lines = [f"{label}", *("    " + row for row in repr(t).splitlines()),
             f"    sizes={tuple(t.size())} strides={t.stride()} "
             f"storage_offset={t.storage_offset()} contiguous={t.is_contiguous()} "
             f"shares_storage_with_t={shares}"]
    return "\n".join(lines)


def canonical_example() -> list[str]:
    t = torch.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    out = [describe("t = torch.tensor([[1, 2, 3], [4, 5, 6], [7, 8, 9]])", t)]
    out.append(describe("t.view(9)", t.view(9), t))
    out.append(describe("t.view(1, 9)", t.view(1, 9), t))
    tt = t.t()
    out.append(describe("t.t()", tt, t))
    out.append(describe("t.t().contiguous()  # a copy: new storage", tt.contiguous(), t))
    out.append(describe("t.as_strided((2, 2), (3, 1), 1)", t.as_strided((2, 2), (3, 1), 1), t))
    z = torch.zeros(2, 3, dtype=torch.float64)
    out.append(describe("torch.zeros(2, 3, dtype=torch.float64)", z))
    out.append(describe("torch.arange(6).view(2, 3)", torch.arange(6).view(2, 3)))
    m = torch.empty(4, 4, device="meta")
    out.append(describe("torch.empty(4, 4, device='meta')  # shapes only, no data", m))
    stats = torch.memory_stats()
    out.append(f"allocator: {stats['allocation.current']} live blocks, "
               f"{stats['allocated_bytes.current']} bytes in use, "
               f"peak {stats['allocated_bytes.peak']} bytes")
    return out


def explain_examples(examples, *, as_json=False, svg_dir=None) -> int:
    """Explain each (title, code); print the trees (or one JSON document)."""
    documents = []
    status = 0
    for i, (title, code) in enumerate(examples):
        ex = torch.explain(pictures=svg_dir is not None)
        error = None
        namespace = {"torch": torch, "__name__": "__explain__"}   # outlives the recording
        try:
            with ex:
                exec(_compile(code, i), namespace)
        except Exception as e:     # show the path up to the error, then the error
            error = f"{type(e).__name__}: {e}"
            status = 1
        if svg_dir is not None:
            _write_pictures(ex, svg_dir, i)
        if as_json:
            doc = {"title": title, "code": code, **ex.to_dict()}
            if error:
                doc["error"] = error
            documents.append(doc)
            continue
        rule = "=" * 78
        print(f"{rule}\n{title}\n" + "\n".join("    >>> " + line for line in code.splitlines())
              + f"\n{rule}")
        print(ex.render())
        if error:
            print(f"error: {error}")
        print()
    if as_json:
        print(json.dumps(documents if len(documents) != 1 else documents[0], indent=2))
    return status


def _compile(code: str, i: int):
    import linecache
    filename = f"<example-{i + 1}>"
    linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
    return compile(code, filename, "exec")


def _write_pictures(ex, svg_dir: str, i: int) -> None:
    os.makedirs(svg_dir, exist_ok=True)
    for label, svg in ex.pictures:
        path = os.path.join(svg_dir, f"example{i + 1:02d}_{label}.svg")
        with open(path, "w", encoding="utf-8") as f:
            f.write(svg)
        print(f"wrote {path}", file=sys.stderr)
    if ex.pictures_error:
        print(f"storage maps unavailable: {ex.pictures_error}", file=sys.stderr)


def _names_a_file(code: str) -> bool:
    """Whether an argument that is not an existing file was meant as one: a ``.py``
    name, or a path that is not valid code (``missing.py``, ``examples/demo``)."""
    if code.strip().endswith(".py") and "\n" not in code.strip():
        return True
    try:
        compile(code, "<explain>", "exec")
    except SyntaxError:
        return os.sep in code and not any(c.isspace() for c in code.strip())
    return False


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(prog="python -m strided", description=__doc__.split(
        "\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", nargs="?", choices=["explain"],
                        help="explain: show the path each call takes through the layers")
    parser.add_argument("code", nargs="?", help="code to explain, or a file holding it "
                        "(default: the seeds' examples)")
    parser.add_argument("--json", action="store_true", help="print the JSON form")
    parser.add_argument("--svg", metavar="DIR", help="write a storage map per view to DIR")
    ns = parser.parse_args(argv)
    if ns.code is None:
        examples = SEED_EXAMPLES
    elif os.path.isfile(ns.code):
        with open(ns.code, encoding="utf-8") as f:
            examples = [(ns.code, f.read())]
    elif _names_a_file(ns.code):
        print(f"python -m strided explain: {ns.code}: no such file", file=sys.stderr)
        return 2
    else:
        examples = [("explain", ns.code)]
    if ns.command is None and not ns.json:
        print("\n\n".join(canonical_example()))
        print("\n\nThe seeds' examples, layer by layer (python -m strided explain)\n")
    return explain_examples(examples, as_json=ns.json, svg_dir=ns.svg)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
