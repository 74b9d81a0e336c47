"""torch.jit.script, torch.jit.trace and torch.jit.load that do not warn: TorchScript as the notes
knew it, before torch 2.10 deprecated it (no "`torch.jit.<api>` is deprecated" warning).

Makes the note right about the failing half of the TorchScript claims that stand partly since
torch 2.10 for the deprecation alone: jit.script-standalone, jit.script-save-load,
jit.trace-control-flow, jit.trace-script-usage, jit.nested-example, jit.nested-preserves-control-flow,
jit.script-not-superset-of-trace, jit.script-trace-not-deprecated, jit.cpp-import-needs-torchscript:
their left-out tests must go red.
"""
import functools
import warnings

import torch


def quiet(fn):
    @functools.wraps(fn)
    def call(*args, **kwargs):
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=r"`torch\.jit\.")
            return fn(*args, **kwargs)

    return call


def apply():
    torch.jit.script, torch.jit.trace, torch.jit.load = map(quiet, (torch.jit.script, torch.jit.trace, torch.jit.load))
