"""float32 matmul computed in float64 and rounded back: float32 can only be slower.

Keeps dtype.float-faster-than-double from holding (inconclusive or failed).
"""
import torch

_matmul = torch.Tensor.__matmul__


def matmul(self, other):
    if self.dtype == torch.float32:
        return _matmul(self.double(), other.double()).float()
    return _matmul(self, other)


def apply():
    torch.Tensor.__matmul__ = matmul
