"""F.dropout that does not rescale the kept values by 1/(1-p).

Makes nn.dropout-train-eval wrong.
"""
import torch.nn.functional as F

_dropout = F.dropout


def dropout(input, p=0.5, training=True, inplace=False):
    out = _dropout(input, p, training, inplace)
    return out * (1 - p) if training else out


def apply():
    F.dropout = dropout
