"""The dispatcher: key computation, fallback chain, hooks and errors."""

from __future__ import annotations

import pytest

import strided
from strided.core.dispatch_keys import DispatchKey
from strided.ops import dispatcher


@pytest.fixture
def op():
    name = f"test::probe{id(object())}"
    handle = dispatcher.register_op(name, f"{name.split('::')[1]}(Tensor self) -> Tensor")
    yield handle
    dispatcher._ops.pop(name)


def test_backend_key_comes_from_the_tensor_device(op):
    seen = []
    dispatcher.register_kernel(op.qualname, "CPU", lambda x: seen.append("cpu") or x)
    dispatcher.register_kernel(op.qualname, "Meta", lambda x: seen.append("meta") or x)
    cpu, meta = strided.zeros(1), strided.zeros(1, device="meta")
    op.call(cpu._keyset, cpu)
    op.call(meta._keyset, meta)
    assert seen == ["cpu", "meta"]
    assert op.dispatch_key(cpu._keyset) is DispatchKey.CPU
    assert op.dispatch_key(meta._keyset) is DispatchKey.Meta


def test_fallback_chain_order(op):
    x = strided.zeros(1)
    undo_implicit = dispatcher.register_kernel(op.qualname, "CompositeImplicitAutograd",
                                               lambda t: "implicit")
    assert op.call(x._keyset, x) == "implicit"
    assert op.resolved_key(DispatchKey.CPU) is DispatchKey.CompositeImplicitAutograd
    undo_explicit = dispatcher.register_kernel(op.qualname, "CompositeExplicitAutograd",
                                               lambda t: "explicit")
    assert op.call(x._keyset, x) == "explicit"
    undo_cpu = dispatcher.register_kernel(op.qualname, "CPU", lambda t: "cpu")
    assert op.call(x._keyset, x) == "cpu"
    for undo, expected in ((undo_cpu, "explicit"), (undo_explicit, "implicit")):
        undo()
        assert op.call(x._keyset, x) == expected
    undo_implicit()
    with pytest.raises(NotImplementedError, match=rf"Could not run '{op.qualname}' with "
                                                  r"arguments from the 'CPU' backend"):
        op.call(x._keyset, x)


def test_backend_fallback_serves_ops_without_kernels(op):
    x = strided.zeros(1, device="meta")
    undo = dispatcher.register_fallback("Meta", lambda *args: "fallback")
    try:
        assert op.call(x._keyset, x) == "fallback"
    finally:
        undo()
    with pytest.raises(NotImplementedError, match="'Meta' backend"):
        op.call(x._keyset, x)


def test_autograd_key_falls_through_to_the_backend(op):
    dispatcher.register_kernel(op.qualname, "CPU", lambda t: "cpu")
    x = strided.zeros(1)
    ks = x._keyset | DispatchKey.Autograd.bit
    assert op.call(ks, x) == "cpu"
    dispatcher.register_kernel(op.qualname, "Autograd", lambda t: "autograd")
    assert op.call(ks, x) == "autograd"
    assert op.call(x._keyset, x) == "cpu"


def test_dispatch_hook_sees_every_call_and_costs_nothing_when_removed():
    calls = []

    def hook(op, key, args):
        calls.append((op.qualname, key.name))
        return lambda result: calls.append(("result", type(result).__name__))

    plain = dispatcher.OperatorHandle.call
    remove = strided.add_dispatch_hook(hook)
    try:
        strided.zeros(2).clone()
    finally:
        remove()
    assert dispatcher.OperatorHandle.call is plain
    names = [c[0] for c in calls]
    assert "aten::zeros" in names and "aten::clone" in names
    assert ("aten::zeros", "CPU") in calls
    assert ("result", "Tensor") in calls
    calls.clear()
    strided.zeros(2)
    assert calls == []


def test_meta_tensors_flow_through_every_foundation_op():
    m = strided.empty(3, 4, device="meta")
    for r in (m.clone(), m.t().contiguous(), strided.zeros_like(m), m.new_ones(2),
              m.to(strided.float64), m.view(12), m.copy_(strided.empty(4, device="meta")),
              m.fill_(1), strided.full_like(m, 2)):
        assert r.device.type == "meta"
    assert m.t().contiguous().stride() == (3, 1)
    with pytest.raises(RuntimeError, match="meta"):
        m.sum_of_nothing if False else strided.empty(1, device="meta").item()


def test_unknown_op_name():
    with pytest.raises(RuntimeError, match="No such operator"):
        dispatcher.get_op("aten::definitely_not_an_op")
