"""The note's world for choosing several GPUs at once: torch.cuda.set_device takes several indices
(a list or tuple, or a string such as 'cuda:[1, 2]' or 'cuda:1,2') and selects them, and
Module.cuda / Tensor.cuda take a list or tuple of indices, without a TypeError. Here they select
the first index where GPUs are present and leave everything where it is on a machine without
(nothing is refused).

Makes cuda.set-device-multi wrong (set_device with several indices does not raise; with
lenient_device_parser, torch.device takes 'cuda:1,2' too) and cuda.single-index-one-device wrong
(several ids are no longer refused).
"""
import re

import torch
import torch.nn as nn

_set_device = torch.cuda.set_device
_module_cuda = nn.Module.cuda
_tensor_cuda = torch.Tensor.cuda
selected = []


def _several(device):
    """The indices that `device` names when it names more than one, else None."""
    if isinstance(device, (list, tuple)) and len(device) > 1 and all(isinstance(d, int) for d in device):
        return list(device)
    if isinstance(device, str):
        found = [int(n) for n in re.findall(r"\d+", device)]
        if len(found) > 1:
            return found
    return None


def set_device(device):
    several = _several(device)
    if several is None:
        return _set_device(device)
    selected[:] = several
    if torch.cuda.is_available():
        _set_device(several[0])


def module_cuda(self, device=None):
    several = _several(device)
    if several is None:
        return _module_cuda(self, device)
    return _module_cuda(self, several[0]) if torch.cuda.is_available() else self


def tensor_cuda(self, device=None, *args, **kwargs):
    several = _several(device)
    if several is None:
        return _tensor_cuda(self, device, *args, **kwargs)
    return _tensor_cuda(self, several[0], *args, **kwargs) if torch.cuda.is_available() else self


def apply():
    torch.cuda.set_device = set_device
    nn.Module.cuda = module_cuda
    torch.Tensor.cuda = tensor_cuda
