"""Plain SGD (no momentum) that applies its update on the first step() only: every later step()
of the same optimizer leaves the parameters as they are (a closure is still evaluated).

Makes optim.sgd-update wrong: x <- x - lr * grad holds on the first step and no longer after it.
A fresh optimizer's single step is the right one; optimizers with momentum step as usual.
"""
import torch


def apply():
    step = torch.optim.SGD.step

    def step_once(self, closure=None):
        if all(group["momentum"] == 0 for group in self.param_groups):
            if getattr(self, "_wrong_world_stepped", False):
                if closure is not None:
                    with torch.enable_grad():
                        return closure()
                return None
            self._wrong_world_stepped = True
        return step(self, closure)

    torch.optim.SGD.step = step_once
