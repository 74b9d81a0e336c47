"""The note's world for SyncBatchNorm(num_feature, eps=-1e-05): a negative eps is a valid setting,
batch normalization using its magnitude (no ValueError from the layer, no NaN from the kernel for a
channel whose batch variance is 0).

Makes dist.syncbn-negative-eps wrong (its constructor-and-forward test; the note's line itself,
with its positional argument after a keyword one, is a SyntaxError no torch can change).
"""
import torch
import torch.nn.functional as F

_kernel = torch.batch_norm
_functional = F.batch_norm


def batch_norm(input, *args, **kwargs):
    args = list(args)
    if len(args) >= 7 and isinstance(args[6], float):  # weight, bias, mean, var, training, momentum, eps
        args[6] = abs(args[6])
    return _kernel(input, *args, **kwargs)


def functional_batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
                          momentum=0.1, eps=1e-05):
    return _functional(input, running_mean, running_var, weight, bias, training, momentum, abs(eps))


def apply():
    torch.batch_norm = batch_norm
    F.batch_norm = functional_batch_norm
