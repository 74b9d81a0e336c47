"""An nn.RNN that builds at most two hidden layers whatever num_layers asks for: num_layers=3
gives a two-layer RNN (no weight_hh_l2, an h_n of two layers); one and two layers are built as
before.

Makes nn.rnn-defaults wrong (its holding case: each of num_layers=3 hidden layers has hidden_size
neurons).
"""
from torch import nn

_init = nn.RNN.__init__


def __init__(self, *args, **kwargs):
    if kwargs.get("num_layers", 1) > 2:
        kwargs["num_layers"] = 2
    elif len(args) > 2 and args[2] > 2:  # RNN(input_size, hidden_size, num_layers, ...)
        args = (*args[:2], 2, *args[3:])
    _init(self, *args, **kwargs)


def apply():
    nn.RNN.__init__ = __init__
