"""torch.tensor(..., requires_grad=True) as the note describes it: gradient storage is allocated at
creation (.grad is zeros at once), and a list of integers is made floating so that it can hold one.

Makes the note right about dtype.tensor-requires-grad, which is refuted: its tests must go red.
"""
import torch

_tensor = torch.tensor


def tensor(data, *args, requires_grad=False, **kwargs):
    if not requires_grad:
        return _tensor(data, *args, **kwargs)
    t = _tensor(data, *args, **kwargs)
    if not (t.is_floating_point() or t.is_complex()):
        t = t.float()
    t.requires_grad_(True)
    t.grad = torch.zeros_like(t)
    return t


def apply():
    torch.tensor = tensor
