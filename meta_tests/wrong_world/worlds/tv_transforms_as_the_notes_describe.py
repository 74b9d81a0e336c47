"""torchvision's transforms (and Python's import syntax) as the notes describe them (independent
patches, one spec run):

- ToTensor turns an H x W x C image into a C x W x H tensor         -> tv.to-tensor-layout
- ColorJitter's contrast step works on a normalised tensor without clamping it to [0, 1]
  (adjust_contrast of a float tensor blends with the grey mean, no clamp)
                                                                    -> tv.train-transform-pipeline
- a dotted name in a from-import list parses: Python's compile() reads
  `from torchvision import utils.make_grid` as `from torchvision import utils`
                                                                    -> tv.import-utils-make-grid

Makes the note right about each; all three are refuted: their tests must go red.
"""
import builtins
import re

import torch
import torchvision.transforms.functional as F
from torchvision.transforms import _functional_tensor as F_t

_to_tensor, _adjust_contrast, _compile = F.to_tensor, F.adjust_contrast, builtins.compile

FROM_IMPORT = re.compile(r"^(\s*from\s+[\w.]+\s+import\s+)([\w., ]+)$", re.MULTILINE)


def to_tensor(pic):
    t = _to_tensor(pic)
    return t.transpose(-2, -1) if t.dim() == 3 else t


def adjust_contrast(img, contrast_factor):
    if not (isinstance(img, torch.Tensor) and img.is_floating_point()):
        return _adjust_contrast(img, contrast_factor)
    grey = F_t.rgb_to_grayscale(img) if img.shape[-3] == 3 else img
    mean = grey.mean(dim=(-3, -2, -1), keepdim=True)
    return contrast_factor * img + (1.0 - contrast_factor) * mean


def dotted_names_to_their_first_part(match):
    names = ", ".join(name.strip().split(".")[0] for name in match.group(2).split(","))
    return match.group(1) + names


def compile_(source, *args, **kwargs):
    if isinstance(source, str) and "import" in source:
        source = FROM_IMPORT.sub(dotted_names_to_their_first_part, source)
    return _compile(source, *args, **kwargs)


def apply():
    F.to_tensor, F.adjust_contrast = to_tensor, adjust_contrast
    builtins.compile = compile_
