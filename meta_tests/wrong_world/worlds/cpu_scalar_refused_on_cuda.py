"""CUDA arithmetic that refuses every CPU tensor, a 0-dim one included, as the note says CPU and GPU
tensors never mix.

Makes the note right where dtype.cuda-cpu-mix's failing half says it is wrong (a 0-dim CPU tensor
combines with a CUDA tensor as a scalar): its failing-half test goes red (needs a GPU).
"""
import torch

_add = torch.Tensor.__add__


def add(self, other):
    if isinstance(other, torch.Tensor) and self.device.type != other.device.type:
        raise RuntimeError("Expected all tensors to be on the same device (this world: a 0-dim CPU tensor too)")
    return _add(self, other)


def apply():
    torch.Tensor.__add__ = add
