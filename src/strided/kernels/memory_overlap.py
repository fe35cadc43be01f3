"""Memory-overlap checks for writes (torch's MemoryOverlap rules).

A write into a tensor in which two elements share one address (an expanded
tensor) is refused, and so is a write whose input partially overlaps the output:
the result would depend on the order of the loop.
"""

from __future__ import annotations

from ..core.checks import check

NO, YES, TOO_HARD, FULL, PARTIAL = "no", "yes", "too_hard", "full", "partial"


def is_non_overlapping_and_dense(sizes, strides) -> bool:
    """Whether the elements tile a contiguous range exactly once, in some dim order.

    torch's rule: an empty tensor qualifies whatever its strides; dims of size 1 are
    ignored; the others, taken by increasing stride, must have the row-major strides
    of some permutation."""
    if len(sizes) == 1:
        return sizes[0] < 2 or strides[0] == 1
    if 0 in sizes:
        return True
    dims = sorted((d for d in range(len(sizes)) if sizes[d] > 1), key=lambda d: strides[d])
    expected = 1
    for d in dims:
        if strides[d] != expected:
            return False
        expected *= sizes[d]
    return True


def has_internal_overlap(t) -> str:
    sizes, strides = t._sizes, t._strides
    if is_non_overlapping_and_dense(sizes, strides):
        return NO
    for size, stride in zip(sizes, strides):
        if size > 1 and stride == 0:
            return YES
    return TOO_HARD


def assert_no_internal_overlap(t) -> None:
    check(has_internal_overlap(t) != YES, lambda: (
        "unsupported operation: more than one element of the written-to tensor refers to a "
        "single memory location. Please clone() the tensor before performing the operation."))


def _byte_range(t):
    itemsize = t._dtype.itemsize
    start = t._storage._ptr + t._offset * itemsize
    extent = 1
    for size, stride in zip(t._sizes, t._strides):
        if size == 0:
            return start, start
        extent += (size - 1) * stride
    return start, start + extent * itemsize


def get_overlap_status(a, b) -> str:
    if a is b:
        return FULL
    if a._storage is not b._storage or a.numel() == 0 or b.numel() == 0:
        return NO
    if not (is_non_overlapping_and_dense(a._sizes, a._strides)
            and is_non_overlapping_and_dense(b._sizes, b._strides)):
        return TOO_HARD
    a0, a1 = _byte_range(a)
    b0, b1 = _byte_range(b)
    if a0 == b0 and a1 == b1 and a._strides == b._strides:
        return FULL
    if a0 < b1 and b0 < a1:
        return PARTIAL
    return NO


def assert_no_partial_overlap(a, b) -> None:
    check(get_overlap_status(a, b) != PARTIAL, lambda: (
        "unsupported operation: some elements of the input tensor and the written-to tensor "
        "refer to a single memory location. Please clone() the tensor before performing the "
        "operation."))
