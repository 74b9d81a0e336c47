"""The note's signature: einops.rearrange(element, pattern), no keyword axis sizes.

Makes lib.einops-rearrange wrong (its signature side).
"""
import einops

_rearrange = einops.rearrange


def rearrange(element, pattern):
    return _rearrange(element, pattern)


def apply():
    einops.rearrange = rearrange
