"""Tensor.tolist() that gives Python floats for the elements of an integer tensor (an int64 tensor's
[[1, -2], [3, 40]] comes back as [[1.0, -2.0], [3.0, 40.0]]); floating tensors convert as before.

Makes tensor.numpy-tolist-methods wrong: tolist() gives a list of the tensor's values as the Python
scalars of its dtype.
"""
import torch


def apply():
    tolist = torch.Tensor.tolist

    def tolist_as_floats(self):
        if self.dtype.is_floating_point or self.dtype.is_complex or self.dtype == torch.bool:
            return tolist(self)
        return tolist(self.double())

    torch.Tensor.tolist = tolist_as_floats
