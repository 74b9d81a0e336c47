"""torch.arange(..., requires_grad=True) as the note describes it: integer arguments give a floating
tensor that can require grad, and gradient storage is allocated at creation (.grad is zeros at once).

Makes the note right about dtype.arange-requires-grad, which is refuted: its wrong tests go red.
"""
import torch

_arange = torch.arange


def arange(*args, requires_grad=False, **kwargs):
    t = _arange(*args, **kwargs)
    if not requires_grad:
        return t
    if not (t.is_floating_point() or t.is_complex()):
        t = t.float()
    t.requires_grad_(True)
    t.grad = torch.zeros_like(t)
    return t


def apply():
    torch.arange = arange
