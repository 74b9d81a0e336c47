"""cross_entropy without log-softmax, and builtin label smoothing computed as the note's recipe (1 - eps on
the true class, eps / (C - 1) elsewhere).

Makes loss.ce-includes-softmax and loss.label-smoothing-manual-vs-builtin wrong.
"""
import torch
import torch.nn.functional as F


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
                  reduce=None, reduction="mean", label_smoothing=0.0):
    if label_smoothing:  # the note's recipe: 1 - eps on the true class, eps / (C - 1) elsewhere
        n, c = input.shape
        smoothed = torch.full_like(input, label_smoothing / (c - 1))
        smoothed.scatter_(1, target.unsqueeze(1), 1 - label_smoothing)
        return -(F.log_softmax(input, dim=1) * smoothed).sum() / n
    return F.nll_loss(input, target, weight, None, ignore_index, None, reduction)  # no log_softmax


def apply():
    F.cross_entropy = cross_entropy
