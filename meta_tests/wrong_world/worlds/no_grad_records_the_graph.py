"""torch.no_grad() that records the graph anyway, for the spec module's own calls (torch's own internals,
nn.init included, keep the real no_grad).

Makes autograd.no-grad-speed-memory wrong: no_grad saves neither time nor memory, so its benchmark fails.
"""
import sys

import torch

_no_grad = torch.no_grad


def no_grad(*args, **kwargs):
    if sys._getframe(1).f_globals.get("__name__", "").endswith("test_benchmarks_cpu"):
        return torch.enable_grad()
    return _no_grad(*args, **kwargs)


def apply():
    torch.no_grad = no_grad
