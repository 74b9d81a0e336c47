"""torchvision's model builders and roi_pool as the notes describe them (independent patches, one
spec run):

- models.densenet_161 is the DenseNet-161 builder                     -> tv.densenet-161
- roi_pool takes rois as a list of (4,)-shaped boxes, one per sample   -> tv.roi-pool-list-4
- roi_pool's sub-bin boundaries are rounded up: bin i of an RoI of L cells cut into n covers
  [ceil(i*L/n), ceil((i+1)*L/n))                                      -> tv.roi-pool-bins-ceil
- a builder called with pretrained=True gives no deprecation warning (torchvision before 0.13)
                                                                      -> tv.models-pretrained-kwarg

Makes the note right about each: tv.densenet-161, tv.roi-pool-list-4 and tv.roi-pool-bins-ceil
(refuted) must go red, and tv.models-pretrained-kwarg (partly) must go red on its left-out test.
"""
import math
import warnings

import torch
import torchvision.models
import torchvision.models._utils as model_utils
import torchvision.ops
from torchvision.ops._utils import convert_boxes_to_roi_format

LEGACY_WARNINGS = ("The parameter '", "Arguments other than a weight enum")


class WarningsWithoutTheLegacyInterface:
    """The `warnings` module as torchvision.models._utils sees it: the pretrained= warnings dropped."""

    def __getattr__(self, name):
        return getattr(warnings, name)

    def warn(self, message, *args, **kwargs):
        if not str(message).startswith(LEGACY_WARNINGS):
            warnings.warn(message, *args, **kwargs)


def bounds(start, cells, bins, i, limit):
    """Cells [begin, end) of bin i, both edges rounded up, clipped to the feature map."""
    begin = start + math.ceil(i * cells / bins)
    end = start + math.ceil((i + 1) * cells / bins)
    return min(max(begin, 0), limit), min(max(end, 0), limit)


def roi_pool(input, boxes, output_size, spatial_scale=1.0):
    if not isinstance(boxes, torch.Tensor):
        boxes = [b.unsqueeze(0) if b.dim() == 1 else b for b in boxes]
        boxes = convert_boxes_to_roi_format(boxes)
    ph, pw = (output_size, output_size) if isinstance(output_size, int) else output_size
    height, width = input.shape[-2:]
    out = input.new_zeros(len(boxes), input.shape[1], ph, pw)
    for k, (b, x1, y1, x2, y2) in enumerate(boxes.tolist()):
        x1, y1, x2, y2 = (round(v * spatial_scale) for v in (x1, y1, x2, y2))
        rows, cols = max(y2 - y1 + 1, 1), max(x2 - x1 + 1, 1)
        for i in range(ph):
            r0, r1 = bounds(y1, rows, ph, i, height)
            for j in range(pw):
                c0, c1 = bounds(x1, cols, pw, j, width)
                region = input[int(b), :, r0:r1, c0:c1]
                if region.numel():
                    out[k, :, i, j] = region.amax(dim=(-2, -1))
    return out


def apply():
    torchvision.models.densenet_161 = torchvision.models.densenet161
    torchvision.ops.roi_pool = roi_pool
    model_utils.warnings = WarningsWithoutTheLegacyInterface()
