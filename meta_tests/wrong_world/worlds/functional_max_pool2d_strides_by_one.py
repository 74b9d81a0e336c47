"""A torch.nn.functional.max_pool2d whose stride defaults to 1 (as F.conv2d's does), where
nn.MaxPool2d's defaults to the kernel size and the module passes it explicitly: F.max_pool2d(x, 2)
and nn.MaxPool2d(2) no longer compute the same pooling. F.conv2d and the other functions are left
as they are.

Makes nn.functional-vs-module wrong (its holding case: the Linear, Conv1d, MaxPool2d, BatchNorm2d
in eval and Embedding pairs).
"""
import torch.nn.functional as F

_max_pool2d = F.max_pool2d


def max_pool2d(input, kernel_size, stride=None, *args, **kwargs):
    if stride is None or (isinstance(stride, (list, tuple)) and not stride):
        stride = 1
    return _max_pool2d(input, kernel_size, stride, *args, **kwargs)


def apply():
    F.max_pool2d = max_pool2d
