"""scatter_add_ on CUDA made deterministic (computed on the CPU and copied back).

Makes cuda.seed-reproducible wrong: a seeded CUDA scatter_add_ now repeats bit for bit.
"""
import torch

_scatter_add_ = torch.Tensor.scatter_add_


def scatter_add_(self, dim, index, src):
    if not self.is_cuda:
        return _scatter_add_(self, dim, index, src)
    before = (torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled())
    torch.use_deterministic_algorithms(True)  # a world where CUDA atomics always add in one order
    try:
        return _scatter_add_(self, dim, index, src)
    finally:
        torch.use_deterministic_algorithms(before[0], warn_only=before[1])


def apply():
    torch.Tensor.scatter_add_ = scatter_add_
