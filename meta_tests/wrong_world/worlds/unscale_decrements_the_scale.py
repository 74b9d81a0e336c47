"""GradScaler.unscale_ that lowers the scale by one, as the note's 65535 after unscale_ would have it.

Makes amp.get-scale-after-unscale wrong: get_scale() after unscale_ differs from the scale before.
"""
import torch

_unscale = torch.amp.GradScaler.unscale_


def unscale_(self, optimizer):
    _unscale(self, optimizer)
    self._scale -= 1  # the note's 65535


def apply():
    torch.amp.GradScaler.unscale_ = unscale_
