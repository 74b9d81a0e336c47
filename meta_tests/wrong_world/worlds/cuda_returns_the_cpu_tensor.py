"""Tensor.cuda() that hands back the CPU tensor itself: no copy is made on the GPU.

Makes dtype.cuda-cpu-methods wrong (it holds; decided on a GPU): its test goes red.
"""
import torch


def apply():
    torch.Tensor.cuda = lambda self, *args, **kwargs: self
