"""GradScaler.step() that unscales the gradients again when unscale_ was already called by hand:
from UNSCALED it divides them by the scale a second time before the optimizer steps. From READY
(step alone) it unscales once, as the real one does.

Makes amp.step-unscales wrong for its case of unscale_ called by hand before step(): the gradients
the step reads are the scaled ones divided twice, not those of a plain unscaled step.
"""
import torch
from torch.amp import grad_scaler

_step = grad_scaler.GradScaler.step


def step(self, optimizer, *args, **kwargs):
    state = self._per_optimizer_states[id(optimizer)]
    if self._enabled and state["stage"] is grad_scaler.OptState.UNSCALED:
        inv_scale = self._scale.double().reciprocal().float()
        with torch.no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    if param.grad is not None:
                        param.grad.mul_(inv_scale.to(param.grad.device))  # the second division
    return _step(self, optimizer, *args, **kwargs)


def apply():
    grad_scaler.GradScaler.step = step
