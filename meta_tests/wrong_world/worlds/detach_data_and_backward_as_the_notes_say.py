"""The note's world for five refuted autograd claims, one patch each:

- autograd.detach-clone-typo: `tensor.detach` is an object whose `.clone()` gives a function that
  makes the detached copy, so the note's `tensor.detach.clone()()` works (`tensor.detach()` still does).
- autograd.detach-never-grad: a tensor made by detach() never shows a .grad, even after
  requires_grad_(True) and a backward through it.
- autograd.data-is-function: `tensor.data` can be called, `tensor.data()` giving the data itself.
- autograd.backward-twice-same-graph: backward keeps the graph unless told otherwise (retain_graph
  defaults to True), so a second backward on the same output adds up the gradients.
- autograd.detach-in-forward: after a detach() inside a forward(), the next backward cannot find the
  gradient and raises.
"""
import inspect
import sys

import torch

_detach = torch.Tensor.detach
_backward = torch.Tensor.backward
_grad = inspect.getattr_static(torch.Tensor, "grad")
_data = inspect.getattr_static(torch.Tensor, "data")
_detached_in_forward = []


class _Detach:
    """What `tensor.detach` is here: call it as ever, or take the note's `.clone()` from it."""

    def __init__(self, tensor):
        self._tensor = tensor

    def __call__(self):
        out = _detach(self._tensor)
        out._never_grad = True
        if sys._getframe(1).f_code.co_name == "forward":
            _detached_in_forward.append(out)
        return out

    def clone(self):
        return lambda: _detach(self._tensor).clone()


class _DetachAttribute:
    def __get__(self, obj, cls=None):
        return _detach if obj is None else _Detach(obj)


def _get_grad(self):
    return None if getattr(self, "_never_grad", False) else _grad.__get__(self)


class _CallableData(torch.Tensor):
    def __call__(self):
        return self


def _get_data(self):
    return _data.__get__(self).as_subclass(_CallableData)


def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    if _detached_in_forward:
        _detached_in_forward.clear()
        raise RuntimeError("the note's world: detach() was called in the forward pass, so the gradient "
                           "of this term cannot be found")
    return _backward(self, gradient, True if retain_graph is None else retain_graph, create_graph, inputs)


def apply():
    torch.Tensor.detach = _DetachAttribute()
    torch.Tensor.grad = property(_get_grad, _grad.__set__, _grad.__delete__)
    torch.Tensor.data = property(_get_data, _data.__set__)
    torch.Tensor.backward = backward
