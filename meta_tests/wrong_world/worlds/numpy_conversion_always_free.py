"""Tensor.numpy() and torch.from_numpy() that take every CPU tensor and array, as the note's
round trip has it: numpy() of a tensor that requires grad or is bfloat16 converts (detached, as
float32), and from_numpy of a negatively strided array copies it first.

Makes the note right where dtype.numpy-roundtrip's failing half says it is wrong: its failing-half
test goes red.
"""
import numpy as np
import torch

_numpy = torch.Tensor.numpy
_from_numpy = torch.from_numpy


def numpy(self, *args, **kwargs):
    t = self.detach()
    if t.dtype == torch.bfloat16:
        t = t.float()
    return _numpy(t, *args, **kwargs)


def from_numpy(array):
    if any(s < 0 for s in array.strides):
        array = np.ascontiguousarray(array)
    return _from_numpy(array)


def apply():
    torch.Tensor.numpy = numpy
    torch.from_numpy = from_numpy
