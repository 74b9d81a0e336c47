"""A DataLoader whose BatchSampler ignores drop_last, and a RandomSampler that replays the same permutation
every epoch.

Makes data.drop-last and data.shuffle-each-epoch wrong.
"""
import torch
from torch.utils.data import sampler as S

_batch_init = S.BatchSampler.__init__


def batch_init(self, sampler, batch_size, drop_last):
    _batch_init(self, sampler, batch_size, False)


def same_permutation_every_epoch(self):
    yield from torch.randperm(len(self.data_source), generator=torch.Generator().manual_seed(0)).tolist()


def apply():
    S.BatchSampler.__init__ = batch_init
    S.RandomSampler.__iter__ = same_permutation_every_epoch
