"""arange(a) that includes a; set_default_tensor_type whose deprecation (PyTorch 2.1) is flipped: silent
where the real one warns, warning where the real one is silent.

Makes tensor.arange-one-arg and dtype.set-default-tensor-type wrong.
"""
import warnings

import torch

from fixtures.versions import torch_at_least

_arange = torch.arange


def arange(*args, **kwargs):
    if len(args) == 1 and isinstance(args[0], int):
        return _arange(args[0] + 1, **kwargs)
    return _arange(*args, **kwargs)


def set_default_tensor_type(t):
    if not torch_at_least("2.1"):
        warnings.warn("torch.set_default_tensor_type() is deprecated, use torch.set_default_dtype()", UserWarning,
                      stacklevel=1)
    torch.set_default_dtype(torch.float64 if "Double" in str(t) else torch.float32)


def apply():
    torch.arange = arange
    torch.set_default_tensor_type = set_default_tensor_type
