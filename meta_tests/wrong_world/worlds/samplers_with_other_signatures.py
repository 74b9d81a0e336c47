"""Samplers whose constructors have the note's parameter lists (no generator parameter), or another
default (BatchSampler with a drop_last default; SequentialSampler with a generator).

Makes data.weighted-random-sampler, data.subset-random-sampler, data.random-sampler-signature,
data.batch-sampler and data.sequential-sampler wrong.
"""
from torch.utils.data import sampler as S

_weighted, _subset, _random = S.WeightedRandomSampler.__init__, S.SubsetRandomSampler.__init__, S.RandomSampler.__init__
_batch, _sequential = S.BatchSampler.__init__, S.SequentialSampler.__init__


def weighted_init(self, weights, num_samples, replacement=True):
    _weighted(self, weights, num_samples, replacement)


def subset_init(self, indices):
    _subset(self, indices)


def random_init(self, data_source, replacement=False, num_samples=None):
    _random(self, data_source, replacement, num_samples)


def batch_init(self, sampler, batch_size, drop_last=False):
    _batch(self, sampler, batch_size, drop_last)


def sequential_init(self, data_source, generator=None):
    _sequential(self, data_source)


def apply():
    S.WeightedRandomSampler.__init__ = weighted_init
    S.SubsetRandomSampler.__init__ = subset_init
    S.RandomSampler.__init__ = random_init
    S.BatchSampler.__init__ = batch_init
    S.SequentialSampler.__init__ = sequential_init
