"""load_state_dict(strict=False) that also skips keys whose shape differs, instead of raising.

Makes nn.load-state-dict-strict-false wrong.
"""
from torch import nn

_load_state_dict = nn.Module.load_state_dict


def load_state_dict(self, state_dict, strict=True, *args, **kwargs):
    if not strict:
        own = self.state_dict()
        state_dict = {k: v for k, v in state_dict.items() if k not in own or own[k].shape == v.shape}
    return _load_state_dict(self, state_dict, strict, *args, **kwargs)


def apply():
    nn.Module.load_state_dict = load_state_dict
