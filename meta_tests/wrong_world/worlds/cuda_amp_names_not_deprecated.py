"""torch.cuda.amp as note 000 and 004 show it, undeprecated: torch.cuda.amp.autocast and
torch.cuda.amp.GradScaler are the CUDA-bound torch.amp classes and warn nothing (as before torch 2.4).

Makes the note right where the failing halves of amp.cuda-amp-namespace, amp.default-scale-grad,
amp.enabled-false-noop and amp.float16-half say it is wrong (the FutureWarning from 2.4): their
left-out tests go red.
"""
import torch
import torch.cuda.amp as cuda_amp


class autocast(torch.amp.autocast_mode.autocast):
    def __init__(self, enabled=True, dtype=torch.float16, cache_enabled=True):
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(torch.amp.GradScaler):
    def __init__(self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                 enabled=True):
        super().__init__("cuda", init_scale=init_scale, growth_factor=growth_factor,
                         backoff_factor=backoff_factor, growth_interval=growth_interval, enabled=enabled)


def apply():
    cuda_amp.autocast = autocast
    cuda_amp.GradScaler = GradScaler
