"""A torch.device parser that takes 'cuda:1,2' as 'cuda:1' instead of refusing it.

Makes cuda.device-string-multi wrong (run with cpu_autocast_in_float32 in one spec run).
"""
import torch

_Device = torch.device


class _LenientDeviceType(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, _Device)

    def __call__(cls, *args, **kwargs):
        if args and isinstance(args[0], str) and "," in args[0]:
            args = (args[0].split(",")[0],) + args[1:]
        return _Device(*args, **kwargs)


class device(metaclass=_LenientDeviceType):
    pass


def apply():
    torch.device = device
