"""Samplers and batch samplers: base class, order, replacement, weights, batching.

Notes: 000_03e1e7bc9bbd04f1.txt › 1. 采样器Sampler (the SequentialSampler source) and
› 已有Sampler (SequentialSampler, RandomSampler, SubsetRandomSampler, WeightedRandomSampler,
BatchSampler).

Random samplers get a seeded torch.Generator; statistical checks use enough draws that a
sampler with other semantics cannot pass them by luck (bounds are stated in sigmas).
"""
import collections
import types

import pytest
import torch
import torch.utils.data
from torch.utils.data import (
    BatchSampler,
    DataLoader,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    TensorDataset,
    WeightedRandomSampler,
)
from torch.utils.data.distributed import DistributedSampler

from fixtures import signatures
from fixtures.signatures import EMPTY, signature_parameters

BUILTIN_SAMPLERS = [SequentialSampler, RandomSampler, SubsetRandomSampler, WeightedRandomSampler, BatchSampler,
                    DistributedSampler]

# the note's printed signatures (signature claims: fixtures/signatures.py states the rule)
NOTE_RANDOM_SAMPLER = [("data_source", EMPTY), ("replacement", False), ("num_samples", None)]
NOTE_WEIGHTED_SAMPLER = [("weights", EMPTY), ("num_samples", EMPTY), ("replacement", True)]
SIGNATURES = {
    "data.sequential-sampler": (lambda: signature_parameters(SequentialSampler.__init__), [("data_source", EMPTY)]),
    "data.random-sampler-signature": (lambda: signature_parameters(RandomSampler.__init__), NOTE_RANDOM_SAMPLER),
    "data.weighted-random-sampler": (lambda: signature_parameters(WeightedRandomSampler.__init__),
                                     NOTE_WEIGHTED_SAMPLER),
    "data.batch-sampler": (lambda: signature_parameters(BatchSampler.__init__),
                           [("sampler", EMPTY), ("batch_size", EMPTY), ("drop_last", EMPTY)]),
}


def _gen(seed=0):
    return torch.Generator().manual_seed(seed)


# --- data.samplers-base ----------------------------------------------------------------


@pytest.mark.claim("data.samplers-base", decides="holds")
@pytest.mark.parametrize("cls", BUILTIN_SAMPLERS, ids=lambda c: c.__name__)
def test_every_builtin_sampler_subclasses_the_sampler_class(cls):
    assert issubclass(cls, Sampler), f"{cls.__name__} does not derive from torch.utils.data.Sampler"
    assert Sampler is torch.utils.data.sampler.Sampler


@pytest.mark.claim("data.samplers-base")
def test_torch_utils_data_sampler_is_a_module_that_cannot_be_subclassed():
    assert isinstance(torch.utils.data.sampler, types.ModuleType)
    with pytest.raises(TypeError, match=r"module\(\) takes at most 2 arguments"):
        exec("class MySampler(torch.utils.data.sampler):\n    pass\n", {"torch": torch})


@pytest.mark.claim("data.samplers-base", decides="left-out")
def test_a_sampler_need_not_inherit_anything_any_iterable_of_indices_works():
    reverse = iter(range(5, -1, -1))  # a bare iterator, no Sampler base
    loader = DataLoader(TensorDataset(torch.arange(6)), batch_size=3, sampler=reverse)
    assert [b.tolist() for (b,) in loader] == [[5, 4, 3], [2, 1, 0]]


# --- data.sequential-sampler -----------------------------------------------------------


@pytest.mark.claim("data.sequential-sampler")
def test_sequential_sampler_signature_is_exactly_data_source():
    installed, printed = signatures.installed_and_printed(SIGNATURES["data.sequential-sampler"])
    assert signatures.compare(installed, printed) == ([], []), f"SequentialSampler{installed}"


@pytest.mark.claim("data.sequential-sampler")
@pytest.mark.parametrize("n", [0, 1, 7])
def test_sequential_sampler_yields_0_to_len_minus_1_every_time(n):
    source = TensorDataset(torch.randn(n, 2))
    sampler = SequentialSampler(source)
    assert len(sampler) == len(source) == n
    assert list(sampler) == list(range(n))
    assert list(sampler) == list(range(n)), "a second pass changed the order"


# --- data.random-sampler-signature -----------------------------------------------------


@pytest.mark.claim("data.random-sampler-signature", half="holding")
def test_random_sampler_signature_starts_with_the_notes_three_parameters():
    params = signature_parameters(RandomSampler.__init__)
    wrong, _ = signatures.compare(params, NOTE_RANDOM_SAMPLER)
    assert wrong == [], f"printed vs installed: {wrong}"


@pytest.mark.claim("data.random-sampler-signature", half="failing")
def test_random_sampler_signature_has_a_fourth_parameter_generator():
    _, missing = signatures.compare(signature_parameters(RandomSampler.__init__), NOTE_RANDOM_SAMPLER)
    assert missing == [("generator", None)], f"parameters after the note's three: {missing}"


# --- data.random-sampler-num-samples ---------------------------------------------------


@pytest.mark.claim("data.random-sampler-num-samples")
def test_random_sampler_without_replacement_draws_distinct_indices_up_to_len():
    draws = list(RandomSampler(range(10), num_samples=7, generator=_gen()))
    assert len(draws) == 7 and len(set(draws)) == 7, draws
    assert set(draws) <= set(range(10))


@pytest.mark.claim("data.random-sampler-num-samples")
def test_random_sampler_without_replacement_beyond_len_chains_permutations():
    draws = list(RandomSampler(range(10), num_samples=25, generator=_gen()))
    assert len(draws) == 25
    # whole permutations first, then a partial one: no index repeats inside a block of 10
    for block in (draws[0:10], draws[10:20]):
        assert sorted(block) == list(range(10)), block
    assert len(set(draws[20:])) == 5, draws[20:]


@pytest.mark.claim("data.random-sampler-num-samples")
def test_random_sampler_with_replacement_draws_independently():
    n, blocks = 10, 400
    sampler = RandomSampler(range(n), replacement=True, num_samples=n * blocks, generator=_gen())
    draws = list(sampler)
    assert len(sampler) == len(draws) == n * blocks
    counts = collections.Counter(draws)
    assert set(counts) == set(range(n))
    # uniform: each count ~ Binomial(4000, 0.1), sd = 19; 100 is > 5 sd
    assert all(abs(c - blocks) < 100 for c in counts.values()), counts
    # independent draws: a block of 10 is a permutation with probability 10!/10**10 = 0.00036
    permutation_blocks = sum(sorted(draws[i:i + n]) == list(range(n)) for i in range(0, n * blocks, n))
    assert permutation_blocks <= 3, f"{permutation_blocks} of {blocks} blocks were permutations: not independent"


# --- data.subset-random-sampler --------------------------------------------------------


@pytest.mark.claim("data.subset-random-sampler")
def test_subset_random_sampler_signature_has_a_generator_beside_indices():
    params = signature_parameters(SubsetRandomSampler.__init__)
    assert params == [("indices", EMPTY), ("generator", None)], f"SubsetRandomSampler{params}"


@pytest.mark.claim("data.subset-random-sampler", decides="wrong")
def test_subset_random_sampler_permutes_only_the_given_indices():
    indices = [3, 5, 7, 11, 13]
    sampler = SubsetRandomSampler(indices, generator=_gen())
    passes = [list(sampler) for _ in range(6)]
    for p in passes:
        assert sorted(p) == indices, f"pass {p} is not a permutation of the subset {indices}"
    assert len({tuple(p) for p in passes}) > 1, "every pass had the same order"
    assert len(sampler) == len(indices)


@pytest.mark.claim("data.subset-random-sampler", decides="wrong")
def test_subset_random_sampler_over_a_loader_never_reaches_the_other_samples():
    dataset = TensorDataset(torch.arange(20))
    train = [i for i in range(20) if i % 4]
    seen = [v for (b,) in DataLoader(dataset, batch_size=4, sampler=SubsetRandomSampler(train, generator=_gen()))
            for v in b.tolist()]
    assert sorted(seen) == train, "SubsetRandomSampler left its subset"
    whole = [v for (b,) in DataLoader(dataset, batch_size=4, sampler=RandomSampler(dataset, generator=_gen()))
             for v in b.tolist()]
    assert sorted(whole) == list(range(20))


# --- data.weighted-random-sampler ------------------------------------------------------


@pytest.mark.claim("data.weighted-random-sampler", half="failing")
def test_weighted_sampler_signature_has_a_fourth_parameter_generator():
    _, missing = signatures.compare(signature_parameters(WeightedRandomSampler.__init__), NOTE_WEIGHTED_SAMPLER)
    assert missing == [("generator", None)], f"parameters after the note's three: {missing}"


@pytest.mark.claim("data.weighted-random-sampler", half="holding")
def test_weighted_sampler_signature_starts_with_the_notes_three_parameters():
    wrong, _ = signatures.compare(signature_parameters(WeightedRandomSampler.__init__), NOTE_WEIGHTED_SAMPLER)
    assert wrong == [], f"printed vs installed: {wrong}"


@pytest.mark.claim("data.weighted-random-sampler", half="holding")
def test_weighted_sampler_draws_indices_in_proportion_to_unnormalised_weights():
    weights = [0.0, 1.0, 2.0, 5.0]  # sum 8: the weights need not sum to 1
    draws = 40_000
    sampler = WeightedRandomSampler(weights, num_samples=draws, generator=_gen())
    counts = collections.Counter(sampler)
    assert len(sampler) == draws and sum(counts.values()) == draws
    assert counts[0] == 0, "an index of weight 0 was drawn"
    for index, w in enumerate(weights[1:], start=1):
        share, expected = counts[index] / draws, w / sum(weights)
        # sd of a share at 40k draws is at most 0.0025; 0.0125 is 5 sd
        assert abs(share - expected) < 0.0125, f"index {index}: share {share:.4f}, expected {expected:.4f}"


@pytest.mark.claim("data.weighted-random-sampler", half="holding")
def test_weighted_sampler_without_replacement_never_repeats():
    for seed in range(20):
        draws = list(WeightedRandomSampler([0.0, 1.0, 2.0, 5.0], num_samples=3, replacement=False,
                                           generator=_gen(seed)))
        assert sorted(draws) == [1, 2, 3], draws
    with pytest.raises(RuntimeError,
                       match="cannot sample n_sample > prob_dist.size\\(-1\\) samples without replacement"):
        list(WeightedRandomSampler([1.0, 2.0], num_samples=3, replacement=False))


# --- data.batch-sampler ----------------------------------------------------------------


@pytest.mark.claim("data.batch-sampler")
def test_batch_sampler_signature_is_exactly_the_three_required_parameters():
    installed, printed = signatures.installed_and_printed(SIGNATURES["data.batch-sampler"])
    assert signatures.compare(installed, printed) == ([], []), f"BatchSampler{installed}"


@pytest.mark.claim("data.batch-sampler")
@pytest.mark.parametrize(
    "drop_last, expected",
    [
        pytest.param(False, [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]], id="keep-last"),
        pytest.param(True, [[0, 1, 2], [3, 4, 5], [6, 7, 8]], id="drop-last"),
    ],
)
def test_batch_sampler_groups_the_wrapped_sampler_into_lists(drop_last, expected):
    batch_sampler = BatchSampler(SequentialSampler(range(10)), batch_size=3, drop_last=drop_last)
    batches = list(batch_sampler)
    assert batches == expected
    assert all(type(b) is list for b in batches)
    assert len(batch_sampler) == len(expected)


@pytest.mark.claim("data.batch-sampler")
def test_batch_sampler_keeps_the_order_of_a_random_sampler():
    order = list(RandomSampler(range(10), generator=_gen(3)))
    batches = list(BatchSampler(RandomSampler(range(10), generator=_gen(3)), batch_size=4, drop_last=False))
    assert [i for b in batches for i in b] == order
    assert [len(b) for b in batches] == [4, 4, 2]


@pytest.mark.claim("data.batch-sampler", decides="holds")
@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda: SequentialSampler(range(10)), id="SequentialSampler"),
        pytest.param(lambda: RandomSampler(range(10), generator=_gen(5)), id="RandomSampler"),
        pytest.param(lambda: SubsetRandomSampler([1, 3, 4, 8, 9], generator=_gen(5)), id="SubsetRandomSampler"),
        pytest.param(lambda: WeightedRandomSampler([1.0, 2.0, 3.0, 4.0], 9, generator=_gen(5)),
                     id="WeightedRandomSampler"),
    ],
)
def test_batch_sampler_wraps_each_of_the_samplers_above_into_batches_of_indices(make):
    order = list(make())  # the same seed replays the same draws
    batches = list(BatchSampler(make(), batch_size=4, drop_last=False))
    assert all(type(b) is list for b in batches), batches
    assert [i for b in batches for i in b] == order, f"batches {batches} vs the sampler's order {order}"
    assert [len(b) for b in batches[:-1]] == [4] * (len(batches) - 1) and 0 < len(batches[-1]) <= 4
