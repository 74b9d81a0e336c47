"""Conv2d and Linear built with bias=False that still register a bias, of zeros.

Makes nn.bias-none-without-bias wrong: a layer without a bias has a zero bias Parameter instead
of bias None, so the note's `if layer.bias is not None` guard no longer tells the two apart.
"""
import torch
from torch import nn

_conv_init, _linear_init = nn.Conv2d.__init__, nn.Linear.__init__


def _with_zero_bias(original):
    def __init__(self, *args, **kwargs):
        original(self, *args, **kwargs)
        if self.bias is None:
            out = self.out_channels if isinstance(self, nn.Conv2d) else self.out_features
            self.bias = nn.Parameter(torch.zeros(out))
    return __init__


def apply():
    nn.Conv2d.__init__ = _with_zero_bias(_conv_init)
    nn.Linear.__init__ = _with_zero_bias(_linear_init)
