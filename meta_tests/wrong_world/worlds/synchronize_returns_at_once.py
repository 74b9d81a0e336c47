"""torch.cuda.synchronize that returns at once, without waiting for the queued kernels.

Makes cuda.synchronize wrong.
"""
import torch


def apply():
    torch.cuda.synchronize = lambda device=None: None
