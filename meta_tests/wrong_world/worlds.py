"""Wrong-world patches that more than one meta test file uses (see spec_runner.py for how a
patch is run)."""

# A GradScaler whose scale never backs off after an inf/NaN step: torch._amp_update_scale_ with a
# backoff factor of 1 (the CUDA GradScaler, and the CPU one of torch >= 2.3, run it).
AMP_NO_BACKOFF_WORLD = """
import torch

_update = torch._amp_update_scale_


def _amp_update_scale_(scale, growth_tracker, found_inf, growth_factor, backoff_factor, growth_interval):
    return _update(scale, growth_tracker, found_inf, growth_factor, 1.0, growth_interval)


torch._amp_update_scale_ = _amp_update_scale_
"""


def autocast_left_in_float32(device_type: str) -> str:
    """Patch code: torch.autocast (and torch.amp.autocast) that silently stays disabled, so in
    float32, for `device_type` ("cuda", "cpu"); other device types autocast as usual."""
    return f"""
import torch

_Autocast = torch.autocast


class autocast(_Autocast):
    def __init__(self, device_type, *args, **kwargs):
        super().__init__(device_type, *args, **kwargs)
        if device_type == {device_type!r}:
            self._enabled = False


torch.autocast = autocast
torch.amp.autocast = autocast
"""
