"""``python -m strided``: walk the seeds' canonical example and show each view's layout.

For every result it prints the values, then sizes, strides, storage offset and
whether it shares storage with the original tensor: the three numbers that make
a view, and the proof that no data moved.
"""

from __future__ import annotations

import sys

import strided as torch


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


def main(argv=None) -> int:
    print("\n\n".join(canonical_example()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
