"""nn.Linear that ignores its bias, and an nn.ModuleList that keeps its layers unregistered.

Makes nn.linear-weight-orientation and nn.modulelist-registers wrong.
"""
import torch
import torch.nn.functional as F

_linear = F.linear


class ModuleList(torch.nn.Module):
    def __init__(self, modules=None):
        super().__init__()
        object.__setattr__(self, "_items", list(modules or []))
    def __iter__(self):
        return iter(self._items)
    def __getitem__(self, i):
        return self._items[i]
    def __len__(self):
        return len(self._items)


def apply():
    F.linear = lambda input, weight, bias=None: _linear(input, weight)
    torch.nn.ModuleList = ModuleList
