"""A DataLoader that ignores an explicit batch_size: every batch holds one sample, its default,
whatever size it is given (batch_size=None, no automatic batching, is kept).

Makes data.batch-size-default wrong (its holding case: explicit batch sizes 2, 3 and 7).
"""
import functools

from torch.utils import data

_init = data.DataLoader.__init__


@functools.wraps(_init)  # the spec reads DataLoader's defaults from its signature
def __init__(self, dataset, batch_size=1, *args, **kwargs):
    if isinstance(batch_size, int):
        batch_size = 1
    _init(self, dataset, batch_size, *args, **kwargs)


def apply():
    data.DataLoader.__init__ = __init__
