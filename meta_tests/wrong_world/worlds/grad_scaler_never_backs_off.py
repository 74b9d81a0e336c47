"""A GradScaler whose scale never backs off after an inf/NaN step: torch._amp_update_scale_ called with a
backoff factor of 1 (the CUDA GradScaler, and the CPU one of torch >= 2.3, run it).

Makes amp.update-adjusts-scale wrong: update() leaves the scale as it was after an overflow.
"""
import torch

_update = torch._amp_update_scale_


def _amp_update_scale_(scale, growth_tracker, found_inf, growth_factor, backoff_factor, growth_interval):
    return _update(scale, growth_tracker, found_inf, growth_factor, 1.0, growth_interval)


def apply():
    torch._amp_update_scale_ = _amp_update_scale_
