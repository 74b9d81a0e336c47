"""The world the note describes: torch.cuda.max_memory_allocated() reports the peak of the memory the
program occupies (the reserved peak), not of what tensors hold.

Makes cuda.max-memory-allocated wrong.
"""
import torch


def apply():
    torch.cuda.max_memory_allocated = torch.cuda.max_memory_reserved
