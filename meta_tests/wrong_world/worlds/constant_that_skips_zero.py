"""nn.init.constant_ that leaves a tensor as it is when asked for zeros.

Makes init.constant-bias-zero and init.bn-constant wrong: constant_(bias, val=0.0) keeps a conv's,
a linear layer's or a batch norm's bias as it was, while other values are still written.
"""
import torch.nn.init

_constant_ = torch.nn.init.constant_


def constant_(tensor, val):
    return tensor if val == 0 else _constant_(tensor, val)


def apply():
    torch.nn.init.constant_ = constant_
