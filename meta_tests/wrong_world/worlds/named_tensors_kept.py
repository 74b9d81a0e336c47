"""Named tensors kept past their removal (PyTorch 2.13), as the note (dated 1.3) shows them: factories
take names=, and Tensor.align_to permutes by name (a tensor without names is refused, as before 2.13).
A small stand-in: the names ride on the tensor as an attribute.

Makes the note right about tensor.named-dims-api and tensor.named-align-to, which are refuted from
2.13: their by-version tests of the removal go red.
"""
import torch

_randn, _rand = torch.randn, torch.rand


def _named(factory):
    def make(*args, names=None, **kwargs):
        t = factory(*args, **kwargs)
        if names is not None:
            t.world_names = tuple(names)
        return t
    return make


def align_to(self, *names):
    own = getattr(self, "world_names", None)
    if own is None:
        raise RuntimeError("this world: align_to needs a tensor with named dims")
    out = self.permute(*[own.index(n) for n in names])
    out.world_names = tuple(names)
    return out


def apply():
    torch.randn, torch.rand = _named(_randn), _named(_rand)
    torch.Tensor.align_to = align_to
