"""The note's DataParallel: wrapping the model is all it takes. DataParallel(model, device_ids=...)
moves the model to device_ids[0] itself, whatever the number of ids (torch does so for a single id
only).

Makes dist.dp-wrap-one-line wrong (needs two CUDA GPUs, like its test).
"""
import torch

_init = torch.nn.DataParallel.__init__


def __init__(self, module, device_ids=None, *args, **kwargs):
    if device_ids and torch.cuda.is_available():
        first = device_ids[0]
        module.to(first if isinstance(first, torch.device) else torch.device("cuda", first))
    _init(self, module, device_ids, *args, **kwargs)


def apply():
    torch.nn.DataParallel.__init__ = __init__
