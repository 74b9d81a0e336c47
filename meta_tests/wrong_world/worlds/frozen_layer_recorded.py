"""A frozen layer always recorded: F.linear attaches a graph when nothing requires grad.

Makes autograd.requires-grad-false-semantics wrong: the frozen layer's output is recorded.
"""
import torch
import torch.nn.functional as F

_linear = F.linear


def linear(input, weight, bias=None):
    if torch.is_grad_enabled() and not any(t is not None and t.requires_grad for t in (input, weight, bias)):
        weight = weight.detach().requires_grad_()  # record the frozen layer anyway
    return _linear(input, weight, bias)


def apply():
    F.linear = linear
