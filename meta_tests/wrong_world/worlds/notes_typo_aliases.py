"""The notes' world for two misspellings: Tensor.require_grad is an alias of requires_grad, and
Optimizer.grad_zero one of zero_grad.

Makes autograd.require-grad-typo and optim.grad-zero-typo wrong: the misspelled names work.
"""
import torch


def apply():
    torch.Tensor.require_grad = property(lambda t: t.requires_grad, lambda t, v: t.requires_grad_(v))
    torch.optim.Optimizer.grad_zero = torch.optim.Optimizer.zero_grad
