"""A roi_pool that reads boxes as (y1, x1, y2, x2).

Makes tv.roi-pool-xy wrong.
"""
import torch
import torchvision.ops

_roi_pool = torchvision.ops.roi_pool


def roi_pool(input, boxes, output_size, spatial_scale=1.0):
    if isinstance(boxes, torch.Tensor):
        boxes = boxes[:, [0, 2, 1, 4, 3]]
    else:
        boxes = [b[:, [1, 0, 3, 2]] if b.dim() == 2 else b for b in boxes]
    return _roi_pool(input, boxes, output_size, spatial_scale)


def apply():
    torchvision.ops.roi_pool = roi_pool
