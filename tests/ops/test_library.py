"""``strided.library`` and ``strided.ops``: defining operators and registering kernels from
Python, calling them by name, and undoing it all; torch.library is the oracle where the
two can be compared."""

from __future__ import annotations

import gc
import uuid
import warnings

import numpy as np
import pytest
import torch
from conftest import assert_same, assert_same_error, check

import strided
import strided.library as slib
from strided.core.dispatch_keys import DispatchKey
from strided.library import Library, fallthrough_kernel
from strided.ops import dispatcher, op_namespace
from strided.ops.schema import FunctionSchema

K = DispatchKey


def _unique_ns() -> str:
    return f"tl_{uuid.uuid4().hex[:12]}"


@pytest.fixture
def ns():
    return _unique_ns()


@pytest.fixture
def libs():
    """``libs(ns, kind)`` makes a strided Library destroyed after the test (newest first)."""
    made = []

    def make(ns, kind="FRAGMENT", dispatch_key=""):
        lib = Library(ns, kind, dispatch_key)
        made.append(lib)
        return lib
    yield make
    for lib in reversed(made):
        lib._destroy()


@pytest.fixture
def torch_libs():
    made = []

    def make(ns, kind="FRAGMENT", dispatch_key=""):
        lib = torch.library.Library(ns, kind, dispatch_key)
        made.append(lib)
        return lib
    yield make
    for lib in reversed(made):
        lib._destroy()


def _ops(ns):
    return getattr(strided.ops, ns)


def _run_with_library(m, body):
    """Run ``body(lib, ns)`` with a fresh FRAGMENT library of module ``m``; destroy it after."""
    ns = _unique_ns()
    lib = m.library.Library(ns, "FRAGMENT")
    try:
        return body(lib, ns)
    finally:
        lib._destroy()


# -- define, impl, call -------------------------------------------------------------------

def test_define_registers_the_operator_and_returns_its_name(ns, libs):
    lib = libs(ns, "DEF")
    assert lib.define("foo(Tensor x, int k=2) -> Tensor") == "foo"
    assert lib.define("foo.twice(Tensor x, Tensor y) -> Tensor") == "foo"
    assert lib.define(f"{ns}::bar(Tensor x) -> Tensor") == f"{ns}::bar"
    handle = dispatcher.get_op(f"{ns}::foo")
    assert handle.schema == "foo(Tensor x, int k=2) -> Tensor"
    assert dispatcher.find_op(f"{ns}::foo.twice") is not None
    assert _ops(ns).foo.overloads() == ["default", "twice"]
    assert _ops(ns).bar.overloads() == ["default"]


def test_cpu_and_meta_kernels_are_chosen_by_the_tensor_device(ns, libs):
    lib = libs(ns, "DEF")
    lib.define("scale(Tensor x, int k=2) -> Tensor")
    seen = []

    def scale_cpu(x, k):
        seen.append(("cpu", k))
        return strided.full_like(x, k)

    def scale_meta(x, k):
        seen.append(("meta", k))
        return strided.empty_like(x)

    lib.impl("scale", scale_cpu, "CPU")
    lib.impl("scale", scale_meta, "Meta")
    out = _ops(ns).scale(strided.ones(2, 3))
    assert out.tolist() == [[2.0] * 3] * 2
    assert _ops(ns).scale(strided.ones(2), 7).tolist() == [7.0, 7.0]
    assert _ops(ns).scale(strided.ones(2), k=5).tolist() == [5.0, 5.0]
    meta = _ops(ns).scale.default(strided.ones(4, device="meta"))
    assert meta.device.type == "meta" and tuple(meta.shape) == (4,)
    assert seen == [("cpu", 2), ("cpu", 7), ("cpu", 5), ("meta", 2)]


def test_composite_implicit_serves_every_backend_without_a_kernel(ns, libs):
    lib = libs(ns, "DEF")
    lib.define("ident(Tensor x) -> Tensor")
    seen = []
    lib.impl("ident", lambda x: seen.append(x.device.type) or x)   # "" -> CIA, as torch
    handle = dispatcher.get_op(f"{ns}::ident")
    assert list(handle.kernels) == [K.CompositeImplicitAutograd]
    _ops(ns).ident(strided.ones(1))
    _ops(ns).ident(strided.ones(1, device="meta"))
    assert seen == ["cpu", "meta"]
    lib.impl("ident", lambda x: seen.append("cpu kernel") or x, "CPU")
    _ops(ns).ident(strided.ones(1))
    _ops(ns).ident(strided.ones(1, device="meta"))
    assert seen[2:] == ["cpu kernel", "meta"]


def test_library_dispatch_key_is_the_default_of_impl(ns, libs):
    libs(ns, "DEF").define("f(Tensor x) -> Tensor")
    meta_lib = libs(ns, "IMPL", "Meta")
    meta_lib.impl("f", lambda x: "meta")
    assert list(dispatcher.get_op(f"{ns}::f").kernels) == [K.Meta]
    assert _ops(ns).f(strided.ones(1, device="meta")) == "meta"


def test_missing_kernel_names_the_operator_and_the_key(ns, libs):
    lib = libs(ns, "DEF")
    lib.define("only_cpu(Tensor x) -> Tensor")
    lib.impl("only_cpu", lambda x: x, "CPU")
    with pytest.raises(NotImplementedError) as info:
        _ops(ns).only_cpu(strided.ones(1, device="meta"))
    msg = str(info.value)
    assert msg.startswith(f"Could not run '{ns}::only_cpu' with arguments from the 'Meta' "
                          f"backend.")
    assert msg.endswith(f"'{ns}::only_cpu' is only available for these backends: [CPU].")


def test_missing_kernel_message_matches_torch_up_to_the_backend_list(torch_libs, libs):
    tns, sns = _unique_ns(), _unique_ns()
    torch_libs(tns, "DEF").define("f(Tensor x) -> Tensor")
    libs(sns, "DEF").define("f(Tensor x) -> Tensor")
    with pytest.raises(NotImplementedError) as et:
        getattr(torch.ops, tns).f(torch.ones(1))
    with pytest.raises(NotImplementedError) as es:
        _ops(sns).f(strided.ones(1))
    head = "with arguments from the 'CPU' backend. This could be because the operator " \
           "doesn't exist for this backend"
    assert str(et.value).replace(tns, "NS").startswith(f"Could not run 'NS::f' {head}")
    assert str(es.value).replace(sns, "NS").startswith(f"Could not run 'NS::f' {head}")


# -- overriding aten kernels ----------------------------------------------------------------

def test_overriding_the_aten_zeros_cpu_kernel_and_restoring_it():
    seen = []

    def fake_zeros(size, dtype, layout, device, pin_memory):
        seen.append((size, dtype, layout, device, pin_memory))
        return strided.full(size, 7.0)

    lib = Library("aten", "IMPL")
    try:
        with pytest.warns(UserWarning, match="Overriding a previously registered kernel for "
                                             "the same operator and the same dispatch key"):
            lib.impl("zeros", fake_zeros, "CPU")
        assert strided.zeros(2, 3).tolist() == [[7.0] * 3] * 2
        assert strided.ops.aten.zeros.default([1]).tolist() == [7.0]
        assert seen == [((2, 3), None, None, None, None), ((1,), None, None, None, None)]
        meta = strided.zeros(2, device="meta")          # the Meta kernel is untouched
        assert meta.device.type == "meta" and len(seen) == 2
    finally:
        lib._destroy()
    assert strided.zeros(2, 3).tolist() == [[0.0] * 3] * 2
    assert len(seen) == 2


def test_overriding_clone_beats_its_composite_explicit_kernel_until_destroyed():
    t = strided.tensor([1.0, 2.0])
    lib = Library("aten", "IMPL")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")              # no kernel to override: no warning
            lib.impl("clone", lambda self, memory_format: strided.full_like(self, -1.0), "CPU")
        assert t.clone().tolist() == [-1.0, -1.0]
        assert strided.clone(t).tolist() == [-1.0, -1.0]
        meta = strided.ones(2, device="meta").clone()   # Meta: still CompositeExplicitAutograd
        assert meta.device.type == "meta"
    finally:
        lib._destroy()
    assert t.clone().tolist() == [1.0, 2.0]
    assert list(dispatcher.get_op("aten::clone").kernels[K.CPU]) == []


def test_library_garbage_collection_undoes_its_registrations(ns):
    lib = Library(ns, "DEF")
    lib.define("g(Tensor x) -> Tensor")
    lib.impl("g", lambda x: x, "CPU")
    assert dispatcher.find_op(f"{ns}::g") is not None
    del lib
    gc.collect()
    assert dispatcher.find_op(f"{ns}::g") is None
    lib = Library(ns, "DEF")     # the namespace is free again
    lib._destroy()


def test_destroy_restores_the_previous_kernel_not_the_original(ns, libs):
    libs(ns, "DEF").define("f(Tensor x) -> Tensor")
    first, second = libs(ns, "IMPL"), libs(ns, "IMPL")
    first.impl("f", lambda x: "first", "CPU")
    with pytest.warns(UserWarning, match="Overriding"):
        second.impl("f", lambda x: "second", "CPU")
    x = strided.ones(1)
    assert _ops(ns).f(x) == "second"
    second._destroy()
    assert _ops(ns).f(x) == "first"
    first._destroy()
    with pytest.raises(NotImplementedError):
        _ops(ns).f(x)


def test_the_same_function_registered_twice_is_undone_once_per_registration(ns, libs):
    libs(ns, "DEF").define("f(Tensor x) -> Tensor")
    a, b = libs(ns, "IMPL"), libs(ns, "IMPL")

    def kernel(x):
        return "k"
    a.impl("f", kernel, "CPU")
    with pytest.warns(UserWarning):
        b.impl("f", kernel, "CPU")
    a._destroy()
    assert _ops(ns).f(strided.ones(1)) == "k"
    b._destroy()
    with pytest.raises(NotImplementedError):
        _ops(ns).f(strided.ones(1))


# -- the fallback chain ---------------------------------------------------------------------

def test_fallback_chain_each_step_and_its_undo(ns, libs):
    libs(ns, "DEF").define("chain(Tensor x) -> Tensor")
    x = strided.ones(1)
    op = _ops(ns).chain
    with pytest.raises(NotImplementedError, match=f"Could not run '{ns}::chain' with arguments "
                                                  f"from the 'CPU' backend"):
        op(x)
    backend = libs("_", "IMPL")
    backend.fallback(lambda opov, *args: ("fallback", opov, args), "CPU")
    kind, seen_op, args = op(x)
    assert kind == "fallback" and seen_op is op.default and args[0] is x
    steps = [("CompositeImplicitAutograd", "implicit"), ("CompositeExplicitAutograd", "explicit"),
             ("CPU", "direct")]
    step_libs = []
    for key, name in steps:
        lib = libs(ns, "IMPL")
        lib.impl("chain", lambda t, name=name: name, key)
        step_libs.append(lib)
        assert op(x) == name
    for lib, expected in zip(reversed(step_libs), ["explicit", "implicit", "fallback"]):
        lib._destroy()
        assert op(x) == expected or op(x)[0] == expected
    backend._destroy()
    with pytest.raises(NotImplementedError):
        op(x)


def test_explicit_autograd_does_not_serve_the_autograd_key(ns, libs):
    lib = libs(ns, "DEF")
    lib.define("f(Tensor x) -> Tensor")
    lib.impl("f", lambda x: "explicit", "CompositeExplicitAutograd")
    handle = dispatcher.get_op(f"{ns}::f")
    assert handle.resolved_key(K.Autograd) is K.Autograd      # the fallthrough fallback
    lib.impl("f", lambda x: "implicit", "CompositeImplicitAutograd")
    assert handle.resolved_key(K.Autograd) is K.CompositeImplicitAutograd


def test_autograd_kernel_and_fallthrough(ns, libs):
    lib = libs(ns, "DEF")
    lib.define("f(Tensor x) -> Tensor")
    lib.impl("f", lambda x: "cpu", "CPU")
    handle = dispatcher.get_op(f"{ns}::f")
    x = strided.ones(1)
    keyset = x._keyset | K.Autograd.bit

    def autograd_kernel(t):
        return ("autograd", handle.redispatch(keyset & ~K.Autograd.bit, t))

    ag = libs(ns, "IMPL")
    ag.impl("f", autograd_kernel, "AutogradCPU")          # every Autograd* name is Autograd
    assert _ops(ns).f.default.redispatch(keyset, x) == ("autograd", "cpu")
    ft = libs(ns, "IMPL")
    with pytest.warns(UserWarning, match="Overriding"):
        ft.impl("f", fallthrough_kernel, "Autograd")
    assert _ops(ns).f.default.redispatch(keyset, x) == "cpu"
    ft._destroy()
    assert _ops(ns).f.default.redispatch(keyset, x) == ("autograd", "cpu")


def test_impl_with_keyset_passes_the_key_set_first(ns, libs):
    lib = libs(ns, "DEF")
    lib.define("f(Tensor x, Tensor[] ys) -> Tensor")
    lib.impl("f", lambda keyset, x, ys: keyset, "CompositeImplicitAutograd", with_keyset=True)
    cpu, meta = strided.ones(1), strided.ones(1, device="meta")
    assert _ops(ns).f(cpu, []) == K.CPU.bit
    assert _ops(ns).f(cpu, [meta]) == K.CPU.bit | K.Meta.bit


def test_fallback_only_on_the_global_namespace_and_once_per_key(ns, libs):
    with pytest.raises(RuntimeError, match='Fallback can only be registered using library '
                                           'fragment on the global namespace "_"'):
        libs(ns, "FRAGMENT").fallback(lambda op, *a: None, "CPU")
    with pytest.raises(AssertionError, match="dispatch_key must not be empty for fallback"):
        libs("_", "IMPL").fallback(lambda op, *a: None)
    first = libs("_", "IMPL")
    first.fallback(lambda op, *a: None, "Meta")
    with pytest.raises(RuntimeError, match="Tried to register multiple backend fallbacks for "
                                           "the same dispatch key Meta"):
        libs("_", "IMPL").fallback(lambda op, *a: None, "Meta")
    first._destroy()
    libs("_", "IMPL").fallback(lambda op, *a: None, "Meta")


def test_fallback_messages_match_torch(ns, libs, torch_libs):
    assert_same_error(lambda: libs(ns).fallback(lambda *a: None, "CPU"),
                      lambda: torch_libs(ns).fallback(lambda *a: None, "CPU"))


def test_fallthrough_fallback_passes_calls_on(ns, libs):
    lib = libs(ns, "DEF")
    lib.define("f(Tensor x) -> Tensor")
    lib.impl("f", lambda x: "cpu", "CPU")
    handle = dispatcher.get_op(f"{ns}::f")
    ks = K.CPU.bit | K.Python.bit
    capture = libs("_", "IMPL")
    capture.fallback(lambda op, *args: ("python", op.name()), "Python")
    assert handle.call(ks, strided.ones(1)) == ("python", f"{ns}::f")
    capture._destroy()
    assert handle.call(ks, strided.ones(1)) == "cpu"     # back to the default fallthrough


def test_fallback_reaches_aten_operators_too():
    t = strided.ones(2, device="meta")
    lib = Library("_", "IMPL")
    try:
        seen = []
        lib.fallback(lambda op, *args: seen.append(op.name()) or "python", "Python")
        handle = dispatcher.get_op("aten::clone")
        assert handle.call(t._keyset | K.Python.bit, t, None) == "python"
        assert seen == ["aten::clone"]
    finally:
        lib._destroy()


# -- dispatch hooks -------------------------------------------------------------------------

def test_dispatch_hooks_see_library_operators(ns, libs):
    lib = libs(ns, "DEF")
    lib.define("f(Tensor x, int k=3) -> Tensor")
    lib.impl("f", lambda x, k: k, "CPU")
    events = []

    def hook(op, key, args):
        events.append((op.qualname, key.name, args[1:]))
        return lambda result: events.append(("result", result))

    x = strided.ones(1)
    remove = strided.add_dispatch_hook(hook)
    try:
        assert _ops(ns).f(x, k=4) == 4
    finally:
        remove()
    _ops(ns).f(x)
    assert events == [(f"{ns}::f", "CPU", (4,)), ("result", 4)]


# -- define errors --------------------------------------------------------------------------

def test_duplicate_define_raises(ns, libs):
    lib = libs(ns, "DEF")
    lib.define("f(Tensor x) -> Tensor")
    with pytest.raises(RuntimeError, match=rf"Tried to register an operator \({ns}::f\(Tensor x\)"
                                           rf" -> Tensor\) with the same name and overload name "
                                           rf"multiple times"):
        lib.define("f(Tensor x) -> Tensor")
    with pytest.raises(RuntimeError, match="same name and overload name"):
        libs(ns, "FRAGMENT").define("f(Tensor y) -> Tensor")
    lib.define("f.other(Tensor x) -> Tensor")    # another overload is fine


def test_duplicate_define_message_matches_torch(libs, torch_libs):
    def recipe(make, nsname):
        lib = make(nsname, "DEF")
        lib.define("f(Tensor x) -> Tensor")
        lib.define("f(Tensor x) -> Tensor")
    sns, tns = _unique_ns(), _unique_ns()
    with pytest.raises(RuntimeError) as es:
        recipe(libs, sns)
    with pytest.raises(RuntimeError) as et:
        recipe(torch_libs, tns)

    def head(e, nsname):
        return str(e.value).replace(nsname, "NS").split(" Duplicate registration")[0]
    assert head(es, sns) == head(et, tns)


def test_one_def_library_per_namespace(ns, libs, torch_libs):
    libs(ns, "DEF")
    torch_libs(ns, "DEF")

    def first_sentences(fn):
        with pytest.raises(RuntimeError) as info:
            fn()
        return str(info.value).split(" Previous registration")[0]
    assert first_sentences(lambda: libs(ns, "DEF")) == \
        first_sentences(lambda: torch_libs(ns, "DEF"))
    assert first_sentences(lambda: libs("aten", "DEF")) == \
        first_sentences(lambda: torch_libs("aten", "DEF"))
    libs(ns, "FRAGMENT").define("extra(Tensor x) -> Tensor")    # fragments may add ops


def test_library_errors_match_torch(ns, libs, torch_libs):
    assert_same_error(lambda: libs(ns, "FOO"), lambda: torch_libs(ns, "FOO"))
    assert_same_error(lambda: libs("prim", "DEF"), lambda: torch_libs("prim", "DEF"))
    assert_same_error(lambda: libs(ns, "DEF").define("f(Tensor x) -> Tensor", "PURE"),
                      lambda: torch_libs(ns, "DEF").define("f(Tensor x) -> Tensor", "PURE"))
    assert_same_error(lambda: libs(ns, "FRAGMENT").impl("f", 3, "CPU"),
                      lambda: torch_libs(ns, "FRAGMENT").impl("f", 3, "CPU"))
    assert_same_error(lambda: libs(ns, "FRAGMENT").impl(3, lambda x: x, "CPU"),
                      lambda: torch_libs(ns, "FRAGMENT").impl(3, lambda x: x, "CPU"))
    assert_same_error(lambda: libs(ns, "FRAGMENT").impl("f", lambda x: x, "NoSuchKey"),
                      lambda: torch_libs(ns, "FRAGMENT").impl("f", lambda x: x, "NoSuchKey"))
    assert_same_error(lambda: slib.define("nonamespace", "(Tensor x) -> Tensor"),
                      lambda: torch.library.define("nonamespace", "(Tensor x) -> Tensor"))
    assert_same_error(lambda: slib.define(f"{ns}::g", "g(Tensor x) -> Tensor"),
                      lambda: torch.library.define(f"{ns}::g", "g(Tensor x) -> Tensor"))


def test_impl_library_cannot_define(ns, libs, torch_libs):
    def head(fn):
        with pytest.raises(RuntimeError) as info:
            fn()
        return str(info.value).split("(Error occurred")[0]
    assert head(lambda: libs(ns, "IMPL").define("f(Tensor x) -> Tensor")) == \
        head(lambda: torch_libs(ns, "IMPL").define("f(Tensor x) -> Tensor"))


def test_namespace_in_schema_or_name_must_match(ns, libs):
    lib = libs(ns, "DEF")
    with pytest.raises(RuntimeError, match=r"Explicitly provided namespace \(other\) in schema "
                                           r"string does not match namespace"):
        lib.define("other::f(Tensor x) -> Tensor")
    with pytest.raises(RuntimeError, match=r"Explicitly provided namespace \(other\) in "
                                           r"operator name does not match"):
        lib.impl("other::f", lambda x: x, "CPU")


def test_destroyed_library_refuses_registrations(ns, libs, torch_libs):
    def recipe(make):
        lib = make(ns if make is libs else ns + "t", "DEF")
        lib._destroy()
        lib._destroy()                       # twice is fine
        return lib

    s, t = recipe(libs), recipe(torch_libs)
    assert_same_error(lambda: s.define("f(Tensor x) -> Tensor"),
                      lambda: t.define("f(Tensor x) -> Tensor"))
    assert_same_error(lambda: s.impl("f", lambda x: x, "CPU"),
                      lambda: t.impl("f", lambda x: x, "CPU"))


def test_bad_schema_is_a_runtime_error(ns, libs):
    with pytest.raises(RuntimeError, match="unknown type 'Tenso'"):
        libs(ns, "DEF").define("f(Tensor x) -> Tenso")


def test_impl_of_an_undefined_operator_raises(ns, libs):
    with pytest.raises(RuntimeError, match=f"there is no operator {ns}::nope"):
        libs(ns, "FRAGMENT").impl("nope", lambda x: x, "CPU")


def test_meta_kernel_refused_for_composite_implicit_ops(ns, libs, torch_libs):
    def recipe(make, nsname):
        lib = make(nsname, "DEF")
        lib.define("f(Tensor x) -> Tensor")
        lib.impl("f", lambda x: x, "CompositeImplicitAutograd")
        lib.impl("f", lambda x: x, "Meta")
    assert_same_error(lambda: recipe(libs, ns), lambda: recipe(torch_libs, ns + "t"))


def test_allow_override_false(ns, libs, torch_libs):
    def recipe(make, nsname):
        lib = make(nsname, "DEF")
        lib.define("f(Tensor x) -> Tensor")
        lib.impl("f", lambda x: x, "CPU")
        lib.impl("f", lambda x: x, "CPU", allow_override=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same_error(lambda: recipe(libs, ns), lambda: recipe(torch_libs, ns))


# -- the generic binder ------------------------------------------------------------------------

ALL_TYPES = (
    "every(Tensor x, Tensor? y, Tensor[] zs, int[] dims=[0, 1], int[2] pad=1, float eps=1e-05, "
    "bool flag=True, Scalar alpha=1, str mode=\"mean\", ScalarType? dtype=None, "
    "Device? device=None, *, int k=3, ScalarType st=long, MemoryFormat mf=contiguous_format, "
    "float[] ws=[], SymInt n=-1) -> Tensor")


def test_binder_fills_defaults_and_converts_every_type(ns, libs):
    lib = libs(ns, "DEF")
    lib.define(ALL_TYPES)
    calls = []
    lib.impl("every", lambda *args: calls.append(args) or args[0], "CompositeImplicitAutograd")
    x = strided.ones(2)
    assert _ops(ns).every(x, None, []) is x
    assert calls[-1] == (x, None, (), (0, 1), (1, 1), 1e-05, True, 1, "mean", None, None, 3,
                         strided.int64, strided.contiguous_format, (), -1)
    y, z = strided.zeros(1), strided.zeros(3)
    _ops(ns).every.default(
        x, y, (z,), dims=[np.int64(2)], pad=[3, 4], eps=2, flag=False, alpha=2.5, mode="sum",
        dtype=strided.float64, device="meta", k=np.int32(9), st=strided.int8,
        mf=strided.channels_last, ws=[1, 2.5], n=7)
    args = calls[-1]
    assert args[:5] == (x, y, (z,), (2,), (3, 4))
    assert args[5] == 2.0 and type(args[5]) is float
    assert args[6:10] == (False, 2.5, "sum", strided.float64)
    assert args[10] is strided.device("meta")
    assert args[11] == 9 and type(args[11]) is int
    assert args[12:] == (strided.int8, strided.channels_last, (1.0, 2.5), 7)
    assert all(type(w) is float for w in args[14])


def test_binder_key_set_is_the_or_of_tensor_arguments(ns, libs):
    lib = libs(ns, "DEF")
    lib.define("pick(Tensor? a, Tensor[] bs) -> str")
    lib.impl("pick", lambda a, bs: "cpu", "CPU")
    lib.impl("pick", lambda a, bs: "meta", "Meta")
    cpu, meta = strided.ones(1), strided.ones(1, device="meta")
    assert _ops(ns).pick(cpu, []) == "cpu"
    assert _ops(ns).pick(None, [cpu, meta]) == "meta"     # Meta outranks CPU
    assert _ops(ns).pick(meta, [cpu]) == "meta"
    assert _ops(ns).pick(None, []) == "cpu"               # no tensors: the CPU key set


def test_binder_without_tensors_dispatches_on_the_device_argument(ns, libs):
    lib = libs(ns, "DEF")
    lib.define("make(int n, *, Device? device=None) -> Tensor")
    lib.impl("make", lambda n, device: strided.zeros(n, device=device), "CPU")
    lib.impl("make", lambda n, device: ("meta kernel", n), "Meta")
    assert _ops(ns).make(3).tolist() == [0.0, 0.0, 0.0]
    assert _ops(ns).make(3, device="meta") == ("meta kernel", 3)
    assert _ops(ns).make(3, device=strided.device("cpu")).device.type == "cpu"


def test_bad_arguments_raise_type_errors(ns, libs):
    lib = libs(ns, "DEF")
    lib.define("f(Tensor x, int k=2, *, float scale=1.0) -> Tensor")
    lib.impl("f", lambda x, k, scale: x, "CPU")
    f, x = _ops(ns).f, strided.ones(1)
    cases = [
        (lambda: f(x, "a"), f"{ns}::f(): argument 'k' (position 2) must be int, not str"),
        (lambda: f(x, 2.5), f"{ns}::f(): argument 'k' (position 2) must be int, not float"),
        (lambda: f(x, 1, 2), f"{ns}::f() takes 2 positional arguments but 3 were given"),
        (lambda: f(x, z=1), f"{ns}::f() got an unexpected keyword argument 'z'"),
        (lambda: f(), f'{ns}::f() missing 1 required positional argument: "x"'),
        (lambda: f(3), f"{ns}::f(): argument 'x' (position 1) must be Tensor, not int"),
        (lambda: f(x, scale="s"), f"{ns}::f(): argument 'scale' must be float, not str"),
        (lambda: f(x, x=x), f"{ns}::f() got multiple values for argument 'x'"),
        (lambda: f.default(x, True), f"{ns}::f(): argument 'k' (position 2) must be int, not bool"),
    ]
    for call, message in cases:
        with pytest.raises(TypeError) as info:
            call()
        assert str(info.value) == message


def test_bad_arguments_for_several_overloads_list_them_all(ns, libs):
    lib = libs(ns, "DEF")
    lib.define("g.int(Tensor x, int k) -> Tensor")
    lib.define("g.Tensor(Tensor x, Tensor k) -> Tensor")
    with pytest.raises(TypeError) as info:
        _ops(ns).g(strided.ones(1), "no")
    assert str(info.value) == (
        f"{ns}::g() received an invalid combination of arguments - got (Tensor, str), but "
        f"expected one of:\n"
        f" * (Tensor x, int k)\n"
        f"      didn't match because some of the arguments have invalid types: (Tensor, !str!)\n"
        f" * (Tensor x, Tensor k)\n"
        f"      didn't match because some of the arguments have invalid types: (Tensor, !str!)\n")


def test_packet_picks_the_first_overload_that_accepts_the_arguments(ns, libs):
    lib = libs(ns, "DEF")
    lib.define("g.int(Tensor x, int k) -> str")
    lib.define("g.Tensor(Tensor x, Tensor k) -> str")
    lib.define("g(Tensor x) -> str")
    for overload in ("int", "Tensor", "default"):
        lib.impl(f"g.{overload}" if overload != "default" else "g",
                 lambda *a, o=overload: o, "CPU")
    g, x = _ops(ns).g, strided.ones(1)
    assert (g(x, 1), g(x, x), g(x), g(x, k=x)) == ("int", "Tensor", "default", "Tensor")
    assert g.overloads() == ["int", "Tensor", "default"]


def test_packet_sees_overloads_defined_later_and_forgets_destroyed_ones(ns, libs):
    libs(ns, "DEF").define("h(Tensor x) -> Tensor")
    packet = _ops(ns).h
    assert packet.overloads() == ["default"]
    extra = libs(ns, "FRAGMENT")
    extra.define("h.two(Tensor x, Tensor y) -> Tensor")
    extra.impl("h.two", lambda x, y: "two", "CPU")
    assert packet.overloads() == ["default", "two"]
    assert packet(strided.ones(1), strided.ones(1)) == "two"
    overload = packet.two
    extra._destroy()
    assert packet.overloads() == ["default"]
    with pytest.raises(AttributeError, match=f"The underlying op of '{ns}.h' has no overload "
                                             f"name 'two'"):
        _ = packet.two
    with pytest.raises(RuntimeError, match=f"operator {ns}::h.two was deleted"):
        overload(strided.ones(1), strided.ones(1))


def test_redefined_operator_gets_a_fresh_overload(ns):
    first = Library(ns, "DEF")
    first.define("f(Tensor x) -> Tensor")
    first.impl("f", lambda x: "first", "CPU")
    stale = _ops(ns).f.default
    first._destroy()
    with pytest.raises(AttributeError):
        _ = _ops(ns).f
    second = Library(ns, "DEF")
    try:
        second.define("f(Tensor x, int k=0) -> Tensor")
        second.impl("f", lambda x, k: ("second", k), "CPU")
        assert _ops(ns).f(strided.ones(1)) == ("second", 0)
        assert str(_ops(ns).f.default._schema) == "f(Tensor x, int k=0) -> Tensor"
        with pytest.raises(RuntimeError, match="was deleted"):
            stale(strided.ones(1))
    finally:
        second._destroy()


# -- strided.ops ----------------------------------------------------------------------------

def test_op_overload_objects(ns, libs):
    lib = libs(ns, "DEF")
    lib.define("f(Tensor x) -> Tensor")
    lib.define("f.ov(Tensor x, int k) -> Tensor")
    ov = _ops(ns).f.ov
    assert ov is _ops(ns).f.ov
    assert isinstance(ov._schema, FunctionSchema)
    assert str(ov._schema) == "f.ov(Tensor x, int k) -> Tensor"
    assert ov.name() == f"{ns}::f.ov" and _ops(ns).f.default.name() == f"{ns}::f"
    assert repr(ov) == f"<OpOverload(op='{ns}.f', overload='ov')>"
    assert str(ov) == f"{ns}.f.ov"
    assert ov.overloadpacket is _ops(ns).f
    assert repr(_ops(ns).f) == f"<OpOverloadPacket(op='{ns}.f')>"
    assert _ops(ns).f._qualified_op_name == f"{ns}::f"
    assert set(_ops(ns).f._schemas) == {"default", "ov"}
    assert "f" in dir(_ops(ns))
    lib.impl(_ops(ns).f.ov, lambda x, k: k, "CPU")           # impl takes an OpOverload
    assert ov(strided.ones(1), 5) == 5


def test_op_objects_print_like_torch(ns, libs, torch_libs):
    libs(ns, "DEF").define("f.ov(Tensor x) -> Tensor")
    torch_libs(ns, "DEF").define("f.ov(Tensor x) -> Tensor")
    s, t = _ops(ns).f, getattr(torch.ops, ns).f
    assert (repr(s), str(s), repr(s.ov), str(s.ov), s.ov.name(), s.overloads()) == \
        (repr(t), str(t), repr(t.ov), str(t.ov), t.ov.name(), t.overloads())
    assert_same_error(lambda: _ops(ns).nope, lambda: getattr(torch.ops, ns).nope)
    assert_same_error(lambda: _ops(ns).f.nope, lambda: getattr(torch.ops, ns).f.nope)


def test_strided_ops_coexists_with_the_ops_package():
    import strided.ops as ops_pkg
    assert strided.ops is ops_pkg
    assert strided.ops.dispatcher is dispatcher
    assert strided.ops.aten is strided.ops.aten
    assert isinstance(strided.ops.aten, op_namespace.OpNamespace)
    assert op_namespace.namespace("dispatcher") is not dispatcher
    assert not hasattr(strided.ops, "__wrapped__")


@pytest.mark.parametrize("recipe", [
    lambda m: m.ops.aten.zeros.default([2, 3]),
    lambda m: m.ops.aten.zeros([2, 3], dtype=m.float64),
    lambda m: m.ops.aten.zeros((2,), device="meta"),
    lambda m: m.ops.aten.ones.default([3]),
    lambda m: m.ops.aten.transpose.int(m.ones(2, 3), 0, 1),
    lambda m: m.ops.aten.t(m.ones(2, 3)),
    lambda m: m.ops.aten.clone.default(m.ones(2, 3).t(), memory_format=m.contiguous_format),
    lambda m: m.ops.aten.full.default([2], 1.5),
    lambda m: m.ops.aten.empty_like.default(m.ones(2, 3, device="meta")),
])
def test_aten_operators_by_name_match_torch(recipe):
    check(recipe)


# -- the same library code through torch and strided ----------------------------------------------

def _scale_library(lib, ns):
    m = torch if isinstance(lib, torch.library.Library) else strided
    lib.define("scale(Tensor x, int k=2) -> Tensor")
    lib.define("scale.out_shape(Tensor x, int[] shape) -> Tensor")
    lib.impl("scale", lambda x, k=2: m.full_like(x, k), "CPU")
    lib.impl("scale", lambda x, k=2: m.empty_like(x), "Meta")
    lib.impl("scale.out_shape", lambda x, shape: m.zeros(shape, dtype=x.dtype),
             "CompositeExplicitAutograd")
    ops = getattr(m.ops, ns)
    return (ops.scale(m.ones(2, 3)), ops.scale(m.ones(2), 5), ops.scale.default(m.ones(2), k=4),
            ops.scale(m.ones(3, device="meta")),
            ops.scale(m.ones(2, dtype=m.float64), [2, 2]),
            ops.scale.out_shape(m.ones(1, device="meta"), [4]))


def test_define_impl_call_matches_torch():
    check(lambda m: _run_with_library(m, _scale_library))


def test_missing_kernel_error_type_matches_torch():
    def body(lib, ns):
        lib.define("f(Tensor x) -> Tensor")
        m = torch if isinstance(lib, torch.library.Library) else strided
        lib.impl("f", lambda x: x, "CPU")
        return getattr(m.ops, ns).f(m.ones(1, device="meta"))
    with pytest.raises(AssertionError, match="message differs"):
        check(lambda m: _run_with_library(m, body))       # torch lists its many extra keys


def test_composite_implicit_kernel_runs_on_meta_like_torch():
    def body(lib, ns):
        m = torch if isinstance(lib, torch.library.Library) else strided
        lib.define("twice(Tensor x) -> Tensor")
        lib.impl("twice", lambda x: m.full_like(x, 2), "CompositeImplicitAutograd")
        ops = getattr(m.ops, ns)
        return ops.twice(m.ones(2)), ops.twice(m.ones(2, device="meta"))
    check(lambda m: _run_with_library(m, body))


# -- module-level helpers ------------------------------------------------------------------------

def test_module_level_define_impl_and_register_fake(ns, libs):
    lib = libs(ns, "FRAGMENT")
    slib.define(f"{ns}::mul2", "(Tensor x) -> Tensor", lib=lib)

    @slib.impl(f"{ns}::mul2", "cpu", lib=lib)
    def mul2_cpu(x):
        return strided.full_like(x, 2)

    @slib.register_fake(f"{ns}::mul2", lib=lib)
    def mul2_fake(x):
        return ("fake", tuple(x.shape))

    assert mul2_cpu.__name__ == "mul2_cpu" and mul2_fake.__name__ == "mul2_fake"
    assert _ops(ns).mul2(strided.ones(2)).tolist() == [2.0, 2.0]
    assert _ops(ns).mul2(strided.ones(3, device="meta")) == ("fake", (3,))
    handle = dispatcher.get_op(f"{ns}::mul2")
    assert set(handle.kernels) == {K.CPU, K.Meta}


def test_module_level_impl_types(ns, libs):
    lib = libs(ns, "FRAGMENT")
    slib.define(f"{ns}::a", "(Tensor x) -> Tensor", lib=lib)
    slib.define(f"{ns}::b", "(Tensor x) -> Tensor", lib=lib)
    slib.define(f"{ns}::c", "(Tensor x) -> Tensor", lib=lib)
    slib.impl(f"{ns}::a", ["cpu", "meta"], lambda x: "both", lib=lib)
    slib.impl(f"{ns}::b", "default", lambda x: "default", lib=lib)
    slib.impl(f"{ns}::c", "CompositeImplicitAutograd", lambda x: "cia", lib=lib)
    assert set(dispatcher.get_op(f"{ns}::a").kernels) == {K.CPU, K.Meta}
    assert set(dispatcher.get_op(f"{ns}::b").kernels) == {K.CompositeExplicitAutograd}
    assert set(dispatcher.get_op(f"{ns}::c").kernels) == {K.CompositeImplicitAutograd}
    meta = strided.ones(1, device="meta")
    assert (_ops(ns).a(meta), _ops(ns).b(meta), _ops(ns).c(meta)) == ("both", "default", "cia")
    with pytest.raises(RuntimeError, match="device type at start of device string: gpu"):
        slib.impl(f"{ns}::a", "gpu", lambda x: x, lib=lib)


def test_module_level_helpers_without_a_library_keep_theirs_alive(ns):
    before = len(slib._keep_alive)
    try:
        slib.define(f"{ns}::kept", "(Tensor x) -> Tensor")
        slib.register_kernel(f"{ns}::kept", None, lambda x: "kept")
        gc.collect()
        assert _ops(ns).kept(strided.ones(1)) == "kept"
        assert len(slib._keep_alive) == before + 2
    finally:
        for lib in slib._keep_alive[before:]:
            lib._destroy()
        del slib._keep_alive[before:]
    assert dispatcher.find_op(f"{ns}::kept") is None


def test_legacy_decorator_forms(ns, libs):
    lib = libs(ns, "DEF")

    @slib.define(lib, "legacy(Tensor x) -> Tensor")
    def legacy(x):
        return "legacy"

    assert _ops(ns).legacy(strided.ones(1)) == "legacy"

    @slib.impl(lib, "legacy", "CPU")
    def legacy_cpu(x):
        return "legacy cpu"

    assert set(dispatcher.get_op(f"{ns}::legacy").kernels) == {K.CompositeImplicitAutograd,
                                                                  K.CPU}
    assert _ops(ns).legacy(strided.ones(1)) == "legacy cpu"
    assert _ops(ns).legacy(strided.ones(1, device="meta")) == "legacy"
    assert legacy.__name__ == "legacy" and legacy_cpu.__name__ == "legacy_cpu"


def test_register_fake_refuses_overrides_when_asked(ns, libs):
    lib = libs(ns, "DEF")
    lib.define("f(Tensor x) -> Tensor")
    slib.register_fake(f"{ns}::f", lambda x: x, lib=lib)
    with pytest.raises(RuntimeError, match=f"register_fake\\(...\\): the operator {ns}::f "
                                           f"already has a DispatchKey::Meta implementation"):
        slib.register_fake(f"{ns}::f", lambda x: x, lib=lib, allow_override=False)


def test_impl_abstract_is_a_deprecated_register_fake(ns, libs):
    lib = libs(ns, "DEF")
    lib.define("f(Tensor x) -> Tensor")
    with pytest.warns(FutureWarning, match="renamed to `torch.library.register_fake`"):
        slib.impl_abstract(f"{ns}::f", lambda x: "abstract", lib=lib)
    assert _ops(ns).f(strided.ones(1, device="meta")) == "abstract"


def test_register_fake_matches_torch_on_meta_tensors():
    def body(lib, ns):
        m = torch if isinstance(lib, torch.library.Library) else strided
        lib.define("expand2(Tensor x) -> Tensor")
        m.library.register_fake(f"{ns}::expand2", lambda x: m.empty((2,) + tuple(x.shape),
                                                                     device=x.device), lib=lib)
        return getattr(m.ops, ns).expand2(m.ones(3, 4, device="meta"))
    s, t = check(lambda m: _run_with_library(m, body))
    assert_same(s, t)
