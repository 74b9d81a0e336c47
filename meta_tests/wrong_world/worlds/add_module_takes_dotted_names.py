"""nn.Module.add_module that registers a name with dots in it as it is, the way the note's loop needs:
every (name, module) pair of named_modules(), nested layers included, copies straight over.

Makes the note right about nn.named-modules-add-module, which is refuted: its tests must go red.
"""
from torch import nn

_add_module = nn.Module.add_module


def add_module(self, name, module):
    if isinstance(name, str) and "." in name:
        self._modules[name] = module
        return None
    return _add_module(self, name, module)


def apply():
    nn.Module.add_module = add_module
