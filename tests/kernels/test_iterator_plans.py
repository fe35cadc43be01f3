"""Note [Set-up plans] (kernels/tensor_iterator.py): a call whose signature was seen before
replays the recorded set-up. Each recipe runs its op several times (the first call records,
the later ones replay) and compares every result with torch: values, dtype, shape, strides,
errors and warnings."""

import pytest
from conftest import check


def _x(L, *shape, dtype=None):
    n = 1
    for s in shape:
        n *= s
    t = L.arange(n, dtype=L.float64).reshape(shape).sin()
    return t if dtype is None else t.to(dtype)


def _twice(fn):
    return lambda L: [fn(L) for _ in range(3)]


CASES = {
    "transposed + contiguous": lambda L: _x(L, 3, 4).t() + _x(L, 4, 3),
    "broadcast row": lambda L: _x(L, 5, 6) * _x(L, 6),
    "broadcast column": lambda L: _x(L, 5, 6) - _x(L, 5, 1),
    "outer broadcast": lambda L: _x(L, 5, 1) + _x(L, 1, 6),
    "channels_last + scalar": lambda L: _x(L, 2, 3, 4, 5).contiguous(
        memory_format=L.channels_last) + 1,
    "channels_last + contiguous": lambda L: _x(L, 2, 3, 4, 5).contiguous(
        memory_format=L.channels_last) * _x(L, 2, 3, 4, 5),
    "permuted 3d": lambda L: _x(L, 2, 3, 4).permute(2, 0, 1).neg(),
    "strided slice": lambda L: _x(L, 6, 8)[::2, 1::3] / 3,
    "int + float wrapped": lambda L: _x(L, 3, 4, dtype=L.int32).t() + 2.5,
    "int + int wrapped": lambda L: _x(L, 3, 4, dtype=L.int64)[:, ::2] * 3,
    "bool + bool": lambda L: (_x(L, 3, 4) > 0).t() & (_x(L, 4, 3) < 0.5),
    "comparison broadcast": lambda L: _x(L, 3, 4) < _x(L, 4),
    "mixed dtypes": lambda L: _x(L, 3, 4, dtype=L.float32).t() + _x(L, 4, 3, dtype=L.int16),
    "zero-dim tensor": lambda L: _x(L, 3, 4).t() * L.tensor(2, dtype=L.int64),
    "true divide ints": lambda L: _x(L, 3, 4, dtype=L.int32).t() / _x(L, 4, dtype=L.int32),
    "empty broadcast": lambda L: _x(L, 0, 4) + _x(L, 4),
    "complex": lambda L: _x(L, 3, 4, dtype=L.complex64).t() * _x(L, 4, 3, dtype=L.complex128),
    "conj view": lambda L: _x(L, 3, 4, dtype=L.complex64).conj().t() + 1j,
    "where": lambda L: L.where(_x(L, 3, 4) > 0, _x(L, 4), _x(L, 3, 1)),
    "meta broadcast": lambda L: L.empty(3, 4, device="meta").t() + L.empty(4, 3,
                                                                            device="meta"),
    "broadcast error": lambda L: _x(L, 3, 4) + _x(L, 5),
    "dtype error": lambda L: _x(L, 3, 4).t().bitwise_and(_x(L, 4, 3)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_replayed_set_up_matches_torch(name):
    check(_twice(CASES[name]))


def _inplace_broadcast(L):
    a = _x(L, 4, 5).t()
    outs = []
    for _ in range(3):
        a.add_(_x(L, 4))
        outs.append(a.clone())
    return outs + [a]


def _out_resized(L):
    outs = []
    for _ in range(3):   # resized (and warned about) every time
        o = L.empty(7)
        L.add(_x(L, 3, 4).t(), 1, out=o)
        outs.append(o)
    return outs


def _out_same_shape(L):
    o = L.empty(4, 3)
    res = []
    for _ in range(3):
        L.mul(_x(L, 3, 4).t(), _x(L, 3), out=o)
        res.append(o.clone())
    return res + [o]


def _out_cast_error(L):
    o = L.empty(4, 3, dtype=L.int64)
    return L.mul(_x(L, 3, 4).t(), 1.5, out=o)


def _partial_overlap(L):
    y, z = _x(L, 5, 4), _x(L, 5, 4)
    y[:4].t().add_(z[1:].t())      # records the plan of this signature
    x = _x(L, 5, 4)
    return x[:4].t().add_(x[1:].t())   # same signature, overlapping: still refused


def _internal_overlap(L):
    return _x(L, 4).expand(3, 4).t().add_(1)


def _inplace_broadcast_error(L):
    return _x(L, 4).add_(_x(L, 3, 4).t())


@pytest.mark.parametrize("recipe", [_inplace_broadcast, _out_resized, _out_same_shape,
                                    _out_cast_error, _partial_overlap, _internal_overlap,
                                    _inplace_broadcast_error])
def test_replayed_outputs_passed_in(recipe):
    check(recipe)
    check(recipe)      # the second run replays what the first recorded


def test_default_dtype_is_part_of_the_signature(default_dtype):
    def recipe(L):
        return _x(L, 3, 4, dtype=L.int32).t() + 2.5
    check(recipe)
    default_dtype("float64")
    check(recipe)


def test_version_counter_and_aliasing_of_replayed_in_place():
    import strided
    a = strided.zeros(4, 5).t()
    for k in range(1, 4):
        before = a._version
        r = a.add_(strided.ones(4))
        assert r is a and a._version == before + 1
        assert a.stride() == (1, 5) and float(a.sum()) == 20.0 * k
