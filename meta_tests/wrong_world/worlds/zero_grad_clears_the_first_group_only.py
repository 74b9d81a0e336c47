"""Optimizer.zero_grad that clears the gradients of its first parameter group only: the groups after
it keep theirs.

Makes optim.zero-grad-clears wrong for an optimizer with several parameter groups; one with a single
group (every optimizer made from model.parameters()) is cleared as before.
"""
import torch


def apply():
    zero_grad = torch.optim.Optimizer.zero_grad

    def zero_grad_first_group(self, set_to_none=True):
        groups = self.param_groups
        self.param_groups = groups[:1]
        try:
            zero_grad(self, set_to_none=set_to_none)
        finally:
            self.param_groups = groups

    torch.optim.Optimizer.zero_grad = zero_grad_first_group
