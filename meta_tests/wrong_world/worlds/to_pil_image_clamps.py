"""A ToPILImage that keeps float pixels inside [0, 1] by itself.

Makes tv.to-pil-no-clamp wrong.
"""
import torch
import torchvision.transforms.functional as F

_to_pil_image = F.to_pil_image


def to_pil_image(pic, mode=None):
    if isinstance(pic, torch.Tensor) and pic.is_floating_point():
        pic = pic.clamp(0, 1)
    return _to_pil_image(pic, mode)


def apply():
    F.to_pil_image = to_pil_image
