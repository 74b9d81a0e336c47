"""The note's world for the yolov5 grouping loop: Module.modules() also yields, for each parameter a
module holds under a name other than weight and bias (nn.LSTM's weight_ih_l0, bias_hh_l0, ...), a
module that holds it as `bias` (names with "bias" in them) or as `weight`, so that the loop's
hasattr(v, 'bias') / hasattr(v, 'weight') tests reach every parameter of any nn.Module.

Makes optim.yolo-param-groups wrong in its failing half (an LSTM's parameters land in a group).
Conv2d, BatchNorm2d and Linear hold only weight and bias: their modules() are unchanged.
"""
import torch.nn as nn

_modules = nn.Module.modules


class _Holder:
    def __init__(self, name, param):
        setattr(self, "bias" if "bias" in name else "weight", param)


def modules(self):
    for module in _modules(self):
        yield module
        for name, param in module.named_parameters(recurse=False):
            if name not in ("weight", "bias"):
                yield _Holder(name, param)


def apply():
    nn.Module.modules = modules
