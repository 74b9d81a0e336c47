"""The notes' world for two CUDA memory calls:

- torch.cuda.empty_cache() also frees what a program interrupted with Ctrl-C left behind: it
  clears the frames of every KeyboardInterrupt's traceback (their locals, the tensors a training
  step was holding) before handing the cached blocks back.
- torch.cuda.reset_max_memory_allocated() sets the recorded peak to 0: max_memory_allocated then
  counts from the memory allocated at the reset, until reset_peak_memory_stats().

Makes cuda.empty-cache and cuda.reset-max-memory wrong (needs a CUDA GPU, like their tests).
"""
import gc

import torch

_empty_cache = torch.cuda.empty_cache
_reset_max = torch.cuda.reset_max_memory_allocated
_max_allocated = torch.cuda.max_memory_allocated
_reset_peak = torch.cuda.reset_peak_memory_stats
_at_reset = {}  # device index -> memory allocated when reset_max_memory_allocated ran


def empty_cache():
    for obj in gc.get_objects():
        if isinstance(obj, KeyboardInterrupt):
            tb = obj.__traceback__
            while tb is not None:
                try:
                    tb.tb_frame.clear()
                except RuntimeError:  # a frame still running keeps its locals
                    pass
                tb = tb.tb_next
    gc.collect()
    _empty_cache()


def _index(device):
    return torch.cuda._utils._get_device_index(device, optional=True)


def reset_max_memory_allocated(device=None):
    _reset_max(device)
    _at_reset[_index(device)] = torch.cuda.memory_allocated(device)


def max_memory_allocated(device=None):
    return _max_allocated(device) - _at_reset.get(_index(device), 0)


def reset_peak_memory_stats(device=None):
    _at_reset.pop(_index(device), None)
    _reset_peak(device)


def apply():
    torch.cuda.empty_cache = empty_cache
    torch.cuda.reset_max_memory_allocated = reset_max_memory_allocated
    torch.cuda.max_memory_allocated = max_memory_allocated
    torch.cuda.reset_peak_memory_stats = reset_peak_memory_stats
