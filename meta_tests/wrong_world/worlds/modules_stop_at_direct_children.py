"""nn.Module.modules() that does not recurse: it yields the module and its direct children only, so a
layer nested in a child container is never reached.

Makes init.kaiming-conv wrong: the note's init loop over model.modules() gives kaiming_normal_'s
fan_out std to the top-level Conv2d layers only; a Conv2d nested in an inner nn.Sequential keeps its
default initialization. A flat model (every conv a direct child) is initialized as before.
"""
import torch


def apply():
    def modules(self):
        yield self
        yield from self.children()

    torch.nn.Module.modules = modules
