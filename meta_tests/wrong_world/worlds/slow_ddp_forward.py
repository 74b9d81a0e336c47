"""DDP ranks that lose 10 ms per forward, in every process the spec starts.

Keeps dist.ddp-faster from holding (failed or inconclusive).
"""
import time

TARGET = "torch.nn.parallel.distributed"


def patch(module):
    original = module.DistributedDataParallel.forward

    def forward(self, *args, **kwargs):
        time.sleep(0.01)  # every DDP step loses 10 ms
        return original(self, *args, **kwargs)

    module.DistributedDataParallel.forward = forward
