"""flatten with an exclusive end_dim, squeeze that ignores its dim, cat that stacks; with them F.one_hot
whose default num_classes is max(t), and from_numpy that copies.

Makes tensor.flatten-range, tensor.squeeze-dim, tensor.cat-vs-stack, dtype.one-hot-default,
dtype.from-numpy-copy and dtype.numpy-roundtrip wrong.
"""
import torch
import torch.nn.functional as F

_flatten = torch.flatten


def flatten(input, start_dim=0, end_dim=-1):
    nd = max(input.dim(), 1)
    s, e = start_dim % nd, end_dim % nd
    return _flatten(input, s, e - 1 if s < e else e)


_squeeze = torch.Tensor.squeeze
_one_hot = F.one_hot


def one_hot(tensor, num_classes=-1):
    if num_classes == -1:
        n = int(tensor.max())
        return _one_hot(tensor, n + 1)[..., :n]
    return _one_hot(tensor, num_classes)


def apply():
    torch.flatten = flatten
    torch.Tensor.flatten = flatten
    torch.Tensor.squeeze = lambda self, *args, **kwargs: _squeeze(self)
    F.one_hot = one_hot
    torch.from_numpy = lambda array: torch.tensor(array)
    torch.cat = lambda tensors, dim=0, **kwargs: torch.stack(tensors, dim)
