"""nn.Module and nn.Parameter against torch: registration, traversal order and names,
state_dict / load_state_dict (keys, metadata, results, errors), hooks (order, return
values, removal), conversions, repr, deepcopy and pickle."""

from __future__ import annotations

import copy
import pickle
import warnings
from collections import OrderedDict

import pytest
import torch

import strided
from tests.conftest import assert_same, check

# -- models built the same way with either library ------------------------------------------


def _classes(m):
    nn = m.nn

    class Block(nn.Module):
        def __init__(self, n, extra=False):
            super().__init__()
            self.w = nn.Parameter(m.arange(float(n * 2), dtype=m.float64).reshape(n, 2))
            self.register_buffer("running", m.zeros(n, dtype=m.float64))
            self.register_buffer("scratch", m.ones(1), persistent=False)
            self.register_parameter("nothing", None)
            if extra:
                self.inner = nn.Linear(2, 2)

        def forward(self, x):
            return x * 2

        def extra_repr(self):
            return f"n={self.w.shape[0]}"

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = Block(3, extra=True)
            self.b = Block(2)
            self.shared = self.a            # the same module twice
            self.empty = None
            self.register_module("c", nn.Linear(3, 1, bias=False))
            self.bias = nn.Parameter(m.tensor([0.5], dtype=m.float64))
            self.alias = self.bias           # the same parameter under a second name
            self.register_buffer("steps", m.tensor(0))

        def forward(self, x):
            return self.c(self.a(x))

    class MultiLine(nn.Module):
        def __init__(self):
            super().__init__()
            self.child = Block(1)

        def extra_repr(self):
            return "first=1\nsecond=2"

    return Block, Net, MultiLine


def net(m):
    m.manual_seed(0)
    return _classes(m)[1]()


def names(it):
    return [n for n, _ in it]


# -- traversal ------------------------------------------------------------------------------


def test_named_members_order_and_dedup():
    def recipe(m):
        model = net(m)
        return (names(model.named_parameters()), names(model.named_buffers()),
                names(model.named_children()), names(model.named_modules()),
                names(model.named_modules(remove_duplicate=False)),
                names(model.named_parameters(remove_duplicate=False)),
                names(model.named_parameters(prefix="top", recurse=False)),
                names(model.named_buffers(prefix="x")),
                names(model.named_modules(prefix="root")),
                len(list(model.parameters())), len(list(model.buffers(recurse=False))),
                len(list(model.children())), len(list(model.modules())))
    check(recipe)


def test_parameters_are_the_same_objects():
    model = net(strided)
    params = dict(model.named_parameters())
    assert params["a.w"] is model.a.w
    assert params["bias"] is model.alias
    assert all(type(p) is strided.nn.Parameter for p in params.values())
    assert model._parameters["nothing" if False else "bias"] is model.bias


def test_state_dict_keys_values_metadata():
    def recipe(m):
        sd = net(m).state_dict()
        return (list(sd.keys()), list(sd._metadata.items()), type(sd).__name__,
                [type(v).__name__ for v in sd.values()], sd["a.w"], sd["steps"],
                sd["a.w"].requires_grad)
    check(recipe)

    def prefixed(m):
        model = net(m)
        sd = model.state_dict(prefix="p.", keep_vars=True)
        return list(sd.keys()), list(sd._metadata.keys()), sd["p.bias"] is model.bias
    check(prefixed)


def test_state_dict_positional_args_warn():
    def recipe(m):
        model = net(m)
        dest = OrderedDict()
        out = model.state_dict(dest, "q.")
        return out is dest, list(out.keys())[:3]
    check(recipe)


def test_state_dict_detached_but_shares_memory():
    model = net(strided)
    sd = model.state_dict()
    assert type(sd["a.w"]) is strided.Tensor and not sd["a.w"].requires_grad
    assert sd["a.w"].data_ptr() == model.a.w.data_ptr()


# -- registration and attribute errors ---------------------------------------------------


@pytest.mark.parametrize("case", range(16))
def test_registration_errors(case):
    def recipe(m):
        nn = m.nn
        mod = nn.Module()
        mod.x = 3
        mod.p = nn.Parameter(m.ones(1))
        mod.sub = nn.Module()
        mod.register_buffer("buf", m.ones(1))
        return [
            lambda: mod.register_buffer(1, m.ones(1)),
            lambda: mod.register_buffer("a.b", m.ones(1)),
            lambda: mod.register_buffer("", m.ones(1)),
            lambda: mod.register_buffer("x", m.ones(1)),
            lambda: mod.register_buffer("q", 3),
            lambda: mod.register_parameter(2, None),
            lambda: mod.register_parameter("a.b", None),
            lambda: mod.register_parameter("x", None),
            lambda: mod.register_parameter("q", m.ones(1)),
            lambda: mod.register_parameter("q", nn.Parameter(m.ones(1)) * 2),
            lambda: mod.add_module("q", 3),
            lambda: mod.add_module(1, nn.Module()),
            lambda: mod.add_module("x", nn.Module()),
            lambda: mod.add_module("a.b", nn.Module()),
            lambda: mod.add_module("", nn.Module()),
            lambda: setattr(mod, "p", m.ones(1)),
        ][case]()
    check(recipe)


@pytest.mark.parametrize("case", range(9))
def test_attribute_errors(case):
    def recipe(m):
        nn = m.nn
        mod = nn.Linear(2, 2)
        mod.sub = nn.Linear(1, 1)
        mod.register_buffer("buf", m.ones(1))
        return [
            lambda: mod.missing,
            lambda: setattr(mod, "sub", 3),
            lambda: setattr(mod, "buf", 3),
            lambda: setattr(mod, "weight", m.ones(2, 2)),
            lambda: delattr(mod, "missing"),
            lambda: nn.Linear.__init__(nn.Module.__new__(nn.Linear), 2, 2, foo=1),
            lambda: nn.Module(3),
            lambda: nn.Module(a=3),
            lambda: nn.Module()(1),
        ][case]()
    check(recipe)


def test_assign_before_init():
    def recipe(m):
        class Bad(m.nn.Module):
            def __init__(self):
                self.p = m.nn.Parameter(m.ones(1))
        return Bad()
    check(recipe)

    def recipe2(m):
        class Bad(m.nn.Module):
            def __init__(self):
                self.s = m.nn.Linear(1, 1)
        return Bad()
    check(recipe2)

    def recipe3(m):
        class Bad(m.nn.Module):
            def __init__(self):
                self.register_buffer("b", m.ones(1))
        return Bad()
    check(recipe3)


def test_reassignment_moves_between_kinds():
    def recipe(m):
        nn = m.nn
        mod = nn.Module()
        mod.a = nn.Parameter(m.ones(1))
        mod.a = nn.Linear(1, 1)              # parameter -> module
        r1 = (list(mod._parameters), list(mod._modules))
        mod.a = nn.Buffer(m.zeros(2), persistent=False)      # module -> buffer
        r2 = (list(mod._modules), list(mod._buffers), sorted(mod._non_persistent_buffers_set))
        mod.a = m.ones(3)                    # a buffer stays a buffer (and non-persistent)
        r3 = (list(mod._buffers), sorted(mod._non_persistent_buffers_set), mod.a)
        mod.b = 5
        mod.b = nn.Parameter(m.ones(1))      # plain attribute -> parameter
        r4 = ("b" in mod.__dict__, list(mod._parameters))
        mod.b = None                         # a parameter slot set to None stays
        del mod.a
        return r1, r2, r3, r4, list(mod._parameters.items()), list(mod._buffers)
    check(recipe)


def test_get_set_submodule_parameter_buffer():
    def recipe(m):
        model = net(m)
        return (model.get_submodule("a.inner") is model.a.inner,
                model.get_submodule("") is model,
                model.get_parameter("a.inner.weight") is model.a.inner.weight,
                model.get_parameter("bias") is model.bias,
                model.get_buffer("b.running") is model.b.running)
    check(recipe)
    for bad in ["a.nope", "a.w.x", "b.running.x"]:
        check(lambda m, bad=bad: net(m).get_submodule(bad))
    for bad in ["a.nope", "a.running", "x.w"]:
        check(lambda m, bad=bad: net(m).get_parameter(bad))
    for bad in ["a.nope", "a.w"]:
        check(lambda m, bad=bad: net(m).get_buffer(bad))

    def setter(m):
        model = net(m)
        model.set_submodule("a.inner", m.nn.Identity())
        model.set_submodule("fresh", m.nn.Identity())
        return names(model.named_modules())
    check(setter)
    check(lambda m: net(m).set_submodule("", m.nn.Identity()))
    check(lambda m: net(m).set_submodule("a.w", m.nn.Identity()))
    check(lambda m: net(m).set_submodule("a.zz", m.nn.Identity(), strict=True))


def test_set_submodule_type_error_message():
    with pytest.raises(ValueError, match="is not an nn.Module, found <class 'int'>"):
        net(strided).set_submodule("a", 3)


def test_dir_lists_members():
    def recipe(m):
        d = dir(net(m))
        return [k in d for k in ("a", "bias", "steps", "forward", "training", "c")], \
            d == sorted(d)
    check(recipe)


# -- load_state_dict ------------------------------------------------------------------------


def test_load_state_dict_roundtrip_and_result():
    def recipe(m):
        src, dst = net(m), net(m)
        with m.no_grad():
            for p in src.parameters():
                p.add_(1.5)
        res = dst.load_state_dict(src.state_dict())
        return (repr(res), str(res), res.missing_keys, res.unexpected_keys,
                dst.a.w, dst.c.weight, dst.a.w.requires_grad, type(dst.a.w).__name__)
    check(recipe)


def test_load_state_dict_not_strict():
    def recipe(m):
        model = net(m)
        sd = model.state_dict()
        del sd["a.w"]
        sd["extra"] = m.ones(1)
        sd["a.inner.nope"] = m.ones(1)
        sd["zz.k"] = m.ones(1)
        res = model.load_state_dict(sd, strict=False)
        return repr(res), res.missing_keys, res.unexpected_keys
    check(recipe)


@pytest.mark.parametrize("case", range(6))
def test_load_state_dict_errors(case):
    def recipe(m):
        model = net(m)
        sd = model.state_dict()
        if case == 0:
            del sd["a.w"], sd["steps"]
        elif case == 1:
            sd["extra"] = m.ones(1)
            sd["b.nope"] = m.ones(2)
        elif case == 2:
            sd["a.w"] = m.ones(4, 2)
            sd["c.weight"] = m.ones(1)
        elif case == 3:
            sd["bias"] = [1.0]
        elif case == 4:
            del sd["a.w"]
            sd["more"] = m.ones(1)
            sd["b.w"] = m.ones(7)
        else:
            return model.load_state_dict([("a", 1)])
        return model.load_state_dict(sd)
    check(recipe)


def test_failed_strict_load_changes_nothing():
    model = net(strided)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    sd = {k: v + 10 for k, v in model.state_dict().items()}
    sd["b.w"] = strided.ones(9)                  # one size mismatch among good entries
    with pytest.raises(RuntimeError, match="size mismatch for b.w"):
        model.load_state_dict(sd)
    for k, v in model.state_dict().items():
        assert strided.equal(v, before[k]), k
    # assign=True is undone too: the old parameter objects come back
    old = model.a.w
    sd2 = dict(sd)
    del sd2["steps"]
    with pytest.raises(RuntimeError, match="Missing key"):
        model.load_state_dict(sd2, assign=True)
    assert model.a.w is old
    # a successful load still applies everything
    del sd["b.w"]
    res = model.load_state_dict(sd, strict=False)
    assert res.missing_keys == ["b.w"] and res.unexpected_keys == []
    assert strided.equal(model.a.w, before["a.w"] + 10)


def test_load_state_dict_assign_and_scalar():
    def recipe(m):
        model = net(m)
        sd = {k: v.clone().double() for k, v in model.state_dict().items()}
        sd["steps"] = m.tensor([7])              # 0-d buffer loads a one-element 1-d tensor
        old = model.a.w
        model.load_state_dict(sd, strict=True, assign=True)
        return (model.a.w is old, type(model.a.w).__name__, model.a.w.requires_grad,
                model.c.weight.dtype, model.steps, model.steps.shape)
    check(recipe)


def test_load_state_dict_copies_across_dtype():
    def recipe(m):
        model = m.nn.Linear(2, 2)
        sd = {"weight": m.ones(2, 2, dtype=m.float64), "bias": m.zeros(2, dtype=m.int64)}
        model.load_state_dict(sd)
        return model.weight, model.bias
    check(recipe)


def test_versioned_load_from_state_dict_override():
    def recipe(m):
        class Renamed(m.nn.Module):
            _version = 2

            def __init__(self):
                super().__init__()
                self.new = m.nn.Parameter(m.zeros(2))

            def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict,
                                      missing_keys, unexpected_keys, error_msgs):
                if local_metadata.get("version", 1) < 2 and prefix + "old" in state_dict:
                    state_dict[prefix + "new"] = state_dict.pop(prefix + "old")
                super()._load_from_state_dict(state_dict, prefix, local_metadata, strict,
                                              missing_keys, unexpected_keys, error_msgs)

        outer = m.nn.Sequential(Renamed())
        sd = OrderedDict([("0.old", m.ones(2))])
        sd._metadata = OrderedDict([("", {"version": 1}), ("0", {"version": 1})])
        res = outer.load_state_dict(sd)
        return repr(res), outer[0].new, list(outer.state_dict()._metadata.items())
    check(recipe)


def test_extra_state():
    def recipe(m):
        class WithExtra(m.nn.Module):
            def __init__(self):
                super().__init__()
                self.value = 3

            def get_extra_state(self):
                return {"value": self.value}

            def set_extra_state(self, state):
                self.value = state["value"]

        a, b = WithExtra(), WithExtra()
        a.value = 9
        sd = a.state_dict()
        b.load_state_dict(sd)
        missing = b.load_state_dict({}, strict=False)
        return list(sd.keys()), b.value, repr(missing)
    check(recipe)
    check(lambda m: m.nn.Linear(1, 1).load_state_dict(
        {"weight": m.ones(1, 1), "bias": m.ones(1), "_extra_state": 1}))


# -- hooks -------------------------------------------------------------------------------


def test_forward_hooks_order_and_results():
    def recipe(m):
        log = []
        m.manual_seed(0)              # the same parameters in both libraries
        mod = m.nn.Linear(2, 2)
        glob = m.nn.modules.module.register_module_forward_pre_hook(
            lambda mod_, args: log.append("global_pre"))
        try:
            h1 = mod.register_forward_pre_hook(lambda mod_, args: (log.append("pre1"),
                                                                   (args[0] * 2,))[1])
            mod.register_forward_pre_hook(lambda mod_, args: log.append("pre0"), prepend=True)
            mod.register_forward_pre_hook(
                lambda mod_, args, kwargs: (log.append(("prekw", sorted(kwargs))), None)[1],
                with_kwargs=True)
            mod.register_forward_hook(lambda mod_, args, out: (log.append("post1"), out + 1)[1])
            mod.register_forward_hook(
                lambda mod_, args, kwargs, out: log.append(("postkw", len(args))),
                with_kwargs=True)
            mod.register_forward_hook(lambda mod_, args, out: log.append("post0"), prepend=True)
            x = m.ones(1, 2)
            out1 = mod(x)
            h1.remove()
            h1.remove()                   # twice is fine
            out2 = mod(x)
        finally:
            glob.remove()
        out3 = mod(x)
        return log, out1.detach(), out2.detach(), out3.detach()
    check(recipe, exact=False)


def test_forward_pre_hook_bad_return():
    def recipe(m):
        mod = m.nn.Identity()
        mod.register_forward_pre_hook(lambda mod_, a, k: 5, with_kwargs=True)
        return mod(m.ones(1))
    check(recipe)


def test_forward_pre_hook_replaces_args_and_kwargs():
    def recipe(m):
        class Two(m.nn.Module):
            def forward(self, x, scale=1.0):
                return x * scale
        mod = Two()
        mod.register_forward_pre_hook(lambda mod_, a, k: ((a[0] + 1,), {"scale": 3.0}),
                                      with_kwargs=True)
        return mod(m.ones(2), scale=2.0)
    check(recipe)


def test_always_call_forward_hooks():
    def recipe(m):
        log = []

        class Boom(m.nn.Module):
            def forward(self, x):
                raise ValueError("boom")
        mod = Boom()
        mod.register_forward_hook(lambda mod_, a, out: log.append(("always", out)),
                                  always_call=True)
        mod.register_forward_hook(lambda mod_, a, out: log.append("normal"))
        try:
            mod(m.ones(1))
        except ValueError as e:
            log.append(str(e))
        return log
    check(recipe)


def test_global_forward_hook_with_kwargs_and_handle_context():
    def recipe(m):
        log = []
        mm = m.nn.modules.module
        with mm.register_module_forward_hook(lambda mod, a, k, out: log.append(type(mod).__name__),
                                             with_kwargs=True):
            m.nn.Sequential(m.nn.Identity(), m.nn.Flatten())(m.ones(2, 2))
        m.nn.Identity()(m.ones(1))
        return log
    check(recipe)


def _hooked_backward(m):
    log = []

    class Scale(m.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = m.nn.Parameter(m.tensor([2.0, 3.0], dtype=m.float64))

        def forward(self, x, y, flag):
            return x * self.w + y, (x * y).sum()

    def pre(mod, grad_out):
        log.append(("pre", [None if g is None else g.tolist() for g in grad_out]))
        return (grad_out[0] * 10, grad_out[1])

    def full(mod, grad_in, grad_out):
        log.append(("full", [None if g is None else g.tolist() for g in grad_in],
                    [None if g is None else g.tolist() for g in grad_out]))
        return (grad_in[0] + 1, grad_in[1], None)

    mod = Scale()
    mod.register_full_backward_pre_hook(pre)
    mod.register_full_backward_hook(full)
    x = m.tensor([1.0, 2.0], dtype=m.float64, requires_grad=True)
    y = m.tensor([0.5, 0.25], dtype=m.float64, requires_grad=True)
    a, b = mod(x, y, "flag")
    names_ = (a.grad_fn.name(), b.grad_fn.name())
    (a.sum() * 2 + b).backward()
    return log, names_, x.grad, y.grad, mod.w.grad


def test_full_backward_hooks():
    check(_hooked_backward)


def test_full_backward_hook_no_input_requires_grad():
    def recipe(m):
        log = []
        mod = m.nn.Linear(2, 1).double()
        mod.register_full_backward_hook(
            lambda mod_, gi, go: log.append((gi, [g.shape for g in go])))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            mod(m.ones(3, 2, dtype=m.float64)).sum().backward()
        return log
    check(recipe, warns=False)


def test_backward_hook_errors():
    def mixed(m):
        mod = m.nn.Identity()
        mod.register_backward_hook(lambda *a: None)
        mod.register_full_backward_hook(lambda *a: None)
    check(mixed)

    def bad_len(m):
        mod = m.nn.Linear(2, 2).double()
        mod.register_full_backward_hook(lambda mod_, gi, go: (gi[0], gi[0]))
        mod(m.ones(1, 2, dtype=m.float64, requires_grad=True)).sum().backward()
    check(bad_len)


def test_state_dict_hooks():
    def recipe(m):
        log = []
        mod = m.nn.Linear(1, 1)
        mod.register_state_dict_pre_hook(lambda mod_, prefix, keep: log.append(("pre", prefix)))

        def post(mod_, sd, prefix, meta):
            log.append(("post", list(sd), dict(meta)))
            sd[prefix + "added"] = 1
        mod.register_state_dict_post_hook(post)
        sd = m.nn.Sequential(mod).state_dict()
        return log, list(sd)
    check(recipe)

    def replacing(m):
        mod = m.nn.Linear(1, 1)
        mod._register_state_dict_hook(lambda mod_, sd, prefix, meta: {"only": 1})
        return mod.state_dict()
    check(replacing)

    def bad_post(m):
        mod = m.nn.Linear(1, 1)
        mod.register_state_dict_post_hook(lambda mod_, sd, prefix, meta: 1)
        return mod.state_dict()
    check(bad_post)


def test_load_state_dict_hooks():
    def recipe(m):
        log = []
        inner = m.nn.Linear(1, 1)
        outer = m.nn.Sequential(inner)

        def pre(mod, sd, prefix, meta, strict, missing, unexpected, errors):
            log.append(("pre", type(mod).__name__, prefix, sorted(sd), strict))

        def post(mod, keys):
            log.append(("post", type(mod).__name__, list(keys.missing_keys)))
            keys.missing_keys.clear()         # forgive what is missing
        inner.register_load_state_dict_pre_hook(pre)
        inner.register_load_state_dict_post_hook(post)
        outer.register_load_state_dict_post_hook(
            lambda mod, keys: log.append(("outer_post", list(keys.missing_keys))))
        res = outer.load_state_dict({"0.weight": m.ones(1, 1)})
        return log, repr(res)
    check(recipe)

    def bad(m):
        mod = m.nn.Linear(1, 1)
        mod.register_load_state_dict_post_hook(lambda mod_, keys: 1)
        return mod.load_state_dict(mod.state_dict())
    check(bad)


# -- modes, gradients, conversions -----------------------------------------------------------


def test_train_eval_requires_grad_zero_grad_apply():
    def recipe(m):
        model = net(m)
        r = [model.training]
        model.eval()
        r.append([mod.training for mod in model.modules()])
        r.append(model.train() is model and model.a.inner.training)
        r.append(model.requires_grad_(False) is model)
        r.append([p.requires_grad for p in model.parameters()])
        model.requires_grad_()
        visited = []
        model.apply(lambda mod: visited.append(type(mod).__name__))
        r.append(visited)
        out = model.c(m.ones(1, 3, dtype=m.float32))
        out.sum().backward()
        r.append(model.c.weight.grad)
        model.zero_grad(set_to_none=False)
        r.append(model.c.weight.grad)
        model.zero_grad()
        r.append(model.c.weight.grad)
        return r
    check(recipe)
    check(lambda m: net(m).train("yes"))


def test_conversions_keep_parameter_identity():
    def recipe(m):
        model = net(m)
        w = model.a.w
        model.c.weight.grad = m.ones(1, 3)
        model.float()
        r = [model.a.w is w, w.dtype, model.steps.dtype, model.running_dtype
             if hasattr(model, "running_dtype") else None, model.c.weight.grad.dtype]
        model.double()
        r.append(model.c.weight.dtype)
        model.half()
        r.append(model.a.inner.bias.dtype)
        model.bfloat16()
        r.append(model.b.w.dtype)
        model.to(m.float64)
        r.append((model.b.w.dtype, model.steps.dtype, model.b.running.dtype))
        model.to(m.ones(1, dtype=m.float32))
        r.append(model.b.w.dtype)
        model.to("meta")
        r.append((model.a.w.device.type, model.a.w is w, model.a.w.requires_grad,
                  type(model.a.w).__name__, model.steps.device.type))
        r.append(model.type(m.float64).c.weight.dtype)
        r.append(model.cpu() is model)
        return r
    check(recipe)
    check(lambda m: net(m).to(m.int64))
    check(lambda m: net(m).to(m.float32, "x"), first_line=True)


def test_to_from_meta_points_to_to_empty():
    check(lambda m: m.nn.Linear(2, 2, device="meta").to("cpu"))


def test_to_meta_then_to_empty():
    def recipe(m):
        model = m.nn.Linear(2, 3).to("meta")
        model.to_empty(device="cpu")
        return model.weight.shape, model.weight.device.type, type(model.weight).__name__
    check(recipe)


# -- repr ------------------------------------------------------------------------------------


def test_nested_repr():
    def recipe(m):
        Block, Net, MultiLine = _classes(m)
        return repr(Net()), repr(MultiLine()), repr(m.nn.Module()), str(Block(2))
    check(recipe)


# -- Parameter, Buffer, uninitialised placeholders ---------------------------------------------


def test_parameter_basics():
    def recipe(m):
        p = m.nn.Parameter(m.tensor([1.5, -2.0]))
        q = m.nn.Parameter(m.ones(2, dtype=m.float64), requires_grad=False)
        e = m.nn.Parameter()
        return (repr(p), str(q), repr(e), isinstance(p, m.Tensor),
                isinstance(p, m.nn.Parameter), type(p * 2).__name__, type(p[0]).__name__,
                type(p.detach()).__name__, type(p.data).__name__, p.is_leaf, q.requires_grad,
                p.grad_fn, type(m.nn.Parameter(p)).__name__, isinstance(m.ones(1), m.nn.Parameter))
    check(recipe)


def test_parameter_aliases_its_data():
    base = strided.zeros(3)
    p = strided.nn.Parameter(base)
    assert p.data_ptr() == base.data_ptr()
    with strided.no_grad():
        p.add_(1)
    assert base.tolist() == [1.0, 1.0, 1.0]
    assert p._version == base._version


def test_parameter_deepcopy_and_pickle():
    for lib in (strided, torch):
        p = lib.nn.Parameter(lib.arange(4.0))
        q = lib.nn.Parameter(lib.ones(2), requires_grad=False)
        d = copy.deepcopy([p, p, q])
        assert type(d[0]) is lib.nn.Parameter and d[0] is d[1] and d[0] is not p
        assert d[0].requires_grad and not d[2].requires_grad
        assert d[0].tolist() == [0.0, 1.0, 2.0, 3.0]
        r = pickle.loads(pickle.dumps([p, q]))
        assert type(r[0]) is lib.nn.Parameter and r[0].requires_grad and not r[1].requires_grad
        assert r[0].tolist() == p.tolist()


def test_buffer():
    def recipe(m):
        b = m.nn.Buffer(m.ones(2))
        c = m.nn.Buffer(m.ones(1), persistent=False)
        mod = m.nn.Module()
        mod.b = b
        mod.c = c
        return (type(b).__name__, isinstance(b, m.nn.Buffer), isinstance(m.ones(1), m.nn.Buffer),
                b.persistent, list(mod._buffers), list(mod.state_dict()))
    check(recipe)


def test_uninitialized_parameter():
    def recipe(m):
        u = m.nn.UninitializedParameter()
        ub = m.nn.UninitializedBuffer()
        r = [repr(u), repr(ub), m.nn.parameter.is_lazy(u), m.nn.parameter.is_lazy(m.ones(1)),
             u.requires_grad, ub.requires_grad, u.size(), type(u.float()).__name__]
        u.materialize((2, 3), dtype=m.float64)
        ub.materialize((4,))
        r += [type(u).__name__, u.shape, u.dtype, u.requires_grad, type(ub).__name__,
              ub.shape]
        return r
    check(recipe)
    check(lambda m: m.nn.UninitializedParameter().shape)
    check(lambda m: m.nn.UninitializedParameter().share_memory_())


def test_uninitialized_parameter_refuses_ops():
    u = strided.nn.UninitializedParameter()
    with pytest.raises(ValueError, match="Attempted to use an uninitialized parameter in"):
        u.sum()
    copied = copy.deepcopy(u)
    assert type(copied) is strided.nn.UninitializedParameter and copied is not u


def test_incompatible_keys_repr():
    def recipe(m):
        keys = m.nn.modules.module._IncompatibleKeys
        return (repr(keys([], [])), repr(keys(["a"], [])), str(keys([], ["b"])),
                keys(["a"], ["b"]).missing_keys)
    check(recipe)


# -- whole modules: deepcopy and pickle --------------------------------------------------------


class PickleNet(strided.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = strided.nn.Linear(3, 2)
        self.tied = self.lin
        self.register_buffer("count", strided.tensor(4))
        self.register_buffer("tmp", strided.ones(1), persistent=False)

    def forward(self, x):
        return self.lin(x)


def test_module_deepcopy_and_pickle():
    strided.manual_seed(0)
    model = PickleNet()
    model.lin.weight.requires_grad_(False)
    for clone in (copy.deepcopy(model), pickle.loads(pickle.dumps(model))):
        assert type(clone) is PickleNet and clone is not model
        assert clone.tied is clone.lin
        assert type(clone.lin.weight) is strided.nn.Parameter
        assert not clone.lin.weight.requires_grad and clone.lin.bias.requires_grad
        assert clone.lin.weight.data_ptr() != model.lin.weight.data_ptr()
        assert strided.equal(clone.lin.weight, model.lin.weight)
        assert list(clone.state_dict()) == list(model.state_dict())
        assert clone._non_persistent_buffers_set == {"tmp"}
        x = strided.ones(1, 3)
        assert strided.equal(clone(x), model(x))


_HOOK_LOG: list = []


def _logging_hook(mod, args, out):
    _HOOK_LOG.append(type(mod).__name__)


def test_hooks_survive_deepcopy_and_pickle():
    _HOOK_LOG.clear()
    model = strided.nn.Linear(1, 1)
    h = model.register_forward_hook(_logging_hook)
    clone = copy.deepcopy(model)
    clone(strided.ones(1, 1))
    assert _HOOK_LOG == ["Linear"]
    unpickled = pickle.loads(pickle.dumps(model))
    unpickled(strided.ones(1, 1))
    assert _HOOK_LOG == ["Linear", "Linear"]
    h2 = pickle.loads(pickle.dumps(h))
    assert h2.id == h.id
    h.remove()
    model(strided.ones(1, 1))
    clone(strided.ones(1, 1))            # the copy keeps its own hook
    assert _HOOK_LOG == ["Linear"] * 3


def test_share_memory_returns_self():
    model = strided.nn.Linear(1, 1)
    assert model.share_memory() is model


def test_call_fast_path_matches_hooked_path():
    strided.manual_seed(1)
    model = strided.nn.Linear(3, 2)
    x = strided.randn(4, 3)
    plain = model(x)
    handle = model.register_forward_hook(lambda mod, a, out: None)
    hooked = model(x)
    handle.remove()
    assert strided.equal(plain, hooked)
    assert plain.grad_fn.name() == hooked.grad_fn.name() == "AddmmBackward0"


def test_parameter_values_after_seed_match_torch():
    s = net(strided)
    t = net(torch)
    for (ns, ps), (nt, pt) in zip(s.named_parameters(), t.named_parameters()):
        assert ns == nt
        assert_same(ps, pt)


def test_legacy_backward_hook_and_global_backward_hooks():
    def recipe(m):
        log = []
        m.manual_seed(0)
        lin = m.nn.Linear(3, 2).double()
        lin.register_backward_hook(lambda mod, gi, go: log.append(
            ("legacy", [None if g is None else tuple(g.shape) for g in gi],
             [tuple(g.shape) for g in go])))
        mm = m.nn.modules.module
        h1 = mm.register_module_full_backward_pre_hook(
            lambda mod, go: log.append(("global_pre", type(mod).__name__)))
        h2 = mm.register_module_forward_hook(
            lambda mod, a, o: log.append(("global_fwd", type(mod).__name__)))
        seq = m.nn.Sequential(m.nn.Flatten(), m.nn.Identity())
        x = m.ones(2, 3, dtype=m.float64, requires_grad=True)
        seq(lin(x)).sum().backward()
        h1.remove()
        h2.remove()
        seq(lin(x)).sum().backward()
        return log, x.grad
    check(recipe)


def test_global_full_backward_hook():
    def recipe(m):
        log = []
        mm = m.nn.modules.module
        h = mm.register_module_full_backward_hook(
            lambda mod, gi, go: log.append((type(mod).__name__, gi[0].sum().item(),
                                            go[0].sum().item())))
        try:
            lin = m.nn.Linear(2, 2).double()
            with m.no_grad():
                lin.weight.fill_(0.5)
            lin(m.ones(1, 2, dtype=m.float64, requires_grad=True)).sum().backward()
        finally:
            h.remove()
        return log
    check(recipe)


def test_parameter_pickle_keeps_user_attributes():
    for lib in (strided, torch):
        p = lib.nn.Parameter(lib.ones(2))
        p.note = "kept"
        q = pickle.loads(pickle.dumps(p))
        assert type(q) is lib.nn.Parameter and q.note == "kept" and q.requires_grad


def test_removable_handle():
    for hooks_mod in (strided.utils.hooks, torch.utils.hooks):
        main, extra1, extra2 = OrderedDict(), OrderedDict(), OrderedDict()
        h = hooks_mod.RemovableHandle(main, extra_dict=[extra1, extra2])
        main[h.id], extra1[h.id], extra2[h.id] = "f", True, True
        h2 = hooks_mod.RemovableHandle(main, extra_dict=extra1)
        assert h2.id == h.id + 1
        main[h2.id] = "g"
        with h:
            assert list(main.values()) == ["f", "g"]
        assert list(main.values()) == ["g"] and not extra1 and not extra2
        h2.remove()
        h2.remove()
        assert not main


def test_failed_load_with_overridden_loader_is_undone():
    class Versioned(strided.nn.Linear):
        def _load_from_state_dict(self, state_dict, prefix, *args):
            state_dict = dict(state_dict)
            super()._load_from_state_dict(state_dict, prefix, *args)

    model = strided.nn.Sequential(Versioned(2, 2), strided.nn.Linear(2, 3))
    before = [p.clone() for p in model.parameters()]
    sd = {k: v + 1 for k, v in model.state_dict().items()}
    sd["1.bias"] = strided.ones(7)
    with pytest.raises(RuntimeError, match=r"size mismatch for 1.bias: copying a param with "
                                           r"shape torch.Size\(\[7\]\)"):
        model.load_state_dict(sd)
    assert all(strided.equal(a, b) for a, b in zip(model.parameters(), before))
