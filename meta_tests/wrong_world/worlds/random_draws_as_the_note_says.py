"""Random draws as the note states them: torch.rand() without a size draws a single number (0-dim),
torch.normal without a size needs a tensor mean (a number mean with a tensor std is refused), and
torch.normal with a size reads one-element tensors of shape (1,) as numbers too.

Makes the note right about tensor.rand-no-size (refuted: its wrong test goes red) and where the failing
halves of tensor.normal-tensor-mean and tensor.normal-size-tensor-args say it is wrong (their
left-out / failing-half tests go red).
"""
import numbers

import torch

_rand, _normal = torch.rand, torch.normal


def rand(*size, **kwargs):
    if not size and "size" not in kwargs:
        return _rand((), **kwargs)  # one number
    return _rand(*size, **kwargs)


def normal(*args, **kwargs):
    if "size" not in kwargs and len(args) == 2 and isinstance(args[0], numbers.Number) \
            and isinstance(args[1], torch.Tensor):
        raise TypeError("this world: normal() without a size needs a tensor mean")
    if "size" in kwargs:
        args = tuple(a.item() if isinstance(a, torch.Tensor) and a.numel() == 1 else a for a in args[:2]) + args[2:]
    return _normal(*args, **kwargs)


def apply():
    torch.rand, torch.normal = rand, normal
