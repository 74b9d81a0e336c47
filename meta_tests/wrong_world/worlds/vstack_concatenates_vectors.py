"""vstack that concatenates 1-d inputs along dim 0 instead of making rows.

Makes tensor.vstack-hstack wrong.
"""
import torch


def apply():
    torch.vstack = lambda tensors, **kwargs: torch.cat(tensors, 0)
