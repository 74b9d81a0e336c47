"""Seeds: what torch / numpy seeding controls, and what it does not.

Notes: 000_03e1e7bc9bbd04f1.txt › 2. 随机种子 (np.random.seed, torch.manual_seed,
torch.cuda.manual_seed_all); 002_d3afcdbaa9416717.txt › 固定随机种子. The same section's
cudnn.deterministic + benchmark lines are claim cudnn.deterministic-repro, in test_cudnn.py.

cuda.seed-reproducible is decided on a GPU (the CPU runs that repeat bit for bit are supporting
evidence: the note's point is CUDA).
"""
import contextlib

import numpy as np
import pytest
import torch
from torch import nn

FLOAT32_UNIT_ROUNDOFF = 2.0**-24


def draws(device):
    """One of each kind of random call a training run makes."""
    return [
        torch.rand(5, device=device),
        torch.randn(5, device=device),
        torch.randint(0, 100, (5,), device=device),
        torch.randperm(10, device=device),
        nn.functional.dropout(torch.ones(20, device=device), 0.5),
        torch.empty(5, device=device).normal_(),
    ]


def seed_like_the_note(seed=0):
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)  # queued until CUDA starts; harmless without a GPU


@contextlib.contextmanager
def deterministic_algorithms(mode):
    before = (torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled())
    torch.use_deterministic_algorithms(mode)
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(before[0], warn_only=before[1])


# --- cuda.seed-reproducible ---------------------------------------------------------------------


@pytest.mark.claim("cuda.seed-reproducible", half="holding")
@pytest.mark.claim("cuda.seed-fixes-draws", decides="holds")
def test_the_same_seed_gives_identical_draws(device):
    seed_like_the_note(0)
    first = draws(device)
    seed_like_the_note(0)
    second = draws(device)
    for a, b in zip(first, second):
        assert torch.equal(a, b), f"{a} != {b}"
    seed_like_the_note(1)
    assert not torch.equal(draws(device)[1], first[1]), "another seed gives other draws"


def cpu_training_run():
    """A tiny run with every random source: init, shuffling, dropout, numpy augmentation."""
    seed_like_the_note(0)
    model = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Dropout(0.3), nn.Linear(12, 1))
    data = torch.utils.data.TensorDataset(torch.randn(24, 6), torch.randn(24, 1))
    loader = torch.utils.data.DataLoader(data, batch_size=6, shuffle=True)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(2):
        for x, y in loader:
            x = x + torch.from_numpy(np.random.normal(0, 0.1, x.shape).astype(np.float32))
            loss = nn.functional.mse_loss(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    return [p.detach().clone() for p in model.parameters()]


@pytest.mark.claim("cuda.seed-reproducible", half="holding")
def test_the_note_seeding_lines_make_a_cpu_training_run_repeat_bit_for_bit():
    first, second = cpu_training_run(), cpu_training_run()
    for a, b in zip(first, second):
        assert torch.equal(a, b), f"runs differ by {(a - b).abs().max()}"


def summation_tolerance(src, index, bins):
    """Per-bin bound on the float32 rounding error of summing a bin's values in any order:
    8 * sqrt(n) * u * ||x||_2 (n values, unit roundoff u), i.e. 8 standard deviations of the
    random-walk error of n roundings at partial sums of size ~||x||_2. For 2**19 N(0,1)
    values per bin that is ~0.2, while orders actually differ by 5e-3..5e-2."""
    src64 = src.double()
    counts = torch.bincount(index, minlength=bins).double()
    norms = torch.zeros(bins, dtype=torch.float64, device=src.device).index_add_(0, index, src64 * src64).sqrt()
    return 8 * counts.sqrt() * FLOAT32_UNIT_ROUNDOFF * norms


@pytest.mark.claim("cuda.seed-reproducible", half="failing")
@pytest.mark.needs(gpus=1)
def test_seeding_alone_does_not_make_atomic_cuda_reductions_repeat(cuda_device):
    bins, n = 8, 2**22

    def inputs():
        seed_like_the_note(0)
        return torch.randn(n, device=cuda_device), torch.randint(0, bins, (n,), device=cuda_device)

    def summed():
        src, index = inputs()
        return torch.zeros(bins, device=cuda_device).scatter_add_(0, index, src)

    src, index = inputs()
    # the exact sums of the same float32 values (float64 keeps ~29 more bits than the spread below)
    exact = torch.zeros(bins, dtype=torch.float64, device=cuda_device).index_add_(0, index, src.double())
    tolerance = summation_tolerance(src, index, bins)
    again, again_index = inputs()
    assert torch.equal(src, again) and torch.equal(index, again_index), "the seed must fix the inputs"

    with deterministic_algorithms(False):
        free = [summed() for _ in range(20)]
    with deterministic_algorithms(True):
        pinned = [summed() for _ in range(5)]
    # identical inputs every time (the seed), yet float atomics add in a different order
    assert any(not torch.equal(free[0], r) for r in free[1:]), "20 seeded scatter_add_ runs agreed bit for bit"
    assert all(torch.equal(pinned[0], r) for r in pinned[1:]), "deterministic mode must repeat exactly"
    # every result is the same sum up to float32 rounding: the runs differ in order, not in content
    for label, results in (("atomic", free), ("deterministic", pinned)):
        worst = torch.stack([(r.double() - exact).abs() / tolerance for r in results]).max().item()
        assert worst <= 1, f"{label} sums off the exact ones by {worst:.2f}x the rounding bound {tolerance.tolist()}"


# --- cuda.numpy-seed-separate --------------------------------------------------------------------


@pytest.mark.claim("cuda.numpy-seed-separate")
def test_numpy_seed_does_not_fix_torch_draws():
    results = []
    for np_seed in (0, 1):
        np.random.seed(np_seed)
        torch.manual_seed(0)
        results.append(torch.rand(5))
    assert torch.equal(*results), "torch's draws depended on numpy's seed"
    np.random.seed(0)
    a = torch.rand(5)
    np.random.seed(0)
    b = torch.rand(5)
    assert not torch.equal(a, b), "seeding numpy reset torch's generator"


@pytest.mark.claim("cuda.numpy-seed-separate")
def test_torch_seed_does_not_fix_numpy_draws():
    results = []
    for torch_seed in (0, 1):
        np.random.seed(0)
        torch.manual_seed(torch_seed)
        results.append(np.random.rand(5))
    np.testing.assert_array_equal(results[0], results[1])
    torch.manual_seed(0)
    a = np.random.rand(5)
    torch.manual_seed(0)
    b = np.random.rand(5)
    assert not np.array_equal(a, b), "seeding torch reset numpy's generator"
