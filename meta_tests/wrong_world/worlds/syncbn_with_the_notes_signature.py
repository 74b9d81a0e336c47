"""SyncBatchNorm whose constructor is exactly the note's five parameters (the one signature rule).

Makes dist.syncbn-signature wrong.
"""
import torch

_init = torch.nn.SyncBatchNorm.__init__


def __init__(self, num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True):
    _init(self, num_features, eps, momentum, affine, track_running_stats)


def apply():
    torch.nn.SyncBatchNorm.__init__ = __init__
