"""strided.save / strided.load against torch.save / torch.load, both directions, in one test.

Each round trip writes with one library and reads with the other (and with itself), then
compares what comes back: values, dtype, shape, strides, storage offset, requires_grad, and
which tensors share a storage."""

from __future__ import annotations

import io
import pickle
import pickletools
import warnings
import zipfile
from collections import OrderedDict

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import strided
from tests.conftest import DTYPE_NAMES, assert_same

# -- helpers ------------------------------------------------------------------------------------


def pair(name: str, shape=(2, 3)):
    """The same values as a strided and a torch tensor of dtype ``name``."""
    n = int(np.prod(shape))
    base = (np.arange(n) % 7).reshape(shape)
    if name == "bool":
        arr = (base % 2).astype(np.bool_)
    elif name.startswith("uint"):
        arr = base.astype(name)
    elif name in ("bfloat16",):
        arr = (base - 3).astype(np.float32) / 4
    elif name.startswith("complex"):
        arr = ((base - 3) + 1j * (base + 1) / 8).astype(name)
    else:
        arr = (base - 3).astype(name) if name.startswith("int") else \
            ((base - 3) / 4).astype(name)
    s, t = strided.from_numpy(arr.copy()), torch.from_numpy(arr.copy())
    if name == "bfloat16":
        s, t = s.to(strided.bfloat16), t.to(torch.bfloat16)
    return s, t


def via_strided(obj, **save_kw) -> bytes:
    buf = io.BytesIO()
    strided.save(obj, buf, **save_kw)
    return buf.getvalue()


def via_torch(obj, **save_kw) -> bytes:
    buf = io.BytesIO()
    torch.save(obj, buf, **save_kw)
    return buf.getvalue()


def tload(data: bytes, **kw):
    return torch.load(io.BytesIO(data), **kw)


def sload(data: bytes, **kw):
    return strided.load(io.BytesIO(data), **kw)


def same_tree(s, t):
    """``s`` (strided objects) mirrors ``t`` (torch objects), recursively."""
    if isinstance(t, torch.Tensor):
        assert type(s).__name__ == type(t).__name__, (type(s), type(t))
        assert_same(s, t)
    elif isinstance(t, dict):
        assert type(s) is type(t)
        assert list(s) == list(t)
        for k in t:
            same_tree(s[k], t[k])
        assert getattr(s, "_metadata", None) == getattr(t, "_metadata", None)
    elif isinstance(t, (list, tuple)):
        assert type(s).__name__ == type(t).__name__ and len(s) == len(t)
        for a, b in zip(s, t):
            same_tree(a, b)
    elif isinstance(t, torch.dtype):
        assert str(s) == str(t)
    elif isinstance(t, torch.device):
        assert str(s) == str(t)
    else:
        assert s == t and type(s) is type(t), (s, t)


def both_ways(s_obj, t_obj, **save_kw):
    """Saves with each library, loads with both, and checks all four results."""
    from_s, from_t = via_strided(s_obj, **save_kw), via_torch(t_obj, **save_kw)
    wo = not any(isinstance(x, (strided.nn.Module,)) for x in [s_obj])
    kw = {} if wo else {"weights_only": False}
    same_tree(sload(from_t, **kw), tload(from_t, **kw))
    same_tree(sload(from_s, **kw), tload(from_s, **kw))
    same_tree(sload(from_s, **kw), t_obj)
    return from_s, from_t


def shares(a, b) -> bool:
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


# -- tensors of every dtype -----------------------------------------------------------------------

@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_every_dtype_round_trips(name):
    s, t = pair(name)
    both_ways({"x": s, "col": s[:, 1], "scalar": s[1, 2]},
              {"x": t, "col": t[:, 1], "scalar": t[1, 2]})


@pytest.mark.parametrize("name", ["float32", "bfloat16", "complex128", "uint16", "bool"])
def test_views_keep_sharing_offsets_and_strides(name):
    s, t = pair(name, (4, 5))
    sv = [s, s.t(), s[1:, ::2], s[2], s.reshape(-1)[3:7], s.as_strided((2, 2), (1, 5), 4)]
    tv = [t, t.t(), t[1:, ::2], t[2], t.reshape(-1)[3:7], t.as_strided((2, 2), (1, 5), 4)]
    from_s, from_t = both_ways(sv, tv)
    for loaded in (sload(from_s), sload(from_t)):
        assert all(shares(loaded[0], v) for v in loaded[1:])
    loaded = tload(from_s)
    assert all(shares(loaded[0], v) for v in loaded[1:])
    # the whole storage is written once, even for a view of part of it
    names = zipfile.ZipFile(io.BytesIO(from_s)).namelist()
    assert [n for n in names if "/data/" in n] == ["archive/data/0"]


def test_view_of_part_saves_whole_storage():
    s, t = pair("float64", (10,))
    from_s, _ = both_ways(s[3:5], t[3:5])
    loaded = sload(from_s)
    assert loaded.untyped_storage().nbytes() == 80 and loaded.storage_offset() == 3


def test_zero_dim_empty_and_requires_grad():
    s_obj = {"zero_dim": strided.tensor(3.5), "empty": strided.empty(0, 3),
             "grad": strided.ones(2, 2, requires_grad=True),
             "nonleaf": strided.ones(2, requires_grad=True) * 2,
             "int": strided.tensor([1, 2], dtype=strided.int64)}
    t_obj = {"zero_dim": torch.tensor(3.5), "empty": torch.empty(0, 3),
             "grad": torch.ones(2, 2, requires_grad=True),
             "nonleaf": torch.ones(2, requires_grad=True) * 2,
             "int": torch.tensor([1, 2], dtype=torch.int64)}
    both_ways(s_obj, t_obj)
    assert sload(via_torch(t_obj))["nonleaf"].grad_fn is None


def test_parameters_and_tensor_attributes():
    sp = strided.nn.Parameter(strided.ones(2, 3))
    tp = torch.nn.Parameter(torch.ones(2, 3))
    sq = strided.nn.Parameter(strided.zeros(2), requires_grad=False)
    tq = torch.nn.Parameter(torch.zeros(2), requires_grad=False)
    both_ways([sp, sq, sp], [tp, tq, tp])
    loaded = sload(via_torch([tp, tq, tp]))
    assert type(loaded[0]) is strided.nn.Parameter and loaded[0] is loaded[2]
    assert loaded[1].requires_grad is False
    # a tensor carrying Python attributes (torch: _rebuild_from_type_v2)
    st, tt = strided.ones(2), torch.ones(2)
    st.note, tt.note = "kept", "kept"
    for data in (via_strided(st), via_torch(tt)):
        assert sload(data).note == "kept" and tload(data).note == "kept"


def test_nested_containers_and_plain_values():
    s, t = pair("float32")
    sd_s, sd_t = OrderedDict(a=s), OrderedDict(a=t)
    sd_s._metadata = sd_t._metadata = OrderedDict({"": {"version": 1}})
    s_obj = {"list": [s, (s[0], {"deep": [s[1]]})], "od": sd_s, "n": 3, "f": 1.5,
             "c": 1 + 2j, "s": "text", "b": b"raw", "none": None, "set": {1, 2},
             "dtype": strided.float16, "dev": strided.device("cpu"), "size": strided.Size([2])}
    t_obj = {"list": [t, (t[0], {"deep": [t[1]]})], "od": sd_t, "n": 3, "f": 1.5,
             "c": 1 + 2j, "s": "text", "b": b"raw", "none": None, "set": {1, 2},
             "dtype": torch.float16, "dev": torch.device("cpu"), "size": torch.Size([2])}
    from_s, _ = both_ways(s_obj, t_obj)
    assert type(sload(from_s)["size"]) is strided.Size


def make_pair_modules():
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Conv2d(2, 3, 3), torch.nn.BatchNorm2d(3),
                             torch.nn.ReLU(), torch.nn.Flatten(), torch.nn.Linear(12, 4))
    sm = strided.nn.Sequential(strided.nn.Conv2d(2, 3, 3), strided.nn.BatchNorm2d(3),
                               strided.nn.ReLU(), strided.nn.Flatten(), strided.nn.Linear(12, 4))
    sm.load_state_dict(sload(via_torch(tm.state_dict())))
    return sm, tm


def test_module_state_dicts_both_ways():
    sm, tm = make_pair_modules()
    both_ways(sm.state_dict(), tm.state_dict())
    # torch's state dict loads into a strided module and gives torch's outputs
    fresh = strided.nn.Sequential(strided.nn.Conv2d(2, 3, 3), strided.nn.BatchNorm2d(3),
                                  strided.nn.ReLU(), strided.nn.Flatten(),
                                  strided.nn.Linear(12, 4)).eval()
    fresh.load_state_dict(sload(via_torch(tm.state_dict())))
    tm.eval()
    x = np.linspace(-1, 1, 2 * 2 * 4 * 4, dtype=np.float32).reshape(2, 2, 4, 4)
    np.testing.assert_allclose(fresh(strided.from_numpy(x)).detach().numpy(),
                               tm(torch.from_numpy(x)).detach().numpy(), rtol=1e-5, atol=1e-6)
    # and strided's into torch
    tm2 = torch.nn.Sequential(torch.nn.Conv2d(2, 3, 3), torch.nn.BatchNorm2d(3),
                              torch.nn.ReLU(), torch.nn.Flatten(), torch.nn.Linear(12, 4))
    tm2.load_state_dict(tload(via_strided(sm.state_dict())))
    for (k1, v1), (k2, v2) in zip(tm2.state_dict().items(), tm.state_dict().items()):
        assert k1 == k2 and torch.equal(v1, v2)


def test_optimizer_like_state_dict():
    s_state = {"state": {0: {"step": strided.tensor(3.0), "exp_avg": strided.ones(2),
                             "exp_avg_sq": strided.zeros(2)}},
               "param_groups": [{"lr": 0.001, "betas": (0.9, 0.999), "eps": 1e-08,
                                 "weight_decay": 0, "amsgrad": False, "params": [0],
                                 "foreach": None}]}
    t_state = {"state": {0: {"step": torch.tensor(3.0), "exp_avg": torch.ones(2),
                             "exp_avg_sq": torch.zeros(2)}},
               "param_groups": [{"lr": 0.001, "betas": (0.9, 0.999), "eps": 1e-08,
                                 "weight_decay": 0, "amsgrad": False, "params": [0],
                                 "foreach": None}]}
    both_ways(s_state, t_state)
    # a real torch optimizer accepts the state strided wrote
    topt = torch.optim.Adam(torch.nn.Linear(2, 2).parameters())
    loaded = tload(via_strided(s_state))
    loaded["param_groups"][0]["params"] = [0, 1]
    topt.load_state_dict(loaded)
    assert torch.equal(topt.state_dict()["state"][0]["exp_avg"], torch.ones(2))


def test_adam_state_dict_both_ways_gives_the_same_next_step():
    torch.manual_seed(0)
    tl = torch.nn.Linear(3, 2)
    sl = strided.nn.Linear(3, 2)
    sl.load_state_dict(sload(via_torch(tl.state_dict())))
    topt = torch.optim.Adam(tl.parameters(), lr=0.1)
    sopt = strided.optim.Adam(sl.parameters(), lr=0.1)
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
    tl(torch.from_numpy(x)).pow(2).sum().backward()
    topt.step()
    # torch's optimizer and weights -> strided, then one more step in each
    sopt.load_state_dict(sload(via_torch(topt.state_dict())))
    sl.load_state_dict(sload(via_torch(tl.state_dict())))
    for opt, mod, lib in ((topt, tl, torch), (sopt, sl, strided)):
        opt.zero_grad()
        mod(lib.from_numpy(x.copy())).pow(2).sum().backward()
        opt.step()
    np.testing.assert_allclose(sl.weight.detach().numpy(), tl.weight.detach().numpy(),
                               rtol=1e-6, atol=1e-7)
    # strided's optimizer state -> torch
    topt2 = torch.optim.Adam(torch.nn.Linear(3, 2).parameters(), lr=0.1)
    from_s = tload(via_strided(sopt.state_dict()))
    topt2.load_state_dict(from_s)
    same_tree(sload(via_torch(topt2.state_dict())), from_s)
    assert list(from_s["param_groups"][0]) == list(topt.state_dict()["param_groups"][0])
    np.testing.assert_allclose(from_s["state"][0]["exp_avg"].numpy(),
                               topt.state_dict()["state"][0]["exp_avg"].numpy(), rtol=1e-5)


def test_storages_on_their_own():
    t = torch.arange(5, dtype=torch.uint8)
    loaded = sload(via_torch(t.untyped_storage()))
    assert type(loaded) is strided.UntypedStorage and loaded.tolist() == [0, 1, 2, 3, 4]
    s = strided.arange(5, dtype=strided.uint8)
    back = tload(via_strided(s.untyped_storage()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)     # torch: TypedStorage is deprecated
        assert back.tolist() == [0, 1, 2, 3, 4]


@settings(deadline=None, max_examples=40, derandomize=True)
@given(shape=st.lists(st.integers(0, 5), min_size=1, max_size=3), data=st.data())
def test_random_views_round_trip(shape, data):
    """Random views (slices with steps, transposes) of one base: saved by strided, read by
    torch and strided, with the same geometry and sharing."""
    n = int(np.prod(shape))
    arr = np.arange(n, dtype=np.float32).reshape(shape)
    sb, tb = strided.from_numpy(arr.copy()), torch.from_numpy(arr.copy())
    index = tuple(slice(data.draw(st.integers(0, max(d - 1, 0))), None,
                        data.draw(st.integers(1, 3))) for d in shape)
    sv, tv = sb[index], tb[index]
    if len(shape) > 1 and data.draw(st.booleans()):
        sv, tv = sv.transpose(0, -1), tv.transpose(0, -1)
    from_s = via_strided([sb, sv])
    for got, want in zip(tload(from_s), [tb, tv]):
        assert (got.shape, got.stride(), got.storage_offset()) == \
            (want.shape, want.stride(), want.storage_offset())
        assert torch.equal(got, want)
    same_tree(sload(from_s), [tb, tv])
    same_tree(sload(via_torch([tb, tv])), [tb, tv])


def test_lazy_conj_and_neg_bits_are_resolved():
    t = torch.tensor([1 + 2j, 3 - 1j]).conj()
    u = torch.tensor([1.0, 2.0])._neg_view()
    loaded = sload(via_torch({"c": t, "n": u}))
    assert loaded["c"].tolist() == t.resolve_conj().tolist()
    assert loaded["n"].tolist() == u.resolve_neg().tolist()


def test_whole_modules_by_class_path():
    sm, tm = make_pair_modules()
    from_s, from_t = via_strided(sm), via_torch(tm)
    # strided writes torch's class paths...
    pkl = zipfile.ZipFile(io.BytesIO(from_s)).read("archive/data.pkl")
    assert b"torch.nn.modules.linear" in pkl and b"strided" not in pkl
    t_loaded = tload(from_s, weights_only=False)
    assert type(t_loaded[4]) is torch.nn.Linear
    # ...and reads torch's into its own classes
    s_loaded = sload(from_t, weights_only=False)
    assert type(s_loaded[4]) is strided.nn.Linear
    assert type(s_loaded[1]) is strided.nn.BatchNorm2d
    x = np.linspace(-1, 1, 2 * 2 * 4 * 4, dtype=np.float32).reshape(2, 2, 4, 4)
    for s_mod in (s_loaded, sload(from_s, weights_only=False)):
        s_mod.eval()
        t_loaded.eval()
        np.testing.assert_allclose(s_mod(strided.from_numpy(x)).detach().numpy(),
                                   t_loaded(torch.from_numpy(x)).detach().numpy(),
                                   rtol=1e-5, atol=1e-6)
    # weights_only refuses whole modules, with torch's message
    with pytest.raises(pickle.UnpicklingError) as es:
        sload(from_t)
    with pytest.raises(pickle.UnpicklingError) as et:
        tload(from_t)
    assert str(es.value) == str(et.value)


# -- the container ------------------------------------------------------------------------------

def test_zip_layout_matches_torch(tmp_path):
    s, t = pair("float32", (3, 7))
    sp, tp = tmp_path / "s_ckpt.pt", tmp_path / "t_ckpt.pt"
    strided.save({"a": s, "b": strided.ones(5, dtype=strided.int64)}, sp)
    torch.save({"a": t, "b": torch.ones(5, dtype=torch.int64)}, tp)
    zs, zt = zipfile.ZipFile(sp), zipfile.ZipFile(tp)
    names_s = [n.replace("s_ckpt/", "") for n in zs.namelist()]
    names_t = [n.replace("t_ckpt/", "") for n in zt.namelist()]
    assert names_s == names_t
    for n in ("version", "byteorder", ".format_version", ".storage_alignment"):
        assert zs.read("s_ckpt/" + n) == zt.read("t_ckpt/" + n)
    # data.pkl: strided's starts with a prelude of torch names (Note [The fast pickler]);
    # every global it names is on torch's weights_only allow-list
    from torch._weights_only_unpickler import _get_allowed_globals
    names = {arg.replace(" ", ".") for op, arg, _ in pickletools.genops(zs.read("s_ckpt/data.pkl"))
             if op.name == "GLOBAL"}
    assert names <= set(_get_allowed_globals()) | {"collections.OrderedDict"}
    assert "torch._utils._rebuild_tensor_v2" in names and "torch.FloatStorage" in names
    assert len(zs.read("s_ckpt/.data/serialization_id")) == 40
    assert zs.testzip() is None            # CRCs are right
    raw = sp.read_bytes()
    for info in zs.infolist():             # every record's data is 64-byte aligned
        off = info.header_offset
        n, e = int.from_bytes(raw[off + 26:off + 28], "little"), \
            int.from_bytes(raw[off + 28:off + 30], "little")
        assert (off + 30 + n + e) % 64 == 0


@pytest.mark.parametrize("protocol", [1, 2, 3, 4, 5])
def test_pickle_protocols(protocol):
    s, t = pair("float64")
    from_s = via_strided({"x": s, "v": s[1]}, pickle_protocol=protocol)
    out_t = tload(from_s, weights_only=False)
    same_tree(sload(from_s, weights_only=False), out_t)
    assert torch.equal(out_t["x"], t)
    from_t = via_torch({"x": t, "v": t[1]}, pickle_protocol=protocol)
    same_tree(sload(from_t, weights_only=False), tload(from_t, weights_only=False))


# (not uint16/32/64: torch 2.13 cannot read its own legacy files of those)
@pytest.mark.parametrize("name", ["float32", "bfloat16", "int64", "bool", "complex64"])
def test_legacy_format_both_ways(name):
    s, t = pair(name)
    s_obj, t_obj = {"x": s, "row": s[1], "p": strided.nn.Parameter(strided.ones(2))}, \
        {"x": t, "row": t[1], "p": torch.nn.Parameter(torch.ones(2))}
    from_s = via_strided(s_obj, _use_new_zipfile_serialization=False)
    from_t = via_torch(t_obj, _use_new_zipfile_serialization=False)
    assert not from_s.startswith(b"PK")
    same_tree(sload(from_t), tload(from_t))
    same_tree(sload(from_s), tload(from_s))
    loaded = sload(from_t)
    assert shares(loaded["x"], loaded["row"])


def test_paths_pathlike_and_file_objects(tmp_path):
    s, t = pair("float32")
    path = tmp_path / "model.pth"
    strided.save(s, str(path))
    assert zipfile.ZipFile(path).namelist()[0] == "model/data.pkl"   # torch's folder name
    assert torch.equal(torch.load(path), t)
    strided.save(s, path)                                       # os.PathLike
    with open(path, "rb") as fh:
        assert_same(strided.load(fh), t)
    with open(path, "wb") as fh:
        strided.save(s, fh)
    assert_same(strided.load(str(path)), t)
    with pytest.raises(AttributeError, match="expected 'f' to be string, path, or a file-like"):
        strided.save(s, 3)


# -- loading options ----------------------------------------------------------------------------

def test_map_location_forms():
    s, t = pair("float32")
    data = via_torch({"x": t, "v": t[0]})
    for loc in ("cpu", strided.device("cpu"), {"cpu": "cpu"}, lambda st, where: st,
                lambda st, where: None):
        same_tree(sload(data, map_location=loc), {"x": t, "v": t[0]})
    seen = []
    sload(data, map_location=lambda st, where: seen.append(where))
    assert seen == ["cpu"]
    meta = sload(data, map_location="meta")
    assert meta["x"].device.type == "meta" and meta["x"].shape == (2, 3)
    assert_same(meta["v"], tload(data, map_location="meta")["v"])
    meta = sload(data, map_location=strided.device("meta"))
    assert meta["v"].is_meta


def _as_if_saved_on_cuda(data: bytes) -> bytes:
    """The checkpoint with every storage tagged 'cuda:0' (as a GPU run would save it): the
    location strings in data.pkl rewritten, the archive rebuilt."""
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            body = src.read(info)
            if info.filename.endswith("/data.pkl"):
                assert b"X\x03\x00\x00\x00cpu" in body
                body = body.replace(b"X\x03\x00\x00\x00cpu", b"X\x06\x00\x00\x00cuda:0")
            dst.writestr(info.filename, body)
    return out.getvalue()


def test_gpu_checkpoints_load_on_cpu_with_map_location():
    s, t = pair("float32")
    for data in (via_torch({"x": t, "v": t[1]}), via_strided({"x": s, "v": s[1]})):
        gpu = _as_if_saved_on_cuda(data)
        with pytest.raises(RuntimeError) as es:
            sload(gpu)
        with pytest.raises(RuntimeError) as et:
            tload(gpu)
        assert str(es.value) == str(et.value)
        for loc in ("cpu", strided.device("cpu"), {"cuda:0": "cpu"},
                    lambda storage, where: storage):
            tloc = torch.device("cpu") if isinstance(loc, strided.device) else loc
            same_tree(sload(gpu, map_location=loc), tload(gpu, map_location=tloc))
        seen = []
        sload(gpu, map_location=lambda storage, where, seen=seen: seen.append(where) or storage)
        assert seen == ["cuda:0"]              # once per storage, with the saved tag


def test_mmap_is_zero_copy_and_private(tmp_path):
    s, t = pair("float32", (64, 64))
    path = tmp_path / "big.pt"
    torch.save({"x": t, "v": t[3:]}, path)
    loaded = strided.load(path, mmap=True)
    same_tree(loaded, {"x": t, "v": t[3:]})
    assert shares(loaded["x"], loaded["v"])
    loaded["x"][0, 0] = 100.0                       # copy-on-write: the file is untouched
    assert torch.load(path)["x"][0, 0].item() == t[0, 0].item()
    with pytest.raises(ValueError, match="f must be a file path in order to use the mmap"):
        strided.load(io.BytesIO(path.read_bytes()), mmap=True)
    legacy = tmp_path / "legacy.pt"
    torch.save(t, legacy, _use_new_zipfile_serialization=False)
    with pytest.raises(RuntimeError) as es:
        strided.load(str(legacy), mmap=True)
    with pytest.raises(RuntimeError) as et:
        torch.load(str(legacy), mmap=True)
    assert str(es.value) == str(et.value)


def test_mmap_storage_points_into_the_file(tmp_path):
    path = tmp_path / "m.pt"
    strided.save(strided.arange(1000, dtype=strided.float32), path)
    loaded = strided.load(path, mmap=True)
    assert loaded.data_ptr() % 64 == 0
    # torch maps strided's file too (it finds each record through the zip's local headers)
    via_torch_mmap = torch.load(path, mmap=True)
    assert torch.equal(via_torch_mmap, torch.arange(1000, dtype=torch.float32))
    assert via_torch_mmap.data_ptr() % 64 == 0
    raw = path.read_bytes()
    start = raw.index(np.arange(1000, dtype=np.float32).tobytes())
    assert start % 64 == 0


def test_same_storage_different_dtypes_is_refused():
    s = strided.zeros(4)
    with pytest.raises(RuntimeError) as es:
        strided.save([s, s.view(strided.int32)], io.BytesIO())
    t = torch.zeros(4)
    with pytest.raises(RuntimeError) as et:
        torch.save([t, t.view(torch.int32)], io.BytesIO())
    assert str(es.value) == str(et.value)


def test_meta_tensors():
    sm = strided.empty(2, 3, device="meta")
    tm = torch.empty(2, 3, device="meta")
    both_ways({"m": sm}, {"m": tm})


def test_weights_only_default_and_pickle_module_rules():
    s, t = pair("float32")
    data = via_strided(s)
    with pytest.raises(RuntimeError) as es:
        sload(data, pickle_module=pickle, weights_only=True)
    with pytest.raises(RuntimeError) as et:
        tload(data, pickle_module=pickle, weights_only=True)
    assert str(es.value) == str(et.value)
    assert_same(sload(data, pickle_module=pickle), t)     # pickle_module: weights_only=False


def test_big_endian_checkpoints_are_swapped():
    """A checkpoint whose ``byteorder`` record says big-endian (bytes of each element, and
    of each half of a complex, reversed) loads with the values torch reads."""
    s_obj = {"f": pair("float32")[0], "c": pair("complex64")[0], "b": pair("bfloat16")[0],
             "i": pair("int64")[0], "u": pair("uint8")[0]}
    src = zipfile.ZipFile(io.BytesIO(via_strided(s_obj)))
    # storage keys follow first appearance in the pickle: the dict's order
    widths = {f"archive/data/{k}": t.element_size() // (2 if t.is_complex() else 1)
              for k, t in enumerate(s_obj.values())}
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == "archive/byteorder":
                data = b"big"
            elif info.filename in widths:
                w = widths[info.filename]
                data = np.frombuffer(data, f"<u{w}").astype(f">u{w}").tobytes()
            dst.writestr(info.filename, data)
    big = out.getvalue()
    same_tree(sload(big), tload(big))
    same_tree(sload(big), tload(via_strided(s_obj)))


def test_mmap_shared_writes_reach_the_file(tmp_path):
    import mmap
    path = tmp_path / "shared.pt"
    strided.save(strided.zeros(4), path)
    assert strided.serialization.get_default_mmap_options() == \
        torch.serialization.get_default_mmap_options() == mmap.MAP_PRIVATE
    with strided.serialization.set_default_mmap_options(mmap.MAP_SHARED):
        loaded = strided.load(path, mmap=True)
        loaded[1] = 5.0
        del loaded
    assert strided.serialization.get_default_mmap_options() == mmap.MAP_PRIVATE
    assert torch.load(path).tolist() == [0.0, 5.0, 0.0, 0.0]
    with pytest.raises(ValueError) as es:
        strided.serialization.set_default_mmap_options(7)
    with pytest.raises(ValueError) as et:
        torch.serialization.set_default_mmap_options(7)
    assert str(es.value) == str(et.value)


def test_skip_data(tmp_path):
    s, t = pair("float32")
    with strided.serialization.skip_data():
        data = via_strided({"x": s, "v": s[1]})
    with torch.serialization.skip_data():
        data_t = via_torch({"x": t, "v": t[1]})
    for d in (data, data_t):
        for loaded in (sload(d), tload(d)):
            assert tuple(loaded["x"].shape) == (2, 3) and loaded["v"].storage_offset() == 3
    assert sload(data)["x"].tolist() == [[0.0] * 3] * 2      # the records hold zeros
    with strided.serialization.skip_data():
        shaped = sload(via_strided({"x": s}))["x"]
    assert tuple(shaped.shape) == (2, 3)
    with pytest.raises(RuntimeError) as es, strided.serialization.skip_data():
        via_strided(s, _use_new_zipfile_serialization=False)
    with pytest.raises(RuntimeError) as et, torch.serialization.skip_data():
        via_torch(t, _use_new_zipfile_serialization=False)
    assert str(es.value) == str(et.value)


def test_torch_computes_the_same_record_offsets(monkeypatch, tmp_path):
    """torch can find records without reading local headers (``calculate_storage_offsets``,
    checked against the real offsets under TORCH_SERIALIZATION_DEBUG): strided's padding and
    data descriptors follow the miniz layout it assumes."""
    from torch.utils.serialization import config
    path = tmp_path / "offsets.pt"
    strided.save({"a": strided.ones(3), "e": strided.empty(0), "b": strided.arange(100.0),
                  "c": strided.ones(7, dtype=strided.int8)}, path)
    monkeypatch.setenv("TORCH_SERIALIZATION_DEBUG", "1")
    # (config.patch, not monkeypatch.setattr: undoing a setattr deletes the option, which
    # torch's config module then reports as missing to every later torch.load)
    with config.patch({"load.calculate_storage_offsets": True}):
        loaded = torch.load(path, mmap=True)
    assert loaded["b"].tolist() == list(map(float, range(100)))


def _tar_checkpoint(path):
    """A checkpoint in torch <= 0.3's tar format (torch still reads it; nothing writes it):
    one float storage of 12 elements, a view of it from element 2, and two tensors."""
    import struct
    import tarfile

    class Ref:
        def __init__(self, key):
            self.key = key

    class P(pickle.Pickler):
        def persistent_id(self, obj):
            return str(obj.key) if isinstance(obj, Ref) else None

    data = np.arange(12, dtype=np.float32)
    storages = (pickle.dumps(1, 2) + pickle.dumps((0, "cpu", torch.FloatStorage), 2)
                + struct.pack("<q", 12) + data.tobytes()
                + pickle.dumps([(5, 0, 2, 10)], 2))
    tensors = pickle.dumps(2, 2)
    for key, storage_id, sizes, strides, offset in ((1, 0, (3, 4), (4, 1), 0),
                                                    (2, 5, (2, 2), (1, 2), 3)):
        tensors += pickle.dumps((key, storage_id, None), 2)
        tensors += struct.pack("<i", len(sizes)) + b"\0" * 4
        tensors += struct.pack(f"<{len(sizes)}q", *sizes) + struct.pack(f"<{len(sizes)}q", *strides)
        tensors += struct.pack("<q", offset)
    buf = io.BytesIO()
    P(buf, 2).dump({"a": Ref(1), "b": Ref(2), "n": 7})
    with tarfile.open(path, "w", format=tarfile.PAX_FORMAT) as tar:
        for name, body in (("storages", storages), ("tensors", tensors),
                           ("pickle", buf.getvalue())):
            info = tarfile.TarInfo(name)
            info.size = len(body)
            tar.addfile(info, io.BytesIO(body))


def test_tar_format_of_old_torch(tmp_path):
    path = tmp_path / "old.pt"
    _tar_checkpoint(path)
    same_tree(strided.load(str(path), weights_only=False), torch.load(str(path),
                                                                      weights_only=False))
    loaded = strided.load(str(path), weights_only=False)
    assert loaded["b"].tolist() == [[5.0, 7.0], [6.0, 8.0]]
    with pytest.raises(RuntimeError) as es:
        strided.load(str(path))
    with pytest.raises(RuntimeError) as et:
        torch.load(str(path))
    assert str(es.value) == str(et.value)


def test_tensors_strided_lacks_are_refused_clearly():
    data = via_torch({"q": torch.quantize_per_tensor(torch.tensor([1.0, 2.0]), 0.1, 0,
                                                     torch.quint8)})
    assert tload(data, weights_only=False)["q"].is_quantized
    with pytest.raises(AttributeError, match="the checkpoint names torch.QUInt8Storage"):
        sload(data, weights_only=False)


def test_sparse_tensors_load_both_ways():
    # torch's _rebuild_sparse_tensor (issue 16)
    data = via_torch({"s": torch.eye(2).to_sparse()})
    got = sload(data)["s"]
    assert got.is_sparse and repr(got) == repr(tload(data)["s"])
    back = tload(via_strided({"s": got}))["s"]
    assert back.is_sparse and repr(back) == repr(got)


def test_rng_state_in_a_checkpoint_resumes_the_same_stream():
    """A training checkpoint's generator state, saved by one library and restored in the
    other, continues the same random stream (the generators are bit-exact)."""
    strided.manual_seed(3)
    strided.rand(5)
    torch.set_rng_state(tload(via_strided({"rng": strided.get_rng_state()}))["rng"])
    assert torch.rand(4).tolist() == strided.rand(4).tolist()
    torch.manual_seed(7)
    torch.rand(2)
    strided.set_rng_state(sload(via_torch({"rng": torch.get_rng_state()}))["rng"])
    assert strided.rand(4).tolist() == torch.rand(4).tolist()
