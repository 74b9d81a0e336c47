"""Flag defaults flipped: cudnn.benchmark on, TF32 on for matmul (the pre-1.12 default), off for cuDNN.

Makes cudnn.benchmark-default, cudnn.tf32-matmul-default and cudnn.tf32-cudnn-default wrong.
"""
import torch


def apply():
    torch.backends.cudnn.benchmark = True
    torch.backends.cuda.matmul.allow_tf32 = not torch.backends.cuda.matmul.allow_tf32
    torch.backends.cudnn.allow_tf32 = False
