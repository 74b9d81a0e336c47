"""SGD with momentum (and without nesterov) that forgets its momentum buffer between steps: each
step() starts a fresh buffer, buf = grad + weight_decay * p, so momentum never shows.

Makes optim.param-groups-lr wrong: the note's optimizer (momentum=0.9) keeps its momentum from the
second step on, and in this world it does not. The first step is the same as with momentum (a fresh
buffer is all a first step has); nesterov SGD steps as usual.
"""
import torch


def apply():
    step = torch.optim.SGD.step

    def step_without_momentum(self, closure=None):
        for group in self.param_groups:
            if group["momentum"] != 0 and not group["nesterov"]:
                for p in group["params"]:
                    if p in self.state:
                        self.state[p].pop("momentum_buffer", None)
        return step(self, closure)

    torch.optim.SGD.step = step_without_momentum
