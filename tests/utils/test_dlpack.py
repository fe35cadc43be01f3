"""DLPack interop, with torch and NumPy as the oracles: zero-copy round trips for every
dtype and layout, lifetimes (who frees what, and exactly once), and the refusals."""

import ctypes
import gc
import weakref

import numpy as np
import pytest
import torch
import torch.utils.dlpack

import strided
from strided.core import dtypes as dt
from strided.utils import dlpack as D

DTYPES = list(dt.ALL_DTYPES)
# NumPy's DLPack knows kDLInt, kDLUInt, kDLFloat, kDLComplex and kDLBool only: it can neither
# export an ml_dtypes bfloat16 array nor import a kDLBfloat tensor, so bfloat16 sits out the
# NumPy round trips (test_numpy_refuses_bfloat16_cleanly pins that refusal down).
NUMPY_DTYPES = [d for d in DTYPES if d is not dt.bfloat16 and d is not dt.complex32]

# (sizes, strides, storage offset) over a 32-element base; distinct values per element make
# any misplaced offset or stride show up in the values.
VIEWS = {
    "contiguous": ((4, 6), (6, 1), 0),
    "transposed": ((6, 4), (1, 6), 0),
    "offset_strided": ((3, 4), (8, 2), 5),
    "size1_odd_stride": ((2, 1, 3), (3, 7, 1), 2),
    "expanded": ((3, 4), (0, 1), 2),
    "scalar": ((), (), 7),
    "empty": ((0, 3), (3, 1), 0),
}
N = 32


def _id(d):
    return d.name


def torch_dtype(d):
    return getattr(torch, d.name)


def values(d, n=N):
    if d is dt.bool_:
        return [i % 3 == 0 for i in range(n)]
    if d.is_complex:
        return [complex(i, -i) for i in range(n)]
    if d.is_floating_point:
        return [i * 0.5 for i in range(n)]
    return list(range(n))


def view_of(base, name):
    sizes, strides, offset = VIEWS[name]
    return base.as_strided(sizes, strides, offset)


def numpy_view(base, name):
    sizes, strides, offset = VIEWS[name]
    item = base.itemsize
    return np.lib.stride_tricks.as_strided(base[offset:], sizes, [s * item for s in strides])


def numel(sizes):
    n = 1
    for s in sizes:
        n *= s
    return n


def live_exports():
    return len(D._exports)  # keepers die by reference counting: no gc needed


@pytest.fixture(autouse=True)
def _no_leaked_exports():
    before = live_exports()
    yield
    assert live_exports() == before


# -- strided -> torch ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(VIEWS))
@pytest.mark.parametrize("d", DTYPES, ids=_id)
def test_strided_to_torch(d, name):
    base = strided.tensor(values(d), dtype=d)
    tbase = torch.tensor(values(d), dtype=torch_dtype(d))
    view, expected = view_of(base, name), view_of(tbase, name)
    out = torch.from_dlpack(view)
    assert out.dtype == expected.dtype
    assert out.shape == expected.shape
    assert out.stride() == expected.stride()
    assert out.tolist() == expected.tolist()
    if out.numel():
        assert out.data_ptr() == view.data_ptr()
    # Writes cross in both directions (through the base where the view overlaps itself).
    (view if name != "expanded" else base).fill_(7)
    (expected if name != "expanded" else tbase).fill_(7)
    assert out.tolist() == expected.tolist()
    assert base.tolist() == tbase.tolist()
    (out if name != "expanded" else torch.from_dlpack(base)).fill_(3)
    (expected if name != "expanded" else tbase).fill_(3)
    assert view.tolist() == expected.tolist()
    assert base.tolist() == tbase.tolist()


@pytest.mark.parametrize("d", DTYPES, ids=_id)
def test_strided_to_torch_transpose_method(d):
    base = strided.tensor(values(d, 6), dtype=d).as_strided((2, 3), (3, 1), 0)
    out = torch.from_dlpack(base.t())
    expected = torch.tensor(values(d, 6), dtype=torch_dtype(d)).reshape(2, 3).t()
    assert out.stride() == (1, 3) and out.tolist() == expected.tolist()
    assert out.data_ptr() == base.data_ptr()


@pytest.mark.parametrize("d", DTYPES, ids=_id)
def test_metadata_matches_torchs_own_export(d):
    """The struct we hand out equals the one torch makes for the same tensor, field by field
    (dtype code/bits/lanes for every dtype, shape, strides, device, data pointer)."""
    base = strided.tensor(values(d), dtype=d)
    tbase = torch.tensor(values(d), dtype=torch_dtype(d))
    view, tview = view_of(base, "offset_strided"), view_of(tbase, "offset_strided")
    for max_version, name, struct in ((None, b"dltensor", D.DLManagedTensor),
                                      ((1, 0), b"dltensor_versioned",
                                       D.DLManagedTensorVersioned)):
        ours, theirs = view.__dlpack__(max_version=max_version), tview.__dlpack__(
            max_version=max_version)
        assert f'"{name.decode()}"' in repr(ours)
        a = struct.from_address(D._PyCapsule_GetPointer(id(ours), name))
        b = struct.from_address(D._PyCapsule_GetPointer(id(theirs), name))
        da, db = a.dl_tensor, b.dl_tensor
        assert (da.dtype.code, da.dtype.bits, da.dtype.lanes) == (
            db.dtype.code, db.dtype.bits, db.dtype.lanes)
        assert (da.device.device_type, da.device.device_id) == (1, 0)
        assert (db.device.device_type, db.device.device_id) == (1, 0)
        assert da.ndim == db.ndim == 2
        assert da.shape[:2] == db.shape[:2] and da.strides[:2] == db.strides[:2]
        assert da.data + da.byte_offset == view.data_ptr()
        assert db.data + db.byte_offset == tview.data_ptr()
        if max_version:
            assert a.version.major == b.version.major == 1
            assert a.flags == b.flags == 0
        del ours, theirs  # unconsumed: both capsule destructors release their exports


# -- torch -> strided ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(VIEWS))
@pytest.mark.parametrize("d", DTYPES, ids=_id)
def test_torch_to_strided(d, name):
    tbase = torch.tensor(values(d), dtype=torch_dtype(d))
    tview = view_of(tbase, name)
    x = strided.from_dlpack(tview)
    assert x.dtype is d
    assert tuple(x.shape) == tuple(tview.shape)
    assert x.stride() == tview.stride()
    assert x.tolist() == tview.tolist()
    if tview.numel():
        assert x.data_ptr() == tview.data_ptr()
    ref = tbase.clone()  # the same writes, done by torch alone
    (x if name != "expanded" else strided.from_dlpack(tbase)).fill_(7)
    (view_of(ref, name) if name != "expanded" else ref).fill_(7)
    assert tbase.tolist() == ref.tolist()
    assert x.tolist() == view_of(ref, name).tolist()
    (tview if name != "expanded" else tbase).fill_(3)
    (view_of(ref, name) if name != "expanded" else ref).fill_(3)
    assert x.tolist() == view_of(ref, name).tolist()


def test_torch_legacy_and_versioned_capsules():
    t = torch.arange(6.0).reshape(2, 3)
    legacy = torch.utils.dlpack.to_dlpack(t)
    versioned = t.__dlpack__(max_version=(1, 0))
    assert '"dltensor"' in repr(legacy) and '"dltensor_versioned"' in repr(versioned)
    a, b = strided.from_dlpack(legacy), strided.from_dlpack(versioned)
    assert '"used_dltensor"' in repr(legacy)
    assert '"used_dltensor_versioned"' in repr(versioned)
    assert a.tolist() == b.tolist() == t.tolist()
    assert a.data_ptr() == b.data_ptr() == t.data_ptr()


def test_strided_legacy_capsule_into_torch():
    x = strided.tensor([[1.0, 2.0], [3.0, 4.0]])
    cap = D.to_dlpack(x)
    assert '"dltensor"' in repr(cap)
    out = torch.utils.dlpack.from_dlpack(cap)
    assert '"used_dltensor"' in repr(cap)
    assert out.tolist() == x.tolist() and out.data_ptr() == x.data_ptr()


def test_dlpack_device_matches_torch():
    assert strided.zeros(2).__dlpack_device__() == torch.zeros(2).__dlpack_device__() == (1, 0)


# -- NumPy ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(VIEWS))
@pytest.mark.parametrize("d", NUMPY_DTYPES, ids=_id)
def test_strided_to_numpy(d, name):
    base = strided.tensor(values(d), dtype=d)
    view = view_of(base, name)
    expected = numpy_view(np.array(values(d), dtype=d.np), name)
    arr = np.from_dlpack(view)
    assert arr.dtype == d.np
    assert arr.shape == expected.shape and arr.strides == expected.strides
    assert arr.tolist() == expected.tolist()
    if arr.size:
        assert arr.ctypes.data == view.data_ptr()
    target = arr if name != "expanded" else np.from_dlpack(base)
    target[...] = 7
    assert view.tolist() == arr.tolist()
    (view if name != "expanded" else base).fill_(3)
    assert arr.tolist() == view.tolist()


@pytest.mark.parametrize("name", list(VIEWS))
@pytest.mark.parametrize("d", NUMPY_DTYPES, ids=_id)
def test_numpy_to_strided(d, name):
    nbase = np.array(values(d), dtype=d.np)
    nview = numpy_view(nbase, name)
    x = strided.from_dlpack(nview)
    assert x.dtype is d
    assert tuple(x.shape) == nview.shape
    assert x.stride() == tuple(s // nview.itemsize for s in nview.strides)
    assert x.tolist() == nview.tolist()
    if nview.size:
        assert x.data_ptr() == nview.ctypes.data
    (x if name != "expanded" else strided.from_dlpack(nbase)).fill_(7)
    assert x.tolist() == nview.tolist()
    (nview if name != "expanded" else nbase)[...] = 3
    assert x.tolist() == nview.tolist()


def test_numpy_refuses_bfloat16_cleanly():
    """NumPy has no kDLBfloat (why bfloat16 is not in NUMPY_DTYPES). Its refusal must reach the
    caller as NumPy's own error, and the refused capsule must still release the tensor."""
    x = strided.tensor([1.5, 2.5], dtype=strided.bfloat16)
    alive = weakref.ref(x)
    with pytest.raises((RuntimeError, BufferError), match="Unsupported dtype"):
        np.from_dlpack(x)
    del x
    gc.collect()
    assert alive() is None


def test_numpy_readonly_array_imports_read_only():
    arr = np.arange(4.0)
    arr.flags.writeable = False
    x = strided.from_dlpack(arr)  # versioned capsule with the READ_ONLY flag
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0] and x.data_ptr() == arr.ctypes.data
    with pytest.raises(ValueError, match="read-only"):
        x.fill_(9)
    assert arr.tolist() == [0.0, 1.0, 2.0, 3.0]
    # ...and stays read-only on the way out: a legacy capsule cannot say so, so NumPy refuses.
    with pytest.raises(BufferError, match="readonly"):
        x.__dlpack__()
    assert not np.from_dlpack(x).flags.writeable


def test_numpy_negative_strides_refused():
    arr = np.arange(5.0)[::-1]
    with pytest.raises(BufferError, match="negative strides"):
        strided.from_dlpack(arr)


# -- strided -> strided, 0-d, empty -------------------------------------------------------------


def test_strided_round_trip_shares_memory():
    x = strided.tensor(values(dt.int32), dtype=dt.int32).as_strided((3, 4), (8, 2), 5)
    y = strided.from_dlpack(x)
    assert y.stride() == x.stride() and tuple(y.shape) == tuple(x.shape)
    assert y.data_ptr() == x.data_ptr() and y.tolist() == x.tolist()
    y.fill_(-1)
    assert x.tolist() == [[-1] * 4] * 3


def test_zero_dim_and_empty():
    assert torch.from_dlpack(strided.tensor(3.5)).tolist() == 3.5
    assert strided.from_dlpack(torch.tensor(7)).tolist() == 7
    assert strided.from_dlpack(np.array(2.5, np.float32)).tolist() == 2.5
    e = strided.from_dlpack(torch.zeros(0, 2))
    assert tuple(e.shape) == (0, 2) and e.tolist() == []
    assert torch.from_dlpack(e).shape == (0, 2)
    assert np.from_dlpack(e).shape == (0, 2)
    assert torch.from_dlpack(strided.zeros(2, 0, 3)).shape == (2, 0, 3)


# -- lifetimes -----------------------------------------------------------------------------------


def test_torch_producer_deleted_consumer_keeps_data():
    t = torch.arange(1000, dtype=torch.float64)
    x = strided.from_dlpack(t)
    del t
    gc.collect()
    junk = [torch.full((1000,), -1.0, dtype=torch.float64) for _ in range(20)]  # reuse bait
    assert x.tolist() == [float(i) for i in range(1000)]
    del junk


def test_numpy_producer_released_when_last_strided_view_dies():
    arr = np.arange(10.0)
    alive = weakref.ref(arr)
    x = strided.from_dlpack(arr)
    v = x.as_strided((2,), (1,), 3)
    del arr
    gc.collect()
    assert alive() is not None and x.tolist()[9] == 9.0
    del x
    gc.collect()
    assert alive() is not None and v.tolist() == [3.0, 4.0]  # the view holds the storage
    del v
    gc.collect()
    assert alive() is None


def test_strided_producer_freed_when_torch_consumer_dies():
    stats = strided.memory_stats
    before = stats()["allocation.current"]
    x = strided.zeros(1000, dtype=strided.float64)
    assert stats()["allocation.current"] == before + 1
    alive = weakref.ref(x)
    out = torch.from_dlpack(x)
    del x
    gc.collect()
    assert alive() is not None  # the consumer's reference keeps the tensor
    assert stats()["allocation.current"] == before + 1
    junk = [strided.full((1000,), -1.0, dtype=strided.float64) for _ in range(5)]
    del junk
    out.add_(2)
    assert out.tolist() == [2.0] * 1000
    del out
    gc.collect()
    assert alive() is None
    assert stats()["allocation.current"] == before


def test_unconsumed_capsule_releases_tensor():
    for max_version in (None, (1, 0)):
        x = strided.ones(4)
        alive = weakref.ref(x)
        cap = x.__dlpack__(max_version=max_version)
        del x
        gc.collect()
        assert alive() is not None and live_exports() >= 1
        del cap
        gc.collect()
        assert alive() is None


def test_strided_to_strided_lifetime():
    x = strided.tensor([1, 2, 3])
    alive = weakref.ref(x)
    y = strided.from_dlpack(x)
    del x
    gc.collect()
    assert alive() is not None and y.tolist() == [1, 2, 3]
    del y
    gc.collect()
    assert alive() is None


# -- a hand-made producer, for what no library will produce on request ---------------------------

_CALLBACK_T = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class HandMadeProducer:
    """Builds a DLPack struct over a NumPy array with the module's ctypes structs. Its deleter
    and its capsule destructor (which calls the deleter while the capsule is unconsumed, as the
    protocol asks) count calls."""

    def __init__(self, array, *, versioned=False, version=(1, 0), device=(1, 0), dtype=None,
                 shape=None, strides="default", byte_offset=0, flags=0, data=None):
        self.array = array
        self.deleted = 0
        self.versioned = versioned
        self.name = D._NAME_VERSIONED if versioned else D._NAME
        shape = array.shape if shape is None else shape
        ndim = len(shape)
        self.shape = (ctypes.c_int64 * max(ndim, 1))(*shape)
        if strides == "default":
            strides = [s // array.itemsize for s in array.strides]
        self.strides = None if strides is None else (ctypes.c_int64 * max(ndim, 1))(*strides)
        m = D.DLManagedTensorVersioned() if versioned else D.DLManagedTensor()
        if versioned:
            m.version.major, m.version.minor = version
            m.flags = flags
        dl = m.dl_tensor
        dl.data = array.ctypes.data if data is None else data
        dl.device = D.DLDevice(*device)
        dl.ndim = ndim
        code, bits, lanes = dtype or (D._DL_CODE[dt.from_numpy_dtype(array.dtype)],
                                      array.itemsize * 8, 1)
        dl.dtype = D.DLDataType(code, bits, lanes)
        dl.shape = ctypes.cast(self.shape, ctypes.POINTER(ctypes.c_int64))
        if self.strides is not None:
            dl.strides = ctypes.cast(self.strides, ctypes.POINTER(ctypes.c_int64))
        dl.byte_offset = byte_offset
        self._deleter = _CALLBACK_T(self._delete)
        self._destructor = _CALLBACK_T(self._destroy)
        m.deleter = ctypes.cast(self._deleter, ctypes.c_void_p).value
        self.managed = m

    def _delete(self, managed):
        assert managed == ctypes.addressof(self.managed)
        self.deleted += 1

    def _destroy(self, capsule):
        if D._PyCapsule_IsValid(capsule, self.name):
            self._delete(ctypes.addressof(self.managed))

    def capsule(self):
        return D._PyCapsule_New(ctypes.addressof(self.managed), self.name,
                                ctypes.cast(self._destructor, ctypes.c_void_p).value)

    def __dlpack__(self, **kwargs):
        return self.capsule()

    def __dlpack_device__(self):
        return (self.managed.dl_tensor.device.device_type, self.managed.dl_tensor.device.device_id)


@pytest.mark.parametrize("versioned", [False, True])
def test_foreign_deleter_runs_exactly_once(versioned):
    p = HandMadeProducer(np.arange(6.0).reshape(2, 3), versioned=versioned)
    cap = p.capsule()
    x = strided.from_dlpack(cap)
    v = x.as_strided((3,), (1,), 2)
    del cap  # consumed: its destructor must leave the deleter alone
    gc.collect()
    assert p.deleted == 0
    del x
    gc.collect()
    assert p.deleted == 0 and v.tolist() == [2.0, 3.0, 4.0]
    del v
    gc.collect()
    assert p.deleted == 1


def test_legacy_null_strides_mean_row_major():
    p = HandMadeProducer(np.arange(12, dtype=np.int16).reshape(3, 4), strides=None)
    x = strided.from_dlpack(p.capsule())
    assert x.stride() == (4, 1) and x.tolist() == np.arange(12).reshape(3, 4).tolist()
    del x
    gc.collect()
    assert p.deleted == 1


def test_byte_offset_honoured():
    arr = np.arange(8.0)
    p = HandMadeProducer(arr, shape=(3,), strides=(2,), byte_offset=16)
    x = strided.from_dlpack(p.capsule())
    assert x.tolist() == [2.0, 4.0, 6.0]
    assert x.storage_offset() == 2 and x.data_ptr() == arr.ctypes.data + 16
    other = HandMadeProducer(arr, shape=(3,), strides=(2,), byte_offset=16)
    assert torch.from_dlpack(other.capsule()).tolist() == x.tolist()  # torch reads it alike


@pytest.mark.parametrize("bad, match, torch_refuses", [
    ({"dtype": (D.kDLFloat, 32, 4)}, "lanes != 1", True),
    ({"dtype": (D.kDLFloat, 8, 1)}, "kDLFloat bits 8", True),
    ({"dtype": (D.kDLUInt, 7, 1)}, "kDLUInt bits 7", True),
    ({"dtype": (D.kDLBool, 16, 1)}, "kDLBool bits 16", True),
    ({"dtype": (D.kDLBfloat, 32, 1)}, "kDLBfloat bits 32", True),
    ({"dtype": (D.kDLOpaqueHandle, 64, 1)}, "dtype code 3", True),
    ({"dtype": (42, 32, 1)}, "dtype code 42", True),
])
def test_unsupported_dtypes_refused_like_torch(bad, match, torch_refuses):
    arr = np.zeros(4, np.float32)
    p = HandMadeProducer(arr, **bad)
    cap = p.capsule()
    with pytest.raises(BufferError, match=match):
        strided.from_dlpack(cap)
    if torch_refuses:
        other = HandMadeProducer(arr, **bad)
        other_cap = other.capsule()  # held, so it does not die while torch's error is in flight
        with pytest.raises(BufferError):  # torch refuses the same struct, with the same type
            torch.from_dlpack(other_cap)
    assert '"dltensor"' in repr(cap)  # not consumed: the producer still owns it...
    del cap
    gc.collect()
    assert p.deleted == 1  # ...and gets it back through the capsule destructor


def test_non_cpu_device_refused():
    p = HandMadeProducer(np.zeros(4, np.float32), device=(D.DLDeviceType.kDLCUDA, 0))
    cap = p.capsule()
    with pytest.raises(BufferError, match="CPU memory"):
        strided.from_dlpack(cap)
    with pytest.raises(BufferError, match="kDLCUDA"):
        strided.from_dlpack(p)  # refused from __dlpack_device__, before any export
    assert '"dltensor"' in repr(cap)
    del cap
    gc.collect()
    assert p.deleted == 1


def test_newer_major_version_refused_unconsumed():
    p = HandMadeProducer(np.zeros(4, np.float32), versioned=True, version=(2, 0))
    cap = p.capsule()
    with pytest.raises(RuntimeError, match="version 2.0"):  # torch: RuntimeError too
        strided.from_dlpack(cap)
    assert '"dltensor_versioned"' in repr(cap)
    del cap
    gc.collect()
    assert p.deleted == 1


# -- refusals on export, and protocol errors -------------------------------------------------------


def test_requires_grad_refused_like_torch():
    x = strided.zeros(2).requires_grad_()
    with pytest.raises(BufferError) as ours:
        x.__dlpack__()
    with pytest.raises(BufferError) as theirs:
        torch.zeros(2, requires_grad=True).__dlpack__()
    assert str(ours.value) == str(theirs.value)
    with pytest.raises(BufferError, match="require gradient"):
        torch.from_dlpack(x)
    assert torch.from_dlpack(x.detach()).tolist() == [0.0, 0.0]


def test_meta_refused_like_torch():
    x, t = strided.empty(2, device="meta"), torch.empty(2, device="meta")
    for f, g, exc in ((x.__dlpack__, t.__dlpack__, BufferError),
                      (x.__dlpack_device__, t.__dlpack_device__, ValueError)):
        with pytest.raises(exc) as ours:
            f()
        with pytest.raises(exc) as theirs:
            g()
        assert str(ours.value) == str(theirs.value)


def test_dl_device_and_stream():
    x = strided.ones(2)
    with pytest.raises(BufferError, match="unsupported device"):
        x.__dlpack__(dl_device=(D.DLDeviceType.kDLCUDA, 0))
    ok = strided.from_dlpack(x.__dlpack__(dl_device=(D.DLDeviceType.kDLCPU, 0)))
    assert ok.data_ptr() == x.data_ptr()
    for stream in (None, -1):
        assert strided.from_dlpack(x.__dlpack__(stream=stream)).tolist() == [1.0, 1.0]
    with pytest.raises(AssertionError):  # torch: "stream should be None on cpu."
        torch.ones(2).__dlpack__(stream=5)
    with pytest.raises(AssertionError, match="stream should be None on cpu"):
        x.__dlpack__(stream=5)
    with pytest.raises(TypeError, match="stream"):
        x.__dlpack__(stream="default")


def test_capsule_consumed_only_once():
    x = strided.arange(3)
    cap = x.__dlpack__()
    first = torch.from_dlpack(cap)
    with pytest.raises(RuntimeError, match="consumed only once"):
        torch.from_dlpack(cap)
    with pytest.raises(RuntimeError, match="consumed only once"):
        strided.from_dlpack(cap)
    tcap = torch.arange(3).__dlpack__()
    mine = strided.from_dlpack(tcap)
    with pytest.raises(RuntimeError, match="consumed only once"):
        strided.from_dlpack(tcap)
    with pytest.raises(RuntimeError, match="consumed only once"):
        torch.from_dlpack(tcap)
    assert first.tolist() == mine.tolist() == [0, 1, 2]


def test_copy_requests():
    t = torch.arange(4.0)
    x = strided.from_dlpack(t, copy=True)
    assert x.data_ptr() != t.data_ptr() and x.tolist() == t.tolist()
    x.fill_(9)
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0]
    assert strided.from_dlpack(t, copy=False).data_ptr() == t.data_ptr()

    y = strided.arange(4.0)
    out = torch.from_dlpack(y, copy=True)
    assert out.data_ptr() != y.data_ptr() and out.tolist() == y.tolist()
    cap = y.__dlpack__(max_version=(1, 0), copy=True)
    m = D.DLManagedTensorVersioned.from_address(
        D._PyCapsule_GetPointer(id(cap), b"dltensor_versioned"))
    assert m.flags & D.DLPACK_FLAG_BITMASK_IS_COPIED
    assert m.dl_tensor.data != y.data_ptr()
    del cap
    arr = np.from_dlpack(y, copy=True)
    assert arr.ctypes.data != y.data_ptr() and arr.tolist() == y.tolist()


def test_from_dlpack_arguments():
    x = strided.ones(2)
    assert strided.from_dlpack(x, device="cpu").data_ptr() == x.data_ptr()
    with pytest.raises(BufferError, match="CPU"):
        strided.from_dlpack(x, device="meta")
    with pytest.raises(TypeError, match="__dlpack__"):
        strided.from_dlpack([1, 2])
    cap = x.__dlpack__()
    with pytest.raises(AssertionError, match="not supported"):  # torch raises the same
        strided.from_dlpack(cap, copy=True)
    with pytest.raises(AssertionError, match="not supported"):
        torch.from_dlpack(torch.ones(2).__dlpack__(), copy=True)


class _LegacyProducer:
    """A producer from before DLPack 1.0: ``__dlpack__`` takes ``stream`` only."""

    def __init__(self, t):
        self.t = t

    def __dlpack__(self, stream=None):
        return self.t.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self.t.__dlpack_device__()


def test_producer_without_new_keywords():
    t = torch.arange(3.0)
    x = strided.from_dlpack(_LegacyProducer(t))
    assert x.data_ptr() == t.data_ptr()
    y = strided.from_dlpack(_LegacyProducer(t), copy=True)  # copied on our side
    assert y.data_ptr() != t.data_ptr() and y.tolist() == [0.0, 1.0, 2.0]
