"""float32 matmuls that accept torch.backends.cuda.matmul.allow_tf32 and ignore it: no TF32 kernel runs.

Makes cudnn.tf32-speed-precision wrong (its precision side).
"""
import torch

_matmul = torch.Tensor.__matmul__


def __matmul__(a, b):
    flag = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False  # the flag is accepted, and ignored
    try:
        return _matmul(a, b)
    finally:
        torch.backends.cuda.matmul.allow_tf32 = flag


def apply():
    torch.Tensor.__matmul__ = __matmul__
