"""A GradScaler for CUDA only, as note 004 says: torch.amp.GradScaler("cpu") is refused (before torch
2.3 there was no CPU GradScaler at all).

Makes the note right about amp.cpu-gradscaler, which is refuted from 2.3: its by-version test goes red.
"""
from torch.amp import grad_scaler

_init = grad_scaler.GradScaler.__init__


def init(self, device="cuda", *args, **kwargs):
    if device == "cpu":
        raise RuntimeError("this world: GradScaler is CUDA only")
    _init(self, device, *args, **kwargs)


def apply():
    grad_scaler.GradScaler.__init__ = init
