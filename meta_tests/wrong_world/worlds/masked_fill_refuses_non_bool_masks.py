"""Tensor.masked_fill that refuses a non-bool mask on every torch, as the note requires a Boolean mask
("MASK_Tensor is a Boolean tensor"); before torch 2.1 it took integer and float masks.

Makes the note right where tensor.masked-fill's failing half (before 2.1) says it is wrong: its left-out
test, which runs only on torch < 2.1, goes red.
"""
import torch

_masked_fill = torch.Tensor.masked_fill


def masked_fill(self, mask, value):
    if mask.dtype != torch.bool:
        raise RuntimeError("masked_fill_ only supports boolean masks (this world)")
    return _masked_fill(self, mask, value)


def apply():
    torch.Tensor.masked_fill = masked_fill
