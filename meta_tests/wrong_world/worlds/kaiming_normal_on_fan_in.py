"""kaiming_normal_ that ignores mode and always uses fan_in.

Makes init.kaiming-conv wrong: a conv layer initialized with mode="fan_out" gets fan_in's std.
"""
import torch.nn.init

_kaiming_normal_ = torch.nn.init.kaiming_normal_


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", *args, **kwargs):
    return _kaiming_normal_(tensor, a, "fan_in", nonlinearity, *args, **kwargs)


def apply():
    torch.nn.init.kaiming_normal_ = kaiming_normal_
