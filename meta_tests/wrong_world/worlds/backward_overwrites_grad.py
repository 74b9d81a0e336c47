"""backward() that overwrites .grad instead of adding to it: no accumulation, so zero_grad would not
be needed at all.

Makes optim.no-zero-grad and autograd.backward-accumulates wrong.
"""
import torch

from wrong_world.worlds import graph_leaves

_backward = torch.Tensor.backward


def backward(self, *args, **kwargs):
    for p in graph_leaves(self):
        p.grad = None
    return _backward(self, *args, **kwargs)


def apply():
    torch.Tensor.backward = backward
