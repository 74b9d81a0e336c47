"""Tensor.detach() that returns a copy instead of a view of the same storage.

Makes autograd.detach-shared wrong: the detached tensor does not share the source's storage.
"""
import torch

_detach = torch.Tensor.detach


def apply():
    torch.Tensor.detach = lambda self: _detach(self).clone()
