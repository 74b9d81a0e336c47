"""GradScaler.update() that refuses an optimizer left UNSCALED: update() after unscale_ without a
step() raises instead of returning that optimizer to READY. From STEPPED (and from READY beside a
stepped optimizer) it updates as the real one does.

Makes amp.state-transitions wrong in its holding half: the note's UNSCALED -> READY by update().
"""
from torch.amp import grad_scaler

_update = grad_scaler.GradScaler.update


def update(self, new_scale=None):
    if self._enabled and any(state["stage"] is grad_scaler.OptState.UNSCALED
                             for state in self._per_optimizer_states.values()):
        raise RuntimeError("this world: update() after unscale_() without step()")
    return _update(self, new_scale)


def apply():
    grad_scaler.GradScaler.update = update
