"""torch.cuda.get_device_name that returns a generic name, not the driver's.

Makes cuda.version-info wrong.
"""
import torch


def apply():
    torch.cuda.get_device_name = lambda device=None: "CUDA GPU"
