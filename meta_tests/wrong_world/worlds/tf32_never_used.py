"""TF32 switches that are remembered but never reach cuBLAS / cuDNN: TF32 is never used.

Makes cudnn.tf32-speed-precision's benchmark find no speed-up: inconclusive, never holds.
"""
import torch
from torch.backends import ContextProp

_C = torch._C
_state = {"cublas": _C._get_cublas_allow_tf32(), "precision": _C._get_float32_matmul_precision(),
          "cudnn": _C._get_cudnn_allow_tf32()}


def apply():
    _C._set_cublas_allow_tf32(False)
    _C._set_float32_matmul_precision("highest")
    _C._set_cudnn_allow_tf32(False)
    _C._get_cublas_allow_tf32 = lambda: _state["cublas"]
    _C._set_cublas_allow_tf32 = lambda v: _state.__setitem__("cublas", bool(v))
    _C._get_float32_matmul_precision = lambda: _state["precision"]
    _C._set_float32_matmul_precision = lambda v: _state.__setitem__("precision", v)
    type(torch.backends.cudnn).allow_tf32 = ContextProp(lambda: _state["cudnn"],
                                                        lambda v: _state.__setitem__("cudnn", bool(v)))
