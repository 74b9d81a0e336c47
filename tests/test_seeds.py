"""Seeds and determinism: what torch / numpy seeding controls, and what it does not.

Notes: 000_03e1e7bc9bbd04f1.txt › 2. 随机种子 (np.random.seed, torch.manual_seed,
torch.cuda.manual_seed_all, cudnn.deterministic + benchmark); 002_d3afcdbaa9416717.txt › 固定随机种子.
"""
import contextlib

import numpy as np
import pytest
import torch
from torch import nn


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


@pytest.mark.claim("cuda.seed-reproducible")
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


@pytest.mark.claim("cuda.seed-reproducible")
def test_the_note_seeding_lines_make_a_cpu_training_run_repeat_bit_for_bit():
    first, second = cpu_training_run(), cpu_training_run()
    for a, b in zip(first, second):
        assert torch.equal(a, b), f"runs differ by {(a - b).abs().max()}"


@pytest.mark.claim("cuda.seed-reproducible")
@pytest.mark.needs(gpus=1)
def test_seeding_alone_does_not_make_atomic_cuda_reductions_repeat(cuda_device):
    def summed():
        seed_like_the_note(0)
        src = torch.randn(2**22, device=cuda_device)
        index = torch.randint(0, 8, (2**22,), device=cuda_device)
        return torch.zeros(8, device=cuda_device).scatter_add_(0, index, src)

    with deterministic_algorithms(False):
        free = [summed() for _ in range(20)]
    with deterministic_algorithms(True):
        pinned = [summed() for _ in range(5)]
    # identical inputs every time (the seed), yet float atomics add in a different order
    assert any(not torch.equal(free[0], r) for r in free[1:]), "20 seeded scatter_add_ runs agreed bit for bit"
    assert all(torch.equal(pinned[0], r) for r in pinned[1:]), "deterministic mode must repeat exactly"
    torch.testing.assert_close(free[0], pinned[0])


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


# --- cudnn.deterministic-repro --------------------------------------------------------------------


@pytest.mark.claim("cudnn.deterministic-repro")
@pytest.mark.needs(gpus=1)
def test_cudnn_deterministic_without_benchmark_repeats_conv_forward_and_backward(cuda_device, monkeypatch):
    monkeypatch.setattr(torch.backends.cudnn, "deterministic", True)  # the note's two lines
    monkeypatch.setattr(torch.backends.cudnn, "benchmark", False)
    torch.manual_seed(0)
    conv = nn.Conv2d(32, 64, 3, padding=1).to(cuda_device)
    x = torch.randn(16, 32, 28, 28, device=cuda_device, requires_grad=True)

    def run():
        conv.zero_grad()
        x.grad = None
        out = conv(x)
        out.square().sum().backward()
        return out.detach().clone(), x.grad.clone(), conv.weight.grad.clone(), conv.bias.grad.clone()

    first = run()
    for _ in range(5):
        for a, b in zip(first, run()):
            assert torch.equal(a, b), "a deterministic cuDNN convolution changed between runs"
