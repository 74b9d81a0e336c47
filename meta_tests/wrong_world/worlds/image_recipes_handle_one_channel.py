"""The note's world for the image recipes: PIL.Image.fromarray takes an H x W x 1 array as a grayscale
image, and permute(2, 0, 1) of an H x W tensor reads it as H x W x 1. Then the fromarray recipe handles
one channel like to_pil_image, and the asarray recipe handles grayscale / palette images like to_tensor;
and to_tensor scales every image into [0, 1], 16-bit and float ones included.

Makes dtype.pil-from-tensor, dtype.to-pil-image-equivalence, dtype.pil-to-tensor-manual and
dtype.to-tensor-func wrong: their refuting tests go red.
"""
import numpy as np
import PIL.Image
import torch
import torchvision.transforms.functional as TF

_fromarray = PIL.Image.fromarray


def fromarray(obj, *args, **kwargs):
    array = np.asarray(obj)
    if array.ndim == 3 and array.shape[2] == 1:
        array = array[:, :, 0]
    return _fromarray(array, *args, **kwargs)


_permute = torch.Tensor.permute


def permute(self, *dims):
    order = tuple(dims[0]) if len(dims) == 1 and isinstance(dims[0], (tuple, list)) else dims
    if self.dim() == 2 and order == (2, 0, 1):
        return _permute(self.unsqueeze(-1), order)
    return _permute(self, *dims)


_to_tensor = TF.to_tensor


def to_tensor(pic):
    t = _to_tensor(pic)
    if getattr(pic, "mode", None) in ("I;16", "I", "F"):
        t = t.float()
        t = t / t.max().clamp(min=1)
    return t


def apply():
    PIL.Image.fromarray = fromarray
    torch.Tensor.permute = permute
    TF.to_tensor = to_tensor
