"""The note's world: without zero_grad the gradients become random values (of the size the
accumulated gradient would have had, so that training still oscillates at a high level).

Makes optim.no-zero-grad wrong.
"""
import torch

from wrong_world.worlds import graph_leaves

_backward = torch.Tensor.backward


def backward(self, *args, **kwargs):
    stale = [p for p in graph_leaves(self) if p.grad is not None]
    _backward(self, *args, **kwargs)
    with torch.no_grad():
        for p in stale:
            p.grad = torch.randn_like(p.grad) * p.grad.abs().max()


def apply():
    torch.Tensor.backward = backward
