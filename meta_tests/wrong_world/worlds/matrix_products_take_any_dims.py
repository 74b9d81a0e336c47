"""Matrix products as the note states them: torch.mm multiplies a matrix by a vector, torch.bmm takes
any number of leading (batch) dims, and torch.matmul reads a 1-D argument as a matrix (a row first, a
column second), never dropping its axis.

Makes the note right about tensor.mm-vector (refuted: its wrong test goes red) and where the failing
halves of tensor.bmm-leading-dims and tensor.matmul-general say it is wrong (their left-out tests go red).
"""
import torch

_mm, _bmm, _matmul = torch.mm, torch.bmm, torch.matmul


def mm(input, mat2, *args, **kwargs):
    if input.dim() == 2 and mat2.dim() == 1:
        return _mm(input, mat2[:, None], *args, **kwargs)[:, 0]  # matrix times vector
    return _mm(input, mat2, *args, **kwargs)


def bmm(input, mat2, *args, **kwargs):
    if input.dim() > 3 and mat2.dim() > 3:
        return _matmul(input, mat2)  # every leading dim is a batch dim
    return _bmm(input, mat2, *args, **kwargs)


def matmul(input, other, *args, **kwargs):
    if input.dim() == 1:
        input = input[None, :]  # a 1 x n matrix
    if other.dim() == 1:
        other = other[:, None]  # an n x 1 matrix
    return _matmul(input, other, *args, **kwargs)


def apply():
    torch.mm, torch.bmm, torch.matmul = mm, bmm, matmul
