"""Layers that cannot be created on a device: nn.Linear and nn.Conv2d refuse the device= keyword,
as before torch 1.9 (factory kwargs); a layer reaches the GPU only by .to(device) after construction.

Makes the note right about nn.linear-device-kwarg, which is refuted from torch 1.9: its tests must
go red.
"""
from torch import nn

_linear, _conv2d = nn.Linear.__init__, nn.Conv2d.__init__


def refusing_device(init):
    def __init__(self, *args, **kwargs):
        if kwargs.get("device") is not None:
            raise TypeError(f"__init__() got an unexpected keyword argument 'device' ({type(self).__name__})")
        return init(self, *args, **kwargs)

    return __init__


def apply():
    nn.Linear.__init__, nn.Conv2d.__init__ = refusing_device(_linear), refusing_device(_conv2d)
