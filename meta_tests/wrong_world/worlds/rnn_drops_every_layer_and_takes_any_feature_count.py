"""Two patches of nn.RNN, run together:

- dropout after each hidden layer, the last one included: in training, dropout > 0 also drops the
  RNN's output (a one-layer RNN included, with no warning that it drops nothing). Makes the note
  right about the failing half of nn.rnn-defaults: its left-out test must go red.
- an RNN that takes any number of features per sample, cutting or zero-padding them to input_size.
  Makes nn.rnn-size-args wrong (INPUT_SIZE is no longer the features a sample must have).
"""
import warnings

import torch.nn.functional as F
from torch import nn

_init, _forward = nn.RNN.__init__, nn.RNN.forward


def init(self, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="dropout option adds dropout after all but last")
        _init(self, *args, **kwargs)


def forward(self, input, hx=None):
    extra = input.size(-1) - self.input_size
    if extra > 0:
        input = input[..., :self.input_size]
    elif extra < 0:
        input = F.pad(input, (0, -extra))
    out, h_n = _forward(self, input, hx)
    if self.training and self.dropout > 0:
        out = F.dropout(out, self.dropout, training=True)
    return out, h_n


def apply():
    nn.RNN.__init__, nn.RNN.forward = init, forward
