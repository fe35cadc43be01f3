"""``load(weights_only=True)``: the allow-list unpickler. Malicious checkpoints are refused
with torch's exact message and run nothing; safe globals can be added."""

from __future__ import annotations

import builtins
import io
import os
import pickle
import subprocess
from collections import OrderedDict

import pytest
import torch

import strided
from strided import serialization


class _Payload:
    """Pickles as a call of ``func(*args)``: what a malicious checkpoint contains."""

    def __init__(self, func, args):
        self.func, self.args = func, args

    def __reduce__(self):
        return self.func, self.args


def _malicious(marker: str):
    code = f"open({marker!r}, 'w').write('ran')"
    return {
        "os.system": _Payload(os.system, (f"touch {marker}",)),
        "builtins.exec": _Payload(builtins.exec, (code,)),
        "builtins.eval": _Payload(builtins.eval, (code,)),
        "subprocess": _Payload(subprocess.call, (["touch", marker],)),
        "os.popen": _Payload(os.popen, (f"touch {marker}",)),
    }


def _checkpoint(obj, saver=torch.save, **kw) -> bytes:
    buf = io.BytesIO()
    saver(obj, buf, **kw)
    return buf.getvalue()


@pytest.mark.parametrize("kind", ["os.system", "builtins.exec", "builtins.eval", "subprocess",
                                  "os.popen"])
@pytest.mark.parametrize("legacy", [False, True])
def test_malicious_pickle_is_refused_and_runs_nothing(tmp_path, kind, legacy):
    marker = str(tmp_path / "pwned")
    payload = {"weights": torch.ones(2), "evil": _malicious(marker)[kind]}
    data = _checkpoint(payload, _use_new_zipfile_serialization=not legacy)
    assert not os.path.exists(marker)
    with pytest.raises(pickle.UnpicklingError) as es:
        strided.load(io.BytesIO(data))
    with pytest.raises(pickle.UnpicklingError) as et:
        torch.load(io.BytesIO(data))
    assert str(es.value) == str(et.value)
    assert "Weights only load failed" in str(es.value)
    assert not os.path.exists(marker)          # nothing ran, in either library
    # the same file written by strided is refused the same way
    data_s = _checkpoint({"evil": _malicious(marker)[kind]}, strided.save,
                         _use_new_zipfile_serialization=not legacy)
    with pytest.raises(pickle.UnpicklingError) as es2:
        strided.load(io.BytesIO(data_s))
    with pytest.raises(pickle.UnpicklingError) as et2:
        torch.load(io.BytesIO(data_s))
    assert str(es2.value) == str(et2.value)
    assert not os.path.exists(marker)


def test_the_payload_does_run_without_weights_only(tmp_path):
    """The control: the same file does run its code when weights_only=False (so the test
    above would see it if the allow-list let it through)."""
    marker = str(tmp_path / "ran")
    data = _checkpoint({"evil": _malicious(marker)["builtins.exec"]})
    strided.load(io.BytesIO(data), weights_only=False)
    assert os.path.exists(marker)


class Point:
    def __init__(self, x=0, y=0):
        self.x, self.y = x, y

    def __eq__(self, other):
        return (self.x, self.y) == (other.x, other.y)


def test_unknown_class_message_and_safe_globals():
    data = _checkpoint({"p": Point(1, 2), "w": torch.ones(1)})
    with pytest.raises(pickle.UnpicklingError) as es:
        strided.load(io.BytesIO(data))
    with pytest.raises(pickle.UnpicklingError) as et:
        torch.load(io.BytesIO(data))
    assert str(es.value) == str(et.value)
    assert "Point was not an allowed global by default" in str(es.value)

    with serialization.safe_globals([Point]):
        assert serialization.get_safe_globals() == [Point]
        out = strided.load(io.BytesIO(data))
        assert out["p"] == Point(1, 2) and isinstance(out["w"], strided.Tensor)
    assert serialization.get_safe_globals() == []
    with pytest.raises(pickle.UnpicklingError):
        strided.load(io.BytesIO(data))

    serialization.add_safe_globals([(Point, f"{Point.__module__}.Point")])
    try:
        assert strided.load(io.BytesIO(data))["p"] == Point(1, 2)
    finally:
        serialization.clear_safe_globals()
    assert serialization.get_safe_globals() == []


def test_blocked_modules_stay_blocked_even_when_added():
    data = _checkpoint(_Payload(os.system, ("true",)))
    serialization.add_safe_globals([os.system])
    torch.serialization.add_safe_globals([os.system])
    try:
        with pytest.raises(pickle.UnpicklingError) as es:
            strided.load(io.BytesIO(data))
        with pytest.raises(pickle.UnpicklingError) as et:
            torch.load(io.BytesIO(data))
        assert str(es.value) == str(et.value)
        assert "is blocked" in str(es.value)
    finally:
        serialization.clear_safe_globals()
        torch.serialization.clear_safe_globals()


def test_strided_module_added_under_its_torch_name():
    """A strided class added as safe is accepted under torch's class path, which is the
    name the checkpoint carries."""
    lin = torch.nn.Linear(2, 2)
    data = _checkpoint(lin)
    with pytest.raises(pickle.UnpicklingError) as es:
        strided.load(io.BytesIO(data))
    with pytest.raises(pickle.UnpicklingError) as et:
        torch.load(io.BytesIO(data))
    assert str(es.value) == str(et.value)
    with serialization.safe_globals([strided.nn.Linear]):
        s = strided.load(io.BytesIO(data))
    with torch.serialization.safe_globals([torch.nn.Linear]):
        t = torch.load(io.BytesIO(data))
    assert type(s) is strided.nn.Linear and type(t) is torch.nn.Linear
    assert s.weight.tolist() == t.weight.tolist() == lin.weight.tolist()


def test_allowed_types_load():
    obj = {"od": OrderedDict(a=torch.ones(1)), "set": {1, 2}, "bytes": b"\x00\xff",
           "bytearray": bytearray(b"ab"), "c": 2 + 1j, "dtype": torch.bfloat16,
           "dev": torch.device("cpu"), "size": torch.Size([3]), "layout": torch.strided,
           "p": torch.nn.Parameter(torch.zeros(1)), "big": 2 ** 80, "neg": -5, "f": 0.25,
           "tuple": (1, (2, 3, (4,))), "none": None, "bool": True}
    data = _checkpoint(obj)
    s, t = strided.load(io.BytesIO(data)), torch.load(io.BytesIO(data))
    assert list(s) == list(t)
    for k in ("set", "bytes", "bytearray", "c", "big", "neg", "f", "tuple", "none", "bool"):
        assert s[k] == t[k] and type(s[k]) is type(t[k])
    assert s["dtype"] is strided.bfloat16 and s["dev"] == strided.device("cpu")
    assert s["size"] == strided.Size([3]) and s["layout"] is strided.strided
    assert type(s["p"]) is strided.nn.Parameter and type(s["od"]) is OrderedDict


def test_get_unsafe_globals_in_checkpoint(tmp_path):
    data = _checkpoint({"p": Point(), "w": torch.ones(1), "f": _Payload(print, ("x",))})
    path = tmp_path / "c.pt"
    path.write_bytes(data)
    assert sorted(serialization.get_unsafe_globals_in_checkpoint(str(path))) == \
        sorted(torch.serialization.get_unsafe_globals_in_checkpoint(str(path)))


def test_protocol_warning_and_pickle_load_args():
    data = _checkpoint(torch.ones(1), pickle_protocol=4)
    with pytest.raises(pickle.UnpicklingError) as es, \
            pytest.warns(UserWarning, match="Detected pickle protocol 4 in the checkpoint"):
        strided.load(io.BytesIO(data))
    with pytest.raises(pickle.UnpicklingError) as et, \
            pytest.warns(UserWarning, match="Detected pickle protocol 4 in the checkpoint"):
        torch.load(io.BytesIO(data))
    assert str(es.value) == str(et.value)
    with pytest.warns(UserWarning, match="pickle_load_args only works if"):
        strided.load(io.BytesIO(_checkpoint(torch.ones(1))), encoding="latin1")
