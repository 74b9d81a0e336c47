"""Optimizers that keep copies of the parameters they are given, not the parameters themselves.

Makes optim.param-groups-are-model-parameters wrong: an optimizer built as
optim.Optimizer(net.parameters()) holds in its param_groups new tensors equal to the model's
parameters, not the model's parameters().
"""
import torch
import torch.optim

_add_param_group = torch.optim.Optimizer.add_param_group


def add_param_group(self, param_group):
    params = param_group["params"]
    params = [params] if isinstance(params, torch.Tensor) else list(params)
    param_group = dict(param_group, params=[torch.nn.Parameter(p.detach().clone()) for p in params])
    return _add_param_group(self, param_group)


def apply():
    torch.optim.Optimizer.add_param_group = add_param_group
