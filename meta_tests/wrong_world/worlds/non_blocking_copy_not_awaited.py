"""A consumer of a non_blocking copy that does not wait for it (the copy made on another stream).

Makes dtype.to-non-blocking-semantics wrong.
"""
import torch

_to = torch.Tensor.to
_side = {}


def to(self, *args, **kwargs):
    target = torch.device(args[0]) if args and isinstance(args[0], (str, torch.device)) else None
    if kwargs.get("non_blocking") and target is not None and target.type == "cuda" and self.is_pinned():
        # the copy runs on another stream and the current stream does not wait for it: work queued
        # after the copy starts on whatever has arrived
        out = torch.empty_like(self, device=target)
        side = _side.setdefault(out.device, torch.cuda.Stream(out.device))
        side.wait_stream(torch.cuda.current_stream(out.device))
        with torch.cuda.stream(side):
            out.copy_(self, non_blocking=True)
        return out
    return _to(self, *args, **kwargs)


def apply():
    torch.Tensor.to = to
