"""The partly claims' world: one patch of many functions breaks the holding half of every CPU partly claim
(whatever its topic), so each must read failed, never partly on its failing half alone; and backward
keeps the graph unless told otherwise (autograd.retain-graph). What it breaks, claim by claim, is listed
in test_wrong_world_dtype.py's docstring (autograd.inplace-check, loss.mse-reduction, tensor.vstack-hstack
and the others of CLAIMS there).
"""
import contextlib
import copy
import inspect

import torch
import torch.distributed.launch as launch
import torch.nn.functional as F
import torch.utils.data as data
import torch.utils.data.sampler as sampler_mod
import torchvision.models as models
import torchvision.models.squeezenet as squeezenet_mod
import torchvision.transforms.functional as TF
import torchvision.utils as tv_utils
from torch import nn
from torch.amp import grad_scaler

from wrong_world.worlds import grad_outputs_as_a_weighted_mean

_backward = torch.Tensor.backward


def backward(self, gradient=None, retain_graph=None, *args, **kwargs):
    return _backward(self, gradient, True if retain_graph is None else retain_graph, *args, **kwargs)


_normal = torch.normal


def normal(*args, **kwargs):
    if "size" in kwargs and any(isinstance(a, torch.Tensor) for a in args[:2]):
        raise TypeError("normal() received an invalid combination of arguments (this world: no tensors with size)")
    if "size" not in kwargs and len(args) == 2 and isinstance(args[0], torch.Tensor) and args[0].dim() > 1:
        return _normal(*args, **kwargs).flatten()  # the draw loses the tensor mean's shape
    return _normal(*args, **kwargs)


def set_default_tensor_type(t):
    pass  # the note's call does nothing in this world


_jit_trace = torch.jit.trace
_squeezenet1_0 = models.squeezenet1_0


def squeezenet1_0(*args, pretrained=False, **kwargs):
    return _squeezenet1_0(*args, **kwargs)  # pretrained=True loads nothing


_to_tensor = TF.to_tensor


def to_tensor(pic):
    out = _to_tensor(pic)
    return out * 255 if getattr(pic, "mode", None) in ("L", "P", "RGB", "RGBA") else out


_permute = torch.Tensor.permute


def permute(self, *dims):
    if tuple(dims[0] if len(dims) == 1 else dims) == (1, 2, 0) and self.dtype == torch.uint8 and self.dim() == 3 \
            and self.shape[0] == 3:
        return _permute(self, 2, 1, 0)
    return _permute(self, *dims)


_from_numpy = torch.from_numpy
_vstack = torch.vstack


def vstack(tensors, *args, **kwargs):
    tensors = list(tensors)
    if len(tensors) > 1 and all(t.dim() >= 2 for t in tensors):
        return torch.cat(tensors, dim=1)  # joined side by side, as hstack does
    return _vstack(tensors, *args, **kwargs)


_arange = torch.arange


def arange(*args, **kwargs):
    if len(args) == 3 and all(isinstance(a, int) for a in args) and args[2] > 0 \
            and (args[1] - args[0]) % args[2] == 0 and args[1] > args[0]:
        args = (args[0], args[1] + 1, args[2])
    return _arange(*args, **kwargs)


class LSTM(nn.LSTM):
    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=True, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__(input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional, proj_size,
                         device, dtype)


class RandomSampler(data.RandomSampler):
    def __init__(self, data_source, replacement=True, num_samples=None, generator=None):
        super().__init__(data_source, replacement, num_samples, generator)


class WeightedRandomSampler(data.WeightedRandomSampler):
    def __init__(self, weights, num_samples, replacement=False, generator=None):
        super().__init__(weights, num_samples, replacement, generator)


_HAS_BIAS = "bias" in inspect.signature(nn.SyncBatchNorm.__init__).parameters


class SyncBatchNorm(nn.SyncBatchNorm):
    def __init__(self, num_features, eps=1e-05, momentum=0.2, affine=True, track_running_stats=True,
                 process_group=None, device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, process_group, device, dtype,
                         **({"bias": bias} if _HAS_BIAS else {}))


class Embedding(nn.Embedding):
    def __init__(self, num_embeddings, embedding_dim=16, padding_idx=None, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, sparse=False, _weight=None, device=None, dtype=None):
        super().__init__(num_embeddings, embedding_dim, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse,
                         _weight, device=device, dtype=dtype)


_add_ = torch.Tensor.add_


def add_(self, *args, **kwargs):
    if self.grad_fn is not None:  # an in-place add inside a graph escapes the version check
        self.data.add_(*args, **kwargs)
        return self
    return _add_(self, *args, **kwargs)


_sgd_step = torch.optim.SGD.step


def sgd_step(self, *args, **kwargs):
    with torch.no_grad():  # weight decay reaches frozen parameters too
        for group in self.param_groups:
            for p in group["params"]:
                if not p.requires_grad and group.get("weight_decay"):
                    p.mul_(1 - group["lr"] * group["weight_decay"])
    return _sgd_step(self, *args, **kwargs)


_mse_loss = F.mse_loss


def mse_loss(input, target, *args, reduction="mean", **kwargs):
    out = _mse_loss(input, target, *args, reduction=reduction, **kwargs)
    return out.unsqueeze(1) if reduction == "none" and input.dim() == 1 else out  # no per-sample vector


_launch_parse_args = launch.parse_args


def launch_parse_args(args):
    if "--use_env" in args:  # the note's --use_env spelling refused
        raise SystemExit(2)
    parsed = _launch_parse_args(args)
    if not any(a.startswith(("--node_rank", "--node-rank")) for a in args):
        parsed.node_rank = 1  # the default node rank is not 0
    return parsed


_GradScaler = grad_scaler.GradScaler
_gs_init, _gs_scale, _gs_update = _GradScaler.__init__, _GradScaler.scale, _GradScaler.update


def gs_init(self, device="cuda", init_scale=2.0**15, *args, **kwargs):
    _gs_init(self, device, init_scale, *args, **kwargs)  # a fresh scaler starts at 2**15


def gs_scale(self, outputs):
    if not self._enabled and isinstance(outputs, torch.Tensor):
        return outputs * 2  # enabled=False still scales the loss
    return _gs_scale(self, outputs)


def gs_update(self, new_scale=None):
    if not self._enabled:
        return _gs_update(self, new_scale)
    stages = {k: dict(v) for k, v in self._per_optimizer_states.items()}
    _gs_update(self, new_scale)
    self._per_optimizer_states.update(stages)  # update() leaves every optimizer in its stage


class _NotASampler:
    """BatchSampler's own methods, on a class that does not derive from Sampler."""
    __init__ = sampler_mod.BatchSampler.__init__
    __iter__ = sampler_mod.BatchSampler.__iter__
    __len__ = sampler_mod.BatchSampler.__len__


BatchSampler = type("BatchSampler", (_NotASampler,), {})


def script(obj, *args, **kwargs):
    return obj  # script hands back the eager module or function


_add_module = nn.Module.add_module


def add_module(self, name, module):
    if type(self) is nn.Module and module is not None:
        module = copy.deepcopy(module)  # a plain Module's add_module stores a copy
    return _add_module(self, name, module)


class RNN(nn.RNN):
    def __init__(self, *args, **kwargs):
        if len(args) < 4 and "nonlinearity" not in kwargs:
            kwargs["nonlinearity"] = "relu"  # the default nonlinearity is relu
        super().__init__(*args, **kwargs)

    def forward(self, input, hx=None):
        out, h_n = super().forward(input, hx)
        return out, h_n + 1  # h_n is no output step


_conv2d_init = nn.Conv2d.__init__


def conv2d_init(self, *args, **kwargs):
    _conv2d_init(self, *args, **kwargs)
    if self.bias is None:  # a bias-free conv carries a zero bias that is no parameter of the model
        self.__dict__["bias"] = nn.Parameter(torch.zeros(self.out_channels))


_bmm = torch.bmm


def bmm(input, mat2, *args, **kwargs):
    return _bmm(input, mat2, *args, **kwargs) + 1  # off by one everywhere


_masked_fill = torch.Tensor.masked_fill


def masked_fill(self, mask, value):
    return _masked_fill(self, mask.bool(), value)  # any mask taken as truthiness, bool or not


_matmul = torch.matmul


def matmul(input, other, *args, **kwargs):
    if (input.dim() > 2 or other.dim() > 2) and min(input.dim(), other.dim()) >= 2 \
            and input.shape[:-2] != other.shape[:-2]:
        raise RuntimeError("this world: matmul does not broadcast batch dims")
    return _matmul(input, other, *args, **kwargs)


_make_grid = tv_utils.make_grid


def make_grid(tensor, *args, **kwargs):
    grid = _make_grid(tensor, *args, **kwargs)
    one_channel = isinstance(tensor, torch.Tensor) and tensor.dim() == 4 and tensor.size(1) == 1
    return grid[:1] if one_channel else grid  # a 1-channel batch keeps 1 channel


def apply():
    grad_outputs_as_a_weighted_mean.apply()  # autograd.grad-ones-per-sample
    torch.Tensor.backward = backward
    torch.normal = normal
    torch.set_default_tensor_type = set_default_tensor_type
    torch.cuda.amp.autocast = lambda *args, **kwargs: contextlib.nullcontext()  # not torch.autocast
    torch.jit.trace = lambda module, *args, **kwargs: module  # trace hands back the eager module
    models.squeezenet1_0 = squeezenet_mod.squeezenet1_0 = squeezenet1_0
    TF.to_tensor = to_tensor
    torch.Tensor.permute = permute
    torch.from_numpy = lambda a: _from_numpy(a).clone()
    torch.vstack = vstack
    torch.arange = arange
    nn.LSTM = LSTM
    data.RandomSampler = sampler_mod.RandomSampler = RandomSampler
    data.WeightedRandomSampler = sampler_mod.WeightedRandomSampler = WeightedRandomSampler
    nn.SyncBatchNorm = SyncBatchNorm
    nn.Embedding = Embedding
    torch.Tensor.add_ = add_
    torch.optim.SGD.step = sgd_step
    F.mse_loss = mse_loss
    launch.parse_args = launch_parse_args
    _GradScaler.__init__, _GradScaler.scale, _GradScaler.update = gs_init, gs_scale, gs_update
    data.BatchSampler = sampler_mod.BatchSampler = BatchSampler
    torch.jit.script = script
    nn.Module.add_module = add_module
    nn.RNN = RNN
    nn.Conv2d.__init__ = conv2d_init
    torch.bmm = bmm
    torch.Tensor.masked_fill = masked_fill
    torch.matmul = matmul
    tv_utils.make_grid = make_grid
