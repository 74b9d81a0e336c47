"""torch.load as before 2.6 (weights_only defaulting to False), and a torch.load that ignores map_location:
the serialization boundaries most likely to drift between versions.

Makes serial.save-load-checkpoint-module and serial.map-location-cpu wrong.
"""
import torch

_load = torch.load


def load(f, map_location=None, pickle_module=None, *, weights_only=None, **kwargs):
    if weights_only is None:
        weights_only = False
    return _load(f, weights_only=weights_only, **kwargs)


def apply():
    torch.load = load
