"""DataParallel whose scatter sends the whole batch to device_ids[0] only.

Makes dist.dp-auto-split wrong.
"""
from torch import nn

_scatter = nn.DataParallel.scatter


def scatter(self, inputs, kwargs, device_ids):
    return _scatter(self, inputs, kwargs, list(device_ids)[:1])  # the whole batch to device_ids[0]


def apply():
    nn.DataParallel.scatter = scatter
