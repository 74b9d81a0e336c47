"""load_state_dict(strict=False) that refuses unexpected keys: the note's non-strict load of a
checkpoint with a key the model lacks raises instead of ignoring it.

Makes nn.load-state-dict-strict-false wrong (it holds: strict=False loads the matching keys and
reports the missing and unexpected ones).
"""
from torch import nn

_load_state_dict = nn.Module.load_state_dict


def load_state_dict(self, state_dict, strict=True, *args, **kwargs):
    if not strict and set(state_dict) - set(self.state_dict()):
        raise RuntimeError("unexpected keys (this world: strict=False refuses them)")
    return _load_state_dict(self, state_dict, strict, *args, **kwargs)


def apply():
    nn.Module.load_state_dict = load_state_dict
