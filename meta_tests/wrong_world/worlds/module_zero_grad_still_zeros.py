"""Module.zero_grad that still zeros the gradients (set_to_none defaults to False).

Makes optim.model-zero-grad-zeros wrong.
"""
import torch

_zero_grad = torch.nn.Module.zero_grad


def zero_grad(self, set_to_none: bool = False):
    return _zero_grad(self, set_to_none=set_to_none)


def apply():
    torch.nn.Module.zero_grad = zero_grad
