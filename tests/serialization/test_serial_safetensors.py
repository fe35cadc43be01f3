"""strided.utils.safetensors against safetensors.torch: same bytes written, same tensors
read, both directions."""

from __future__ import annotations

import json

import pytest
import safetensors.torch as st  # the oracle (in the ``test`` extra)
import torch

import strided
from strided.utils import safetensors as ss
from tests.conftest import assert_same
from tests.serialization.test_serial_interop import pair

NAMES = ["bool", "uint8", "int8", "int16", "uint16", "float16", "bfloat16", "int32", "uint32",
         "float32", "complex64", "float64", "int64", "uint64"]


def tensors():
    s, t = {}, {}
    for i, name in enumerate(NAMES):
        a, b = pair(name, (2, i % 3 + 1))
        s[f"t_{name}"], t[f"t_{name}"] = a, b
    s["zero_dim"], t["zero_dim"] = strided.tensor(2.5), torch.tensor(2.5)
    s["empty"], t["empty"] = strided.empty(0, 4), torch.empty(0, 4)
    s["a_same_dtype"], t["a_same_dtype"] = strided.ones(3), torch.ones(3)
    return s, t


def same_dict(s, t):
    assert sorted(s) == sorted(t)
    for k in t:
        assert_same(s[k], t[k])


def _split(data: bytes):
    n = int.from_bytes(data[:8], "little")
    return json.loads(data[8:8 + n]), data[8 + n:]


@pytest.mark.parametrize("metadata", [None, {"format": "pt"}, {"format": "pt", "step": "10"}])
def test_bytes_identical_and_read_both_ways(metadata):
    s, t = tensors()
    data_s, data_t = ss.save(s, metadata=metadata), st.save(t, metadata=metadata)
    if metadata is None or len(metadata) == 1:
        assert data_s == data_t
    else:
        # the reference writes several metadata keys in hash order (it varies between
        # calls); strided sorts them. Same header content, same layout, same bytes after.
        assert len(data_s) == len(data_t)
        assert _split(data_s) == _split(data_t)
    same_dict(ss.load(data_t), st.load(data_t))
    same_dict(ss.load(data_s), t)


def test_files_and_safe_open(tmp_path):
    s, t = tensors()
    ps, pt = tmp_path / "s.safetensors", tmp_path / "t.safetensors"
    ss.save_file(s, ps, metadata={"k": "v"})
    st.save_file(t, pt, metadata={"k": "v"})
    assert ps.read_bytes() == pt.read_bytes()
    same_dict(ss.load_file(pt), st.load_file(pt))
    same_dict(ss.load_file(str(ps)), t)
    from safetensors import safe_open as ref_open
    with ss.safe_open(ps, framework="pt") as f, ref_open(str(pt), framework="pt") as g:
        assert sorted(f.keys()) == sorted(g.keys())
        assert f.metadata() == g.metadata()
        assert_same(f.get_tensor("t_float32"), g.get_tensor("t_float32"))
        assert f.get_slice("t_int64").get_shape() == g.get_slice("t_int64").get_shape()
        assert_same(f.get_slice("t_float64")[1:], g.get_slice("t_float64")[1:])
    # torch.load / strided.load read .safetensors paths too
    same_dict(strided.load(str(pt)), torch.load(str(pt)))


def test_refusals_match():
    x = strided.ones(4)
    y = torch.ones(4)
    with pytest.raises(ValueError) as es:
        ss.save({"a": x[::2]})
    with pytest.raises(ValueError) as et:
        st.save({"a": y[::2]})
    assert str(es.value) == str(et.value)
    with pytest.raises(ValueError) as es:
        ss.save({"a": 1})
    with pytest.raises(ValueError) as et:
        st.save({"a": 1})
    assert str(es.value) == str(et.value)
    with pytest.raises(RuntimeError, match="Some tensors share memory"):
        ss.save({"a": x, "b": x})
    with pytest.raises(RuntimeError, match="Some tensors share memory"):
        st.save({"a": y, "b": y})
    with pytest.raises(KeyError):
        ss.save({"a": strided.ones(1, dtype=strided.complex128)})
    with pytest.raises(KeyError):
        st.save({"a": torch.ones(1, dtype=torch.complex128)})


def test_views_that_do_not_overlap_are_not_shared():
    x, y = strided.arange(6.0), torch.arange(6.0)
    assert ss.save({"a": x[:2], "b": x[2:]}) == st.save({"a": y[:2], "b": y[2:]})
    with pytest.raises(RuntimeError, match="Some tensors share memory"):
        ss.save({"a": x[:4], "b": x[2:]})
    with pytest.raises(RuntimeError, match="Some tensors share memory"):
        st.save({"a": y[:4], "b": y[2:]})


class _Tied:
    """A model whose output layer shares the embedding's weight (as language models do)."""

    @staticmethod
    def make(lib):
        class Tied(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.emb = lib.nn.Embedding(5, 3)
                self.out = lib.nn.Linear(3, 5, bias=False)
                self.out.weight = self.emb.weight
                self.norm = lib.nn.LayerNorm(3)
        return Tied()


def test_save_model_and_load_model_with_tied_weights(tmp_path):
    tm = _Tied.make(torch)
    sm = _Tied.make(strided)
    sm.load_state_dict(strided.load(_to_bytes_io(tm.state_dict())))
    ps, pt = tmp_path / "s.safetensors", tmp_path / "t.safetensors"
    ss.save_model(sm, ps)
    st.save_model(tm, pt)
    assert ps.read_bytes() == pt.read_bytes()        # 'out.weight' dropped, noted in metadata
    fresh_s, fresh_t = _Tied.make(strided), _Tied.make(torch)
    ms, us = ss.load_model(fresh_s, pt)
    mt, ut = st.load_model(fresh_t, pt)
    assert (sorted(ms), sorted(us)) == (sorted(mt), sorted(ut))
    assert fresh_s.out.weight is fresh_s.emb.weight
    assert fresh_s.emb.weight.tolist() == tm.emb.weight.tolist()
    # a model without the tied layer: strict loading fails with the same message
    ps_lin = tmp_path / "lin.safetensors"
    st.save_file({"weight": torch.ones(2, 2), "extra": torch.ones(1)}, ps_lin)
    with pytest.raises(RuntimeError) as es:
        ss.load_model(strided.nn.Linear(2, 2), ps_lin)
    with pytest.raises(RuntimeError) as et:
        st.load_model(torch.nn.Linear(2, 2), ps_lin)
    assert str(es.value) == str(et.value)


def _to_bytes_io(obj):
    import io
    buf = io.BytesIO()
    torch.save(obj, buf)
    buf.seek(0)
    return buf
