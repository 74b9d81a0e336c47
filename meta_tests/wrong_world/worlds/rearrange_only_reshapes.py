"""einops.rearrange that only reshapes: right shapes, axes never moved.

Makes lib.einops-rearrange wrong.
"""

import einops


def apply():
    _rearrange = einops.rearrange

    def rearrange(tensor, pattern, **axes_lengths):
        return tensor.reshape(_rearrange(tensor, pattern, **axes_lengths).shape)

    einops.rearrange = rearrange
