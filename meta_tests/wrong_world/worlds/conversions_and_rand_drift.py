"""Tensor conversions and torch.rand where the note is wrong: Tensor.tolist() gives a flat list,
torch.from_numpy makes float64 arrays float32 tensors, and torch.rand draws from [0, 2).

Makes tensor.numpy-tolist-methods, tensor.from-numpy and tensor.rand-range wrong (they hold): their
holds tests go red.
"""
import torch

_tolist, _from_numpy, _rand = torch.Tensor.tolist, torch.from_numpy, torch.rand


def tolist(self):
    out = _tolist(self)
    return _tolist(self.flatten()) if isinstance(out, list) else out  # nesting lost


def from_numpy(array):
    t = _from_numpy(array)
    return t.float() if t.dtype == torch.float64 else t


def rand(*args, **kwargs):
    return _rand(*args, **kwargs) * 2


def apply():
    torch.Tensor.tolist = tolist
    torch.from_numpy = from_numpy
    torch.rand = rand
