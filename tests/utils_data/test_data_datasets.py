"""strided.utils.data datasets, random_split and samplers against torch.utils.data.

Every random draw (RandomSampler, SubsetRandomSampler, WeightedRandomSampler,
random_split) must give torch's result after the same seed or generator.
"""

from __future__ import annotations

import pytest
import torch
from conftest import check, hyp
from hypothesis import given
from hypothesis import strategies as st

import strided


def D(m):
    return m.utils.data


# --------------------------------------------------------------------------- datasets

def test_tensor_dataset():
    def recipe(m):
        ds = D(m).TensorDataset(m.arange(12.).reshape(4, 3), m.arange(4))
        return [len(ds), ds[1], ds[-1], ds[1:3], ds[[0, 2]]]
    check(recipe)
    check(lambda m: D(m).TensorDataset(m.zeros(3), m.zeros(4)))


def test_stack_dataset():
    def recipe(m):
        a = D(m).TensorDataset(m.arange(4))
        b = list(range(10, 14))
        tup = D(m).StackDataset(a, b)
        dct = D(m).StackDataset(x=a, y=b)
        return [len(tup), tup[2], tup.__getitems__([3, 0]), dct[1]["y"], dct[1]["x"],
                [sorted(s) for s in dct.__getitems__([0, 1])],
                [s["x"] for s in dct.__getitems__([0, 1])]]
    check(recipe)
    check(lambda m: D(m).StackDataset([1], y=[2]))
    check(lambda m: D(m).StackDataset())
    check(lambda m: D(m).StackDataset([1, 2], [3]))
    check(lambda m: D(m).StackDataset(a=[1, 2], b=[3]))


def test_stack_dataset_nested_getitems_size_mismatch():
    class Bad:
        def __len__(self):
            return 3

        def __getitem__(self, i):
            return i

        def __getitems__(self, idx):
            return [0]
    check(lambda m: D(m).StackDataset(Bad(), [1, 2, 3]).__getitems__([0, 1]))
    check(lambda m: D(m).StackDataset(a=Bad(), b=[1, 2, 3]).__getitems__([0, 1]))


def test_concat_dataset():
    def recipe(m):
        a = D(m).TensorDataset(m.arange(3))
        b = D(m).TensorDataset(m.arange(10, 15))
        c = a + b
        assert isinstance(c, D(m).ConcatDataset)
        return [len(c), c.cumulative_sizes, [c[i] for i in range(-8, 8)],
                D(m).ConcatDataset([[1, 2], [], [3]]).cumulative_sizes]
    check(recipe)
    check(lambda m: (D(m).TensorDataset(m.arange(3)) + D(m).TensorDataset(m.arange(2)))[-6])
    check(lambda m: D(m).ConcatDataset([]))
    check(lambda m: D(m).ConcatDataset([[1], _iterables(m)(2)]))
    with pytest.warns(FutureWarning, match="renamed to `cumulative_sizes`"):
        assert strided.utils.data.ConcatDataset([[1, 2]]).cummulative_sizes == [2]


def _iterables(m):
    class Count(D(m).IterableDataset):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            return iter(range(self.n))

        def __len__(self):
            return self.n
    return Count


def test_chain_dataset():
    def recipe(m):
        Count = _iterables(m)
        ch = Count(2) + Count(3)
        assert isinstance(ch, D(m).ChainDataset)
        return [list(ch), len(ch), list(D(m).ChainDataset([Count(1), Count(2)]))]
    check(recipe)
    check(lambda m: list(D(m).ChainDataset([_iterables(m)(1), [5]])))
    check(lambda m: len(D(m).ChainDataset([[5]])))


def test_dataset_base():
    check(lambda m: D(m).Dataset()[0])
    check(lambda m: len(D(m).Dataset()))
    check(lambda m: iter(D(m).IterableDataset()).__next__())


def test_subset():
    def recipe(m):
        base = D(m).TensorDataset(m.arange(10) * 2)
        s = D(m).Subset(base, [7, 1, 4])
        nested = D(m).Subset(D(m).StackDataset(list(range(10))), [2, 3])
        return [len(s), s[0], s[-1], s.__getitems__([2, 0]), nested.__getitems__([1, 0]),
                D(m).Subset(list(range(10)), [5, 6])[0]]
    check(recipe)

    def bad(m):
        class MySubset(D(m).Subset):
            def __getitem__(self, i):
                return 0
        return MySubset([1, 2], [0])
    check(bad)

    def good(m):
        class MySubset(D(m).Subset):
            def __getitem__(self, i):
                return 0

            def __getitems__(self, idx):
                return [0] * len(idx)
        return MySubset([1, 2], [0]).__getitems__([0])
    check(good)


# --------------------------------------------------------------------------- random_split

@pytest.mark.parametrize("lengths", [[3, 7], [0.3, 0.3, 0.4], [0.5, 0.5], [1 / 3] * 3,
                                     [0.05, 0.95], [0.01, 0.99], [1.0], [10], [0, 10]])
def test_random_split(lengths):
    def recipe(m):
        g = m.Generator().manual_seed(42)
        parts = D(m).random_split(range(10), lengths, generator=g)
        return [list(p.indices) for p in parts] + [[len(p) for p in parts]]
    check(recipe)


def test_random_split_default_generator():
    def recipe(m):
        m.manual_seed(5)
        parts = D(m).random_split(D(m).TensorDataset(m.arange(20)), [0.25, 0.75])
        return [[p[i] for i in range(len(p))] for p in parts] + [m.rand(2)]
    check(recipe)


def test_random_split_errors_and_warnings():
    check(lambda m: D(m).random_split(range(10), [3, 3]))
    check(lambda m: D(m).random_split(range(10), [1.5, -0.5]))
    check(lambda m: D(m).random_split(range(10), [0.5, 0.6]))
    # a zero-length split warns (same message as torch's)
    check(lambda m: [len(p) for p in D(m).random_split(range(3), [0.1, 0.1, 0.8])])


@hyp(25)
@given(n=st.integers(1, 60), k=st.integers(1, 5), seed=st.integers(0, 2**31))
def test_random_split_fractions_property(n, k, seed):
    fracs = [1.0 / k] * k

    def recipe(m):
        g = m.Generator().manual_seed(seed)
        return [list(p.indices) for p in D(m).random_split(range(n), fracs, generator=g)]
    check(recipe, warns=False)


# --------------------------------------------------------------------------- samplers

def test_sequential_sampler():
    check(lambda m: [list(D(m).SequentialSampler(range(5))),
                     len(D(m).SequentialSampler(range(5)))])


@pytest.mark.parametrize("kwargs", [
    {}, {"replacement": True}, {"replacement": True, "num_samples": 100},
    {"replacement": True, "num_samples": 31}, {"replacement": True, "num_samples": 64},
    {"num_samples": 25}, {"num_samples": 3}, {"num_samples": 20},
])
@pytest.mark.parametrize("with_generator", [False, True])
def test_random_sampler(kwargs, with_generator):
    def recipe(m):
        m.manual_seed(123)
        g = m.Generator().manual_seed(7) if with_generator else None
        s = D(m).RandomSampler(range(10), generator=g, **kwargs)
        first, second = list(s), list(s)
        return [first, second, len(s), m.rand(3)]  # also the default generator's state
    check(recipe)


def test_random_sampler_large():
    def recipe(m):
        m.manual_seed(0)
        return list(D(m).RandomSampler(range(100_000)))[:50] + \
            list(D(m).RandomSampler(range(5000), replacement=True))[-50:]
    check(recipe)


def test_random_sampler_errors():
    check(lambda m: D(m).RandomSampler(range(3), replacement=1))
    check(lambda m: D(m).RandomSampler(range(3), num_samples=0))
    check(lambda m: D(m).RandomSampler(range(3), num_samples=2.0))
    check(lambda m: D(m).RandomSampler([]))


def test_subset_random_sampler():
    def recipe(m):
        m.manual_seed(3)
        s = D(m).SubsetRandomSampler([10, 20, 30, 40, 50])
        g = m.Generator().manual_seed(9)
        return [list(s), list(s), len(s),
                list(D(m).SubsetRandomSampler(range(100, 130), generator=g))]
    check(recipe)


@pytest.mark.parametrize("replacement", [True, False])
def test_weighted_random_sampler(replacement):
    def recipe(m):
        m.manual_seed(11)
        w = [0.1, 0.9, 0.4, 0.7, 3.0, 0.2]
        s = D(m).WeightedRandomSampler(w, 5, replacement=replacement)
        g = m.Generator().manual_seed(1)
        s2 = D(m).WeightedRandomSampler(m.tensor(w), 40 if replacement else 6,
                                        replacement=replacement, generator=g)
        return [list(s), list(s), len(s), list(s2), s.weights]
    check(recipe)


def test_weighted_random_sampler_errors():
    check(lambda m: D(m).WeightedRandomSampler([1.0, 2.0], 0))
    check(lambda m: D(m).WeightedRandomSampler([1.0, 2.0], True))
    check(lambda m: D(m).WeightedRandomSampler([1.0, 2.0], 2, replacement=0))
    check(lambda m: D(m).WeightedRandomSampler([[1.0, 2.0]], 2))


@pytest.mark.parametrize("drop_last", [False, True])
@pytest.mark.parametrize("n,bs", [(10, 3), (9, 3), (2, 5), (0, 4), (7, 1)])
def test_batch_sampler(n, bs, drop_last):
    def recipe(m):
        b = D(m).BatchSampler(D(m).SequentialSampler(range(n)), bs, drop_last)
        return [list(b), len(b), list(D(m).BatchSampler(iter(range(n)), bs, drop_last))]
    check(recipe)


def test_batch_sampler_errors():
    check(lambda m: D(m).BatchSampler(range(3), 0, False))
    check(lambda m: D(m).BatchSampler(range(3), True, False))
    check(lambda m: D(m).BatchSampler(range(3), 2.0, False))
    check(lambda m: D(m).BatchSampler(range(3), 2, 1))


def test_sampler_base():
    check(lambda m: iter(D(m).Sampler()).__next__())
    check(lambda m: D(m).Sampler(range(3)) is not None)


def test_module_paths():
    import strided.utils.data.dataloader as dl
    import strided.utils.data.sampler as sm
    for name in ("Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
                 "WeightedRandomSampler", "BatchSampler"):
        assert getattr(sm, name) is getattr(strided.utils.data, name)
    assert dl.default_collate is strided.utils.data.default_collate
    assert dl.default_convert is strided.utils.data.default_convert
    assert dl.get_worker_info is strided.utils.data.get_worker_info
    assert strided.utils.data.get_worker_info() is None
    # everything torch.utils.data exports except datapipes and distributed sampling
    left_out = {"DFIterDataPipe", "DataChunk", "DistributedSampler", "IterDataPipe",
                "MapDataPipe", "argument_validation", "functional_datapipe",
                "guaranteed_datapipes_determinism", "non_deterministic",
                "runtime_validation", "runtime_validation_disabled"}
    missing = {n for n in torch.utils.data.__all__
               if n not in left_out and not hasattr(strided.utils.data, n)}
    assert not missing, missing


@hyp(25)
@given(n=st.integers(1, 300), num_samples=st.integers(1, 400), replacement=st.booleans(),
       seed=st.integers(0, 2**40), batch=st.integers(1, 70), drop_last=st.booleans())
def test_samplers_property(n, num_samples, replacement, seed, batch, drop_last):
    """Random sizes and seeds: RandomSampler (through BatchSampler), SubsetRandomSampler
    and WeightedRandomSampler draw what torch draws."""
    def recipe(m):
        m.manual_seed(seed)
        rs = D(m).RandomSampler(range(n), replacement=replacement, num_samples=num_samples)
        batches = list(D(m).BatchSampler(rs, batch, drop_last))
        sub = list(D(m).SubsetRandomSampler(list(range(0, 3 * n, 3))))
        weights = (m.arange(n, dtype=m.float64) % 7 + 0.5).tolist()
        k = num_samples if replacement else min(num_samples, n)
        weighted = list(D(m).WeightedRandomSampler(weights, k, replacement=replacement))
        return [batches, sub, weighted, m.rand(2)]
    check(recipe, warns=False)
