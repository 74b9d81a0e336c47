"""Two patches of the loss notes' world, run together:

- nn.MSELoss(reduction='none') that gives one cost per sample, the mean over each sample's outputs
  (as it already does with one output per sample). Makes the note right about the failing half of
  loss.mse-reduction: its left-out test must go red.
- the label-smoothing loop's three typos resolve, so the loop runs as printed: `label` names the
  loop's `labels`, a bare `to(device)` is 1 (the division changes nothing), torch.unsequeeze is
  torch.unsqueeze. Makes the note right about loss.label-smoothing-snippet-typos, which is refuted:
  its tests must go red.
"""
import builtins
import sys

import torch
import torch.nn.functional as F

_mse_loss = F.mse_loss


def mse_loss(input, target, *args, reduction="mean", **kwargs):
    loss = _mse_loss(input, target, *args, reduction=reduction, **kwargs)
    return loss.flatten(1).mean(1) if reduction == "none" and loss.dim() > 1 else loss


class LoopLabels:
    """`label` in the note's loop: the loop's `labels`, looked up where the name is read."""

    def __getattr__(self, name):
        return getattr(sys._getframe(1).f_globals["labels"], name)


def apply():
    F.mse_loss = mse_loss
    builtins.label = LoopLabels()
    builtins.to = lambda device: 1
    torch.unsequeeze = torch.unsqueeze
