"""clip_grad_norm_ that rescales every gradient to max_norm, small ones included (it should only
shrink gradients whose total norm exceeds max_norm).

Makes autograd.clip-grad-norm-explode-only wrong.
"""
import torch
import torch.nn.utils


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, *args, **kwargs):
    params = [parameters] if isinstance(parameters, torch.Tensor) else list(parameters)
    grads = [p.grad for p in params if p.grad is not None]
    total = torch.cat([g.flatten() for g in grads]).norm(norm_type)
    for g in grads:
        g.mul_(max_norm / (total + 1e-6))
    return total


def apply():
    torch.nn.utils.clip_grad_norm_ = clip_grad_norm_
