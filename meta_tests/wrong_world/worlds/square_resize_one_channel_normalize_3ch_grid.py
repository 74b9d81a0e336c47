"""A Resize that squares the image, a Normalize that uses the first channel's mean and std for every
channel, a make_grid that always returns three channels (independent patches).

Makes tv.resize-int, tv.normalize-per-channel and tv.make-grid-3ch wrong.
"""
import torchvision.transforms.functional as F
import torchvision.utils as U

_resize, _normalize, _make_grid = F.resize, F.normalize, U.make_grid


def resize(img, size, *args, **kwargs):
    if isinstance(size, int):
        size = [size, size]
    elif len(size) == 1:
        size = [size[0], size[0]]
    return _resize(img, size, *args, **kwargs)


def normalize(tensor, mean, std, inplace=False):
    return _normalize(tensor, [float(mean[0])] * len(mean), [float(std[0])] * len(std), inplace)


def make_grid(tensor, *args, **kwargs):
    grid = _make_grid(tensor, *args, **kwargs)
    return grid[:3] if grid.shape[0] > 3 else grid[:1].expand(3, -1, -1)


def apply():
    F.resize, F.normalize, U.make_grid = resize, normalize, make_grid
