"""torch.squeeze(t), the function called without a dim, that removes only dim 0 (when its size is 1)
instead of every size-1 axis; torch.squeeze(t, dim) and the method t.squeeze() work as before.

Makes tensor.squeeze-dim wrong: with dim left at its default None, squeeze removes every size-1 axis,
written as the function as well as the method.
"""
import torch


def apply():
    squeeze = torch.squeeze

    def squeeze_dim_0_by_default(input, *args, **kwargs):
        if not args and not kwargs and input.dim() > 0:
            return squeeze(input, 0)
        return squeeze(input, *args, **kwargs)

    torch.squeeze = squeeze_dim_0_by_default
