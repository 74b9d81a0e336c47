"""A torch.jit.trace that keeps control flow: it scripts instead.

Makes jit.trace-control-flow wrong.
"""
import torch


def apply():
    torch.jit.trace = lambda func, example_inputs=None, *args, **kwargs: torch.jit.script(func)
