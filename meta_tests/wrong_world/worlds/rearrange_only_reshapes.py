"""einops.rearrange that only reshapes: right shapes, axes never moved.

Makes lib.einops-rearrange wrong.
"""
import einops

_rearrange = einops.rearrange


def rearrange(tensor, pattern, **axes_lengths):
    return tensor.reshape(_rearrange(tensor, pattern, **axes_lengths).shape)


def apply():
    einops.rearrange = rearrange
