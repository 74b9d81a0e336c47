"""Wrong-world code that more than one meta test file uses (see spec_runner.py for how a patch is
run; conftest.py holds the spec run these files share)."""

# the benchmark worlds' spec runs: serial, as pytest-benchmark needs
SERIAL = ("-p", "no:xdist")

# One spec run for the optim, autograd and init worlds (conftest.py): independent patches of SGD,
# clip_grad_norm_, kaiming_normal_, Tensor and Optimizer.
OPTIM_AUTOGRAD_INIT_WORLD = """
import sys

import torch
import torch.nn.init
import torch.nn.utils
import torch.optim.sgd

# SGD that climbs: x <- x + lr * grad
_sgd_module = sys.modules["torch.optim.sgd"]
_sgd = _sgd_module.sgd

def sgd(*args, **kwargs):
    kwargs["lr"] = -kwargs["lr"]
    return _sgd(*args, **kwargs)

_sgd_module.sgd = sgd

# clip_grad_norm_ that rescales every gradient to max_norm, small ones included
def clip_grad_norm_(parameters, max_norm, norm_type=2.0, *args, **kwargs):
    params = [parameters] if isinstance(parameters, torch.Tensor) else list(parameters)
    grads = [p.grad for p in params if p.grad is not None]
    total = torch.cat([g.flatten() for g in grads]).norm(norm_type)
    for g in grads:
        g.mul_(max_norm / (total + 1e-6))
    return total

torch.nn.utils.clip_grad_norm_ = clip_grad_norm_

# kaiming_normal_ that ignores mode and always uses fan_in
_kaiming_normal_ = torch.nn.init.kaiming_normal_

def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", *args, **kwargs):
    return _kaiming_normal_(tensor, a, "fan_in", nonlinearity, *args, **kwargs)

torch.nn.init.kaiming_normal_ = kaiming_normal_

# the note's world: require_grad is an alias of requires_grad, grad_zero of zero_grad
torch.Tensor.require_grad = property(lambda t: t.requires_grad, lambda t, v: t.requires_grad_(v))
torch.optim.Optimizer.grad_zero = torch.optim.Optimizer.zero_grad
"""
