"""Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict against torch:
indexing, mutation, renumbering, arithmetic, iteration, reprs, state_dict keys, errors."""

from __future__ import annotations

from collections import OrderedDict

import pytest

from tests.conftest import check


def _names(module):
    return [n for n, _ in module.named_modules()], list(module.state_dict())


def _seq(m):
    m.manual_seed(0)
    return m.nn.Sequential(m.nn.Linear(2, 3), m.nn.Identity(), m.nn.Linear(3, 1),
                           m.nn.Flatten())


def test_sequential_forward_and_indexing():
    def recipe(m):
        s = _seq(m)
        x = m.ones(4, 2)
        return (s(x).detach(), repr(s), len(s), repr(s[1:3]), type(s[1:]).__name__,
                repr(s[-1]), s[0] is s._modules["0"], [type(c).__name__ for c in s],
                _names(s[::2]), repr(s[5:]), s[True] is s[1])
    check(recipe, exact=False)


def test_sequential_from_ordered_dict():
    def recipe(m):
        s = m.nn.Sequential(OrderedDict([("first", m.nn.Identity()),
                                         ("second", m.nn.Flatten(0))]))
        return repr(s), _names(s), s(m.ones(2, 3)).shape, repr(s[1:]), s[1] is s.second
    check(recipe)


def test_sequential_mutation():
    def recipe(m):
        s = _seq(m)
        r = []
        s.append(m.nn.Flatten(0))
        s.insert(1, m.nn.Unflatten(1, (3, 1)))
        s.insert(-1, m.nn.Identity())
        r.append(repr(s))
        del s[0]
        r.append(_names(s))
        del s[1:3]
        r.append(_names(s))
        s[0] = m.nn.Identity()
        r.append(repr(s))
        popped = s.pop(1)
        r.append((repr(popped), len(s)))
        s.extend([m.nn.Identity(), m.nn.Flatten()])
        r.append(repr(s))
        s.add_module("named", m.nn.Identity())
        r.append(_names(s))
        return r
    check(recipe)


def test_sequential_arithmetic():
    def recipe(m):
        a = m.nn.Sequential(m.nn.Identity(), m.nn.Flatten())
        b = m.nn.Sequential(m.nn.Flatten(0))
        c = a + b
        d = a * 2
        e = 3 * b
        r = [repr(c), repr(d), repr(e), c[0] is a[0], d[2] is a[0]]
        a += b
        r.append(repr(a))
        b *= 2
        r.append((repr(b), b[0] is b[1]))
        return r
    check(recipe)


@pytest.mark.parametrize("case", range(11))
def test_sequential_errors(case):
    def recipe(m):
        s = m.nn.Sequential(m.nn.Identity(), m.nn.Flatten())
        return [
            lambda: s[2],
            lambda: s[-3],
            lambda: s["0"],
            lambda: s + 1,
            lambda: s.__iadd__([1]),
            lambda: s * 0,
            lambda: s * 1.5,
            lambda: s.insert(3, m.nn.Identity()),
            lambda: s.insert(0, 3),
            lambda: s.__imul__(-1),
            lambda: s.append(3),
        ][case]()
    check(recipe)


def test_sequential_dir_hides_indices():
    def recipe(m):
        d = dir(m.nn.Sequential(m.nn.Identity()))
        return "0" in d, "append" in d
    check(recipe)


def test_module_list():
    def recipe(m):
        m.manual_seed(1)
        ml = m.nn.ModuleList([m.nn.Linear(2, 2) for _ in range(3)])
        r = [repr(ml), len(ml), _names(ml)]
        ml.append(m.nn.Identity())
        ml.extend([m.nn.Flatten(), m.nn.Flatten()])
        ml.insert(1, m.nn.Identity())
        r.append(repr(ml))
        r.append(repr(ml[2:5]))
        del ml[0]
        del ml[::2]
        r.append((repr(ml), _names(ml)))
        ml[-1] = m.nn.Linear(1, 1)
        r.append(repr(ml.pop(0)))
        r.append(repr(ml + m.nn.ModuleList([m.nn.Identity()])))
        ml += [m.nn.Identity()]
        r.append(repr(ml))
        r.append(repr(m.nn.ModuleList()))
        r.append([type(x).__name__ for x in ml])
        return r
    check(recipe)


def test_module_list_repr_groups_equal_neighbours():
    def recipe(m):
        return repr(m.nn.ModuleList([m.nn.Flatten(), m.nn.Flatten(), m.nn.Identity(),
                                     m.nn.Flatten(), m.nn.Flatten(), m.nn.Flatten(),
                                     m.nn.Sequential(m.nn.Identity(), m.nn.Identity()),
                                     m.nn.Sequential(m.nn.Identity(), m.nn.Identity())]))
    check(recipe)


@pytest.mark.parametrize("case", range(5))
def test_module_list_errors(case):
    def recipe(m):
        ml = m.nn.ModuleList([m.nn.Identity()])
        return [
            lambda: ml[1],
            lambda: ml.extend(3),
            lambda: ml.append(3),
            lambda: ml["a"],
            lambda: ml(m.ones(1)),
        ][case]()
    check(recipe)


def test_module_dict():
    def recipe(m):
        m.manual_seed(2)
        md = m.nn.ModuleDict({"b": m.nn.Linear(1, 2), "a": m.nn.Identity()})
        r = [repr(md), list(md), list(md.keys()), len(md), "a" in md, _names(md)]
        md["c"] = m.nn.Flatten()
        md.update([("d", m.nn.Identity()), ("b", m.nn.Identity())])
        md.update(OrderedDict([("z", m.nn.Identity())]))
        md.update(m.nn.ModuleDict({"y": m.nn.Flatten()}))
        r.append(repr(md))
        r.append(repr(md.pop("c")))
        del md["a"]
        r.append([(k, type(v).__name__) for k, v in md.items()])
        r.append([type(v).__name__ for v in md.values()])
        md.clear()
        r.append((len(md), repr(md)))
        return r
    check(recipe)


@pytest.mark.parametrize("case", range(6))
def test_module_dict_errors(case):
    def recipe(m):
        md = m.nn.ModuleDict({"a": m.nn.Identity()})
        return [
            lambda: md["zz"],
            lambda: md.update(3),
            lambda: md.update([("a",)]),
            lambda: md.update([3]),
            lambda: md.__setitem__("x.y", m.nn.Identity()),
            lambda: md.__setitem__("q", 3),
        ][case]()
    check(recipe)


def test_parameter_list():
    def recipe(m):
        pl = m.nn.ParameterList([m.nn.Parameter(m.ones(2, 3)), m.zeros(3, dtype=m.float64),
                                 "text"])
        r = [repr(pl), len(pl), [n for n, _ in pl.named_parameters()],
             [type(p).__name__ for p in pl], pl[1].requires_grad]
        pl.append(m.ones(1))
        pl.extend([m.nn.Parameter(m.ones(4), requires_grad=False)])
        pl[0] = m.full((1,), 2.0)
        r.append(repr(pl))
        r.append(repr(pl[1:4]))
        r.append(list(pl.state_dict()))
        pl += [m.ones(2)]
        r.append(len(pl))
        return r
    check(recipe)


@pytest.mark.parametrize("case", range(4))
def test_parameter_list_errors(case):
    def recipe(m):
        pl = m.nn.ParameterList([m.ones(1)])
        return [
            lambda: pl[3],
            lambda: pl.extend(m.ones(2)),
            lambda: pl.extend(5),
            lambda: pl(m.ones(1)),
        ][case]()
    check(recipe)


def test_parameter_dict():
    def recipe(m):
        pd = m.nn.ParameterDict({"b": m.ones(2), "a": m.nn.Parameter(m.zeros(1, 2)), "s": 3})
        r = [repr(pd), list(pd), len(pd), "a" in pd, list(reversed(pd)),
             [n for n, _ in pd.named_parameters()], type(pd["b"]).__name__]
        pd["c"] = m.ones(3, dtype=m.float64)
        pd.update([("d", m.ones(1))])
        pd.update(OrderedDict([("e", m.ones(1))]))
        r.append(repr(pd))
        r.append((type(pd.get("zz", 1)).__name__, type(pd.setdefault("a")).__name__))
        r.append(pd.setdefault("new", None))
        r.append(type(pd.pop("c")).__name__)
        k, v = pd.popitem()
        r.append((k, v))
        r.append(list(pd.keys()))
        r.append([(k, type(v).__name__) for k, v in pd.items()])
        cp = pd.copy()
        r.append((list(cp), cp["a"] is pd["a"]))
        merged = pd | m.nn.ParameterDict({"zz": m.ones(1)})
        r.append(list(merged))
        pd |= m.nn.ParameterDict({"yy": m.ones(1)})
        r.append(list(pd))
        r.append(list(pd.fromkeys(["p", "q"], m.ones(1))))
        pd.clear()
        r.append(len(pd))
        return r
    check(recipe)


@pytest.mark.parametrize("case", range(6))
def test_parameter_dict_errors(case):
    def recipe(m):
        pd = m.nn.ParameterDict({"a": m.ones(1)})
        return [
            lambda: pd[3],
            lambda: pd["zz"],
            lambda: pd.update(3),
            lambda: pd.update([("a",)]),
            lambda: pd.update([5]),
            lambda: pd(m.ones(1)),
        ][case]()
    check(recipe)


def test_nested_containers_state_dict_and_repr():
    def recipe(m):
        m.manual_seed(3)
        model = m.nn.Sequential(OrderedDict([
            ("enc", m.nn.Sequential(m.nn.Linear(4, 3), m.nn.Linear(3, 2))),
            ("heads", m.nn.ModuleDict({"x": m.nn.Linear(2, 1), "y": m.nn.Identity()})),
            ("stack", m.nn.ModuleList([m.nn.Linear(2, 2)] * 2)),
            ("extra", m.nn.ParameterList([m.ones(1)])),
            ("named", m.nn.ParameterDict({"scale": m.ones(1)})),
        ]))
        sd = model.state_dict()
        return (repr(model), list(sd), list(sd._metadata), _names(model),
                [n for n, _ in model.named_parameters()], sd["heads.x.weight"])
    check(recipe)


def test_container_is_deprecated():
    def recipe(m):
        c = m.nn.Container(a=m.nn.Identity())
        return repr(c)
    check(recipe)
