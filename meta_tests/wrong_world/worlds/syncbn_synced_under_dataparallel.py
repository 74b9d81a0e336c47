"""SyncBatchNorm inside DataParallel that normalizes with the whole batch's statistics, as the note says
(the whole batch run on device_ids[0]).

Makes dist.syncbn-with-dp wrong.
"""
from torch import nn

_forward = nn.DataParallel.forward


def forward(self, *inputs, **kwargs):
    if len(self.device_ids) < 2 or not any(isinstance(m, nn.SyncBatchNorm) for m in self.module.modules()):
        return _forward(self, *inputs, **kwargs)
    # the replicas' SyncBatchNorm layers agree on one set of statistics, those of the whole
    # batch: the same as running the whole batch through the module on device_ids[0]
    ids = self.device_ids
    self.device_ids = ids[:1]
    try:
        return _forward(self, *inputs, **kwargs)
    finally:
        self.device_ids = ids


def apply():
    nn.DataParallel.forward = forward
