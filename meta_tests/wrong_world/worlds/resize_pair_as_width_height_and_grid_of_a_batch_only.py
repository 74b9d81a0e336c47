"""A Resize that reads a (h, w) pair as (w, h), and a make_grid that takes only a batch tensor.

Makes tv.resize-shape wrong: Resize((h, w)) gives a w x h image. Makes tv.make-grid-list wrong:
make_grid([Tensor, ...]) raises TypeError, only a 4-D batch is accepted.
"""
import torchvision.transforms
import torchvision.utils

_resize_init = torchvision.transforms.Resize.__init__
_make_grid = torchvision.utils.make_grid


def __init__(self, size, *args, **kwargs):
    if isinstance(size, (list, tuple)) and len(size) == 2:
        size = (size[1], size[0])
    _resize_init(self, size, *args, **kwargs)


def make_grid(tensor, *args, **kwargs):
    if isinstance(tensor, (list, tuple)):
        raise TypeError("make_grid takes a batch tensor (B, C, H, W), not a list")
    return _make_grid(tensor, *args, **kwargs)


def apply():
    torchvision.transforms.Resize.__init__ = __init__
    torchvision.utils.make_grid = make_grid
