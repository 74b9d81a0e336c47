"""A matmul that starts on another stream while the add it reads is still running: the consumer does not
wait for its producer.

Makes cuda.pipelined-dependency wrong.
"""
import torch

_add = torch.Tensor.add
_matmul = torch.Tensor.__matmul__
_side = {}


def add(self, *args, **kwargs):
    out = _add(self, *args, **kwargs)
    if out.is_cuda:  # remember when the producer's output is complete
        out._wrong_world_producer = torch.cuda.Event()
        out._wrong_world_producer.record()
    return out


def __matmul__(a, b):
    producer = getattr(a, "_wrong_world_producer", None)
    if a.is_cuda and producer is not None and not producer.query():
        # the consumer starts while its producer still runs: another stream, no wait on either side
        if a.device not in _side:
            _side[a.device] = torch.cuda.Stream(a.device)
        with torch.cuda.stream(_side[a.device]):
            return _matmul(a, b)
    return _matmul(a, b)


def apply():
    torch.Tensor.add = add
    torch.Tensor.__matmul__ = __matmul__
