"""torch.arange(a, b, c) that never reaches b, a fractional step included: the note's "up to but not
including b" holds for every step.

Makes the note right where tensor.arange-two-three-args's failing half says it is wrong: its
failing-half test goes red.
"""
import torch

_arange = torch.arange


def arange(*args, **kwargs):
    out = _arange(*args, **kwargs)
    if len(args) == 3 and any(isinstance(a, float) for a in args) and out.numel():
        end, step = args[1], args[2]
        keep = out < end if step > 0 else out > end
        out = out[keep]
    return out


def apply():
    torch.arange = arange
