"""DataParallel on three GPUs that talks to no other GPU: no replicate, scatter or gather, so its
communication does not grow from two GPUs to three.

Makes dist.dp-comm-scaling read the opposite of the claim.
"""
import torch

_forward = torch.nn.DataParallel.forward


def forward(self, *inputs, **kwargs):
    if len(self.device_ids) > 2:  # the main GPU talks to no other one: no replicate, scatter or gather
        return self.module(*inputs, **kwargs)
    return _forward(self, *inputs, **kwargs)


def apply():
    torch.nn.DataParallel.forward = forward
