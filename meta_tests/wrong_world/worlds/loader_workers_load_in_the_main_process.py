"""A DataLoader that loads in the main process whatever num_workers says: num_workers=2 starts no
worker process (as num_workers=0 does); a negative value is still refused.

Makes data.num-workers-default and data.num-workers-zero-main wrong (their holding case:
num_workers=2 loads the data in two worker processes).
"""
import functools
import inspect

from torch.utils import data

_init = data.DataLoader.__init__
_signature = inspect.signature(_init)


@functools.wraps(_init)  # the spec reads DataLoader's defaults from its signature
def __init__(self, *args, **kwargs):
    bound = _signature.bind(self, *args, **kwargs)
    if (bound.arguments.get("num_workers") or 0) > 0:
        bound.arguments["num_workers"] = 0
        # the options that need worker processes, left at their defaults
        bound.arguments.pop("prefetch_factor", None)
        bound.arguments.pop("persistent_workers", None)
    _init(*bound.args, **bound.kwargs)


def apply():
    data.DataLoader.__init__ = __init__
