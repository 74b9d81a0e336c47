"""The note's world for writes through .numpy(): autograd sees them (Tensor.numpy() bumps the
tensor's version counter, as an in-place write would).

Makes autograd.inplace-check wrong: the write through the array is caught.
"""
import torch

_numpy = torch.Tensor.numpy


def numpy(self, *args, **kwargs):
    array = _numpy(self, *args, **kwargs)
    if self.is_floating_point():
        with torch.no_grad():
            self.add_(0)  # autograd sees the coming write through the array
    return array


def apply():
    torch.Tensor.numpy = numpy
