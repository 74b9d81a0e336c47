"""add_param_group whose added group, when it names no option of its own ({"params": ...} alone), does
not inherit the optimizer's nesterov momentum in effect: its dict lists the defaults (momentum,
nesterov) as before, but SGD.step() steps it as plain SGD (momentum 0, no nesterov). The first group
and an added group that sets an option (weight_decay) step with nesterov momentum as usual.

Makes optim.add-param-group wrong: yolov5's bias group g2 ({"params": g2}) no longer steps with the
inherited nesterov momentum. Only nesterov SGD optimizers are affected.
"""
import torch


def apply():
    add_param_group, step = torch.optim.Optimizer.add_param_group, torch.optim.SGD.step

    def add_param_group_params_only(self, param_group):
        params_only = isinstance(param_group, dict) and set(param_group) == {"params"}
        add_param_group(self, param_group)
        if params_only and len(self.param_groups) > 1:
            self.__dict__.setdefault("_wrong_world_params_only", []).append(self.param_groups[-1])

    def step_params_only_groups_plainly(self, closure=None):
        groups = [g for g in self.__dict__.get("_wrong_world_params_only", [])
                  if g["nesterov"] and any(g is h for h in self.param_groups)]
        kept = [(g["momentum"], g["nesterov"]) for g in groups]
        for g in groups:
            g["momentum"], g["nesterov"] = 0, False
        try:
            return step(self, closure)
        finally:
            for g, (momentum, nesterov) in zip(groups, kept, strict=True):
                g["momentum"], g["nesterov"] = momentum, nesterov

    torch.optim.Optimizer.add_param_group = add_param_group_params_only
    torch.optim.SGD.step = step_params_only_groups_plainly
