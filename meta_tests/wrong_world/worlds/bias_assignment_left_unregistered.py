"""A module that keeps an nn.Parameter assigned to its existing .bias as a plain attribute: the
layer computes with it, but the bias leaves parameters() and named_parameters(), so an optimizer
over parameters() never trains it. Assigning .weight, and a layer's construction of its own bias,
register as before.

Makes nn.parameter-assign wrong (its holding case: assigning a Parameter to the bias).
"""
from torch import nn

_setattr = nn.Module.__setattr__


def __setattr__(self, name, value):
    params = self.__dict__.get("_parameters")
    if name == "bias" and isinstance(value, nn.Parameter) and params is not None and "bias" in params:
        del params["bias"]
        object.__setattr__(self, name, value)
        return
    _setattr(self, name, value)


def apply():
    nn.Module.__setattr__ = __setattr__
