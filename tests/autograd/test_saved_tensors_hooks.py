"""``torch.autograd.graph.saved_tensors_hooks`` and friends, against torch.

Each program runs with ``m = strided`` and ``m = torch`` and returns plain data (or raises);
the two outcomes, messages included, must be equal. Note [Saved-tensor hooks] in
autograd/graph.py describes what is mirrored.
"""

from __future__ import annotations

import pytest
import torch
from grad_harness import same as _same

import strided


def same(program):
    """Outcomes compared to 5 digits (float32 exp/sin may differ from torch's in the last
    place)."""
    return _same(program, digits=5)


def _names(m, log):
    def pack(t):
        log.append(("pack", m.is_grad_enabled(), t.requires_grad,
                    t.grad_fn.name() if t.grad_fn is not None else None, t._version))
        return t

    def unpack(t):
        log.append(("unpack", m.is_grad_enabled(), t.requires_grad))
        return t
    return pack, unpack


def test_pack_and_unpack_calls():
    def program(m):
        log = []
        x = m.ones(2, requires_grad=True)
        with m.autograd.graph.saved_tensors_hooks(*_names(m, log)):
            y = x.exp()
            z = (y * x).sum()
        packed = list(log)
        log.clear()
        s = y.grad_fn._saved_result
        read = (list(log), s.grad_fn.name(), s is y, s.requires_grad)
        log.clear()
        z.backward()
        return packed, read, list(log), x.grad
    same(program)


def test_unpacked_leaf_keeps_its_identity_for_double_backward():
    def program(m):
        with m.autograd.graph.saved_tensors_hooks(lambda t: t.detach().clone(), lambda p: p):
            a = m.tensor([1.0, 2.0], requires_grad=True)
            b = (a * a * a).sum()
        g, = m.autograd.grad(b, a, create_graph=True)
        g.sum().backward()
        u = b.grad_fn.next_functions[0][0]._saved_self
        return g, a.grad, u is a, u.requires_grad, u.is_leaf
    same(program)


def test_unpack_returns_other_data():
    def program(m):
        with m.autograd.graph.saved_tensors_hooks(lambda t: None,
                                                  lambda p: m.full((2,), 5.0)):
            a = m.ones(2, requires_grad=True)
            b = (a * a).sum()
        b.backward()
        return a.grad
    same(program)


def test_no_version_check_through_hooks():
    def program(m):
        with m.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            a = m.ones(2, requires_grad=True).clone()
            b = a * a
        a.add_(1)
        b.sum().backward()
        return "ran"
    same(program)


@pytest.mark.parametrize("case", ["inplace_pack", "unpack_not_tensor", "unpack_raises",
                                  "backward_twice", "custom_function", "save_on_cpu",
                                  "nested", "only_saved"])
def test_hook_cases(case):
    def program(m):
        graph = m.autograd.graph
        log = []
        if case == "inplace_pack":
            with graph.saved_tensors_hooks(lambda t: t.add_(1), lambda t: t):
                return m.ones(2, requires_grad=True) * m.ones(2)
        if case == "unpack_not_tensor":
            with graph.saved_tensors_hooks(lambda t: t, lambda t: 3):
                e = m.ones(2, requires_grad=True)
                f = (e * e).sum()
            f.backward()
        if case == "unpack_raises":
            with graph.saved_tensors_hooks(lambda t: t, lambda p: 1 / 0):
                e = m.ones(2, requires_grad=True)
                f = (e * e).sum()
            f.backward()
        if case == "backward_twice":
            with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                e = m.ones(2, requires_grad=True)
                f = e * e
            f.sum().backward()
            f.sum().backward()
        if case == "custom_function":
            class F(m.autograd.Function):
                @staticmethod
                def forward(ctx, a):
                    ctx.save_for_backward(a)
                    return a * 2

                @staticmethod
                def backward(ctx, g):
                    a, = ctx.saved_tensors
                    return g * a
            with graph.saved_tensors_hooks(
                    lambda t: (log.append(("p", m.is_grad_enabled())), t)[1],
                    lambda t: (log.append("u"), t)[1]):
                a = m.tensor([1.0, 3.0], requires_grad=True)
                o = F.apply(a)
            o.sum().backward()
            return log, a.grad
        if case == "save_on_cpu":
            with graph.save_on_cpu():
                a = m.tensor([1.0, 3.0], requires_grad=True)
                (a * a).sin().sum().backward()
            with graph.save_on_cpu(pin_memory=True):
                b = m.tensor([1.0, 3.0], requires_grad=True)
                (b * b).sum().backward()
            return a.grad, b.grad
        if case == "nested":
            with graph.saved_tensors_hooks(lambda t: (log.append("outer"), t)[1], lambda t: t):
                with graph.saved_tensors_hooks(lambda t: (log.append("inner"), t)[1],
                                               lambda t: t):
                    m.ones(2, requires_grad=True).sin()
                m.ones(2, requires_grad=True).cos()
            return log
        if case == "only_saved":
            # nothing recorded, nothing packed; mul saves only what the other input needs
            with graph.saved_tensors_hooks(lambda t: (log.append(t.requires_grad), t)[1],
                                           lambda t: t):
                m.ones(2).sin()
                m.ones(2, requires_grad=True) * m.ones(2)
            return log
        return None
    same(program)


def test_disable_saved_tensors_hooks():
    def program(m):
        graph = m.autograd.graph
        out = []
        with graph.disable_saved_tensors_hooks("no hooks"):
            try:
                with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                    pass
            except RuntimeError as e:
                out.append(str(e))
            with graph.disable_saved_tensors_hooks("inner"):
                pass
            try:
                with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                    pass
            except RuntimeError as e:
                out.append(str(e))
        with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            try:
                with graph.disable_saved_tensors_hooks("while hooks are set"):
                    pass
            except RuntimeError as e:
                out.append(str(e))
        with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            out.append("enabled again")

        @graph.disable_saved_tensors_hooks("decorated")
        def f():
            with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                pass
        try:
            f()
        except RuntimeError as e:
            out.append(str(e))
        return out
    same(program)


def test_register_hooks_on_a_saved_tensor():
    def program(m):
        log = []
        e = m.tensor([1.0, 2.0], requires_grad=True)
        f = e * e
        r = f.grad_fn._raw_saved_self
        r.register_hooks(lambda t: (log.append("pack"), t)[1],
                         lambda t: (log.append("unpack"), t)[1])
        out = [list(log)]
        try:
            r.register_hooks(lambda t: t, lambda t: t)
        except RuntimeError as ex:
            out.append(str(ex))
        f.sum().backward()
        out.append((list(log), e.grad))
        try:
            f.grad_fn._raw_saved_other.register_hooks(lambda t: t, lambda t: t)
        except RuntimeError as ex:
            out.append(str(ex))
        return out
    same(program)


def test_register_hooks_on_a_saved_output():
    def program(m):
        x = m.tensor([0.5, 1.0], requires_grad=True)
        y = x.exp()
        y.grad_fn._raw_saved_result.register_hooks(lambda t: t * 1, lambda t: t)
        u = y.grad_fn._saved_result
        y.sum().backward()
        return u.grad_fn.name(), u.requires_grad, x.grad
    same(program)


def test_strided_and_torch_expose_the_same_names():
    for name in ("saved_tensors_hooks", "disable_saved_tensors_hooks", "save_on_cpu"):
        assert callable(getattr(strided.autograd.graph, name))
        assert callable(getattr(torch.autograd.graph, name))


def test_custom_function_saving_its_output():
    def program(m):
        class F(m.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                out = a.exp()
                ctx.save_for_backward(a, out)
                return out

            @staticmethod
            def backward(ctx, g):
                a, out = ctx.saved_tensors
                return g * out * a

        log = []

        def pack(t):
            log.append((t.requires_grad, t.grad_fn.name() if t.grad_fn is not None else None))
            return t.detach()
        with m.autograd.graph.saved_tensors_hooks(pack, lambda p: p):
            a = m.tensor([0.5, 1.0], dtype=m.float64, requires_grad=True)
            o = F.apply(a)
        o.sum().backward()
        return log, a.grad
    same(program)
