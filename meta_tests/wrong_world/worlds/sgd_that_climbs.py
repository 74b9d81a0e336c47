"""SGD that climbs: x <- x + lr * grad (the functional sgd called with -lr).

Makes optim.sgd-update wrong.
"""
import sys

import torch.optim.sgd  # noqa: F401  (the module, read from sys.modules: torch.optim.sgd may name the function)

_module = sys.modules["torch.optim.sgd"]
_sgd = _module.sgd


def sgd(*args, **kwargs):
    kwargs["lr"] = -kwargs["lr"]
    return _sgd(*args, **kwargs)


def apply():
    _module.sgd = sgd
