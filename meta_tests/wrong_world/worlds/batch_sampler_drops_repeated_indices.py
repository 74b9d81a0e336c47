"""A BatchSampler that drops an index repeated within a batch: a sampler that draws with
replacement (WeightedRandomSampler) is mis-batched, its repeated draws lost; samplers without
repeats (SequentialSampler, RandomSampler, SubsetRandomSampler) are batched as before.

Makes data.batch-sampler wrong (its holding case: it wraps each of the four samplers the note lists).
"""
from torch.utils.data import sampler as S

_iter = S.BatchSampler.__iter__


def __iter__(self):
    for batch in _iter(self):
        yield list(dict.fromkeys(batch))


def apply():
    S.BatchSampler.__iter__ = __iter__
