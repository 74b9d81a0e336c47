"""DDP without its construction-time broadcast (each rank keeps its own initial weights; in the spawn
workers), and a DistributedSampler.set_epoch that does nothing (in the pytest process).

Makes dist.ddp-same-seed and dist.sampler-set-epoch wrong.
"""

TARGET = "torch.nn.parallel.distributed"


def patch(module):
    original = module.DistributedDataParallel.__init__

    def __init__(self, *args, **kwargs):
        kwargs["init_sync"] = False  # keep each rank's own initial weights
        original(self, *args, **kwargs)

    module.DistributedDataParallel.__init__ = __init__


def apply():
    from torch.utils.data.distributed import DistributedSampler
    DistributedSampler.set_epoch = lambda self, epoch: None
