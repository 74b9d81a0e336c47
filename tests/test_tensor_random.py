"""Random tensors: torch.normal's argument forms, torch.rand, randperm shuffling.

Notes: 003_df07c2a5da61a567.txt › 3 tensor 数据类型 (`torch.normal(MEAN, STD, SIZE*)`,
`torch.rand(SIZE*)`, "代替 torch.uniform"); 002_d3afcdbaa9416717.txt › 打乱顺序.

Statistical checks use enough draws that the tolerance is several standard errors wide;
every test starts from seed 0 (autouse fixture), so they are also deterministic.
"""
import itertools
from collections import Counter

import pytest
import torch

# -- randperm shuffling ------------------------------------------------------------------


@pytest.mark.claim("tensor.randperm-shuffle")
def test_indexing_with_randperm_shuffles_whole_rows():
    tensor = torch.arange(20 * 3).reshape(20, 3)
    shuffled = tensor[torch.randperm(tensor.size(0))]
    assert shuffled.shape == tensor.shape
    assert not torch.equal(shuffled, tensor), "20 rows came back in their original order"
    # every row is intact (only dim 0 moved) and every row appears once
    assert (shuffled[:, 1] - shuffled[:, 0] == 1).all() and (shuffled[:, 0] % 3 == 0).all()
    assert sorted(shuffled[:, 0].tolist()) == tensor[:, 0].tolist()


@pytest.mark.claim("tensor.randperm-shuffle")
def test_randperm_orders_are_uniform_over_all_permutations():
    tensor = torch.tensor([[0, 0], [1, 1], [2, 2]])
    n = 6000
    seen = Counter(tuple(tensor[torch.randperm(3)][:, 0].tolist()) for _ in range(n))
    assert set(seen) == set(itertools.permutations(range(3))), f"orders seen: {sorted(seen)}"
    # each of the 6 orders expected 1000 times, standard deviation about 29
    assert all(abs(c - n / 6) < 150 for c in seen.values()), f"order counts {dict(seen)}"


# -- torch.normal ----------------------------------------------------------------------


@pytest.mark.claim("tensor.normal-size")
@pytest.mark.parametrize("size", [(2, 3, 4), (0, 5), ()], ids=str)
def test_normal_with_number_mean_std_and_size_has_that_size(size):
    out = torch.normal(2.0, 3.0, size=size)
    assert out.shape == size, f"normal(2, 3, size={size}) gave {tuple(out.shape)}"
    assert out.dtype == torch.get_default_dtype()


@pytest.mark.claim("tensor.normal-size")
def test_normal_with_size_draws_from_that_mean_and_std():
    x = torch.normal(2.0, 3.0, size=(40_000,), dtype=torch.float64)
    # standard errors: 3 / 200 = 0.015 for the mean, about 0.011 for the std
    assert abs(x.mean().item() - 2.0) < 0.08, f"sample mean {x.mean().item():.4f}, expected 2"
    assert abs(x.std().item() - 3.0) < 0.06, f"sample std {x.std().item():.4f}, expected 3"


@pytest.mark.claim("tensor.normal-tensor-mean", decides="holds")
def test_normal_without_size_takes_the_shape_of_a_float_tensor_mean():
    mean = torch.zeros(2, 3)
    assert torch.normal(mean, 1.0).shape == (2, 3), "tensor mean, number std"
    assert torch.normal(mean, torch.ones(2, 3)).shape == (2, 3), "tensor mean, tensor std"
    # each element uses its own mean: far-apart means stay apart
    far = torch.normal(torch.tensor([-1000.0, 1000.0]), 1.0)
    assert far[0] < -900 and far[1] > 900, f"draws {far.tolist()} ignore the per-element means"


@pytest.mark.claim("tensor.normal-tensor-mean", decides="left-out")
def test_normal_without_size_also_accepts_a_number_mean_with_a_tensor_std():
    out = torch.normal(0.0, torch.ones(2, 3))
    assert out.shape == (2, 3), "the output takes std's shape when mean is a number"
    with pytest.raises(TypeError, match=r"normal\(\) received an invalid combination of arguments"):
        torch.normal(0.0, 1.0)  # two numbers and no size: no overload


@pytest.mark.claim("tensor.normal-size-tensor-args", half="holding")
def test_normal_with_size_reads_0_dim_tensors_as_numbers():
    for mean, std in [(torch.tensor(5.0), torch.tensor(0.5)), (torch.tensor(5.0), 0.5), (5.0, torch.tensor(0.5))]:
        out = torch.normal(mean, std, size=(2, 3))
        assert out.shape == (2, 3)
        assert ((out - 5.0).abs() < 5).all(), f"draws {out.tolist()} are not around mean 5"


@pytest.mark.claim("tensor.normal-size-tensor-args", half="failing")
def test_normal_with_size_rejects_one_element_tensors_of_shape_1():
    with pytest.raises(TypeError, match=r"normal\(\) received an invalid combination of arguments"):
        torch.normal(torch.tensor([5.0]), torch.tensor([0.5]), size=(2, 3))


# -- torch.rand ------------------------------------------------------------------------


@pytest.mark.claim("tensor.rand-range", decides="holds")
def test_rand_draws_uniformly_from_0_inclusive_to_1_exclusive():
    x = torch.rand(100_000, dtype=torch.float64)
    assert x.min().item() >= 0.0 and x.max().item() < 1.0
    counts = torch.histc(x, bins=10, min=0.0, max=1.0)
    # 10 000 expected per bin, standard deviation about 95
    assert ((counts - 10_000).abs() < 500).all(), f"bin counts {counts.tolist()} are not flat"
    assert torch.rand(2, 3).shape == torch.rand((2, 3)).shape == (2, 3)


@pytest.mark.claim("tensor.rand-no-size", decides="wrong")
def test_rand_without_a_size_is_an_error():
    with pytest.raises(TypeError, match=r"rand\(\) received an invalid combination of arguments"):
        torch.rand()
    # a single number takes an explicit empty size (0-dim) or size 1
    assert torch.rand(()).shape == () and torch.rand(1).shape == (1,)


@pytest.mark.claim("tensor.rand-vs-uniform")
def test_there_is_no_torch_uniform_and_rand_is_the_uniform_draw():
    assert not hasattr(torch, "uniform"), f"torch.uniform exists on torch {torch.__version__}"
    # rand makes the very same draws as filling a tensor with uniform_ on [0, 1)
    torch.manual_seed(1)
    a = torch.rand(1000)
    torch.manual_seed(1)
    b = torch.empty(1000).uniform_()
    assert torch.equal(a, b), "rand and uniform_ draw differently from the same seed"
    # and an affine map of it gives uniform draws on [lo, hi)
    torch.manual_seed(1)
    c = torch.empty(1000).uniform_(2.0, 6.0)
    torch.testing.assert_close(c, 2.0 + 4.0 * a)
