"""Samplers as the notes describe them (independent patches, one spec run):

- all samplers inherit from torch.utils.data.Sampler: a DataLoader refuses a sampler that does not
  (a bare iterable of indices). Makes the note right about the failing half of data.samplers-base:
  its left-out test must go red.
- SubsetRandomSampler(indices) just shuffles the whole dataset, every index up to the largest it
  was given. Makes the note right about data.subset-random-sampler, which is refuted: its tests
  must go red.
"""
import torch
from torch.utils.data import DataLoader, Sampler, SubsetRandomSampler

_init = DataLoader.__init__


def init(self, dataset, *args, sampler=None, **kwargs):
    if sampler is not None and not isinstance(sampler, Sampler):
        raise TypeError(f"sampler must inherit from torch.utils.data.Sampler, got {type(sampler).__name__}")
    _init(self, dataset, *args, sampler=sampler, **kwargs)


def whole_dataset(self):
    return max(self.indices) + 1 if len(self.indices) else 0


def subset_iter(self):
    yield from torch.randperm(whole_dataset(self), generator=self.generator).tolist()


def apply():
    DataLoader.__init__ = init
    SubsetRandomSampler.__iter__ = subset_iter
    SubsetRandomSampler.__len__ = whole_dataset
