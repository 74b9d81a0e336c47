"""torch.nonzero as the note reads it: nonzero(t).size() is the number of nonzero elements, and a row
of nonzero(t) used as an index picks that element (t[row] is t[tuple(row)]).

Makes the note right about tensor.nonzero-size-count and tensor.nonzero-index-rows, which are
refuted: their wrong tests go red.
"""
import torch

_nonzero = torch.nonzero
_tensor_nonzero = torch.Tensor.nonzero


class NonzeroIndices(torch.Tensor):
    """What nonzero returns in this world (as_tuple=False), and its rows."""

    def size(self, dim=None):
        if dim is None and self.dim() == 2:
            return self.shape[0]  # the count
        return super().size() if dim is None else super().size(dim)

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if func is torch.Tensor.__getitem__ and isinstance(args[1], cls) and not isinstance(args[0], cls) \
                and args[1].dim() == 1 and len(args[1]) == args[0].dim():
            return args[0][tuple(args[1].tolist())]  # a row picks its element
        return super().__torch_function__(func, types, args, kwargs)


def _indices(out):
    return out.as_subclass(NonzeroIndices) if isinstance(out, torch.Tensor) else out


def nonzero(input, *args, **kwargs):
    return _indices(_nonzero(input, *args, **kwargs))


def tensor_nonzero(self, *args, **kwargs):
    return _indices(_tensor_nonzero(self, *args, **kwargs))


def apply():
    torch.nonzero = nonzero
    torch.Tensor.nonzero = tensor_nonzero
