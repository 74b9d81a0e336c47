"""DDP that syncs the replicas at its first forward instead of at construction: rank 0's parameters
and buffers, as they are when the wrapped model first runs, reach every rank (in the spawn workers).
A checkpoint that rank 0 alone loads after the wrapping line then reaches every rank, as the note
says, and one loaded before it does not.

Makes dist.ddp-load-after-wrap wrong.
"""

TARGET = "torch.nn.parallel.distributed"


def patch(module):
    import torch
    import torch.distributed as dist

    original_init = module.DistributedDataParallel.__init__
    original_forward = module.DistributedDataParallel.forward

    def __init__(self, *args, **kwargs):
        kwargs["init_sync"] = False
        original_init(self, *args, **kwargs)
        self._sync_at_first_forward = True

    def forward(self, *args, **kwargs):
        if getattr(self, "_sync_at_first_forward", False):
            self._sync_at_first_forward = False
            with torch.no_grad():
                for t in self.module.state_dict().values():
                    dist.broadcast(t, src=0, group=self.process_group)
        return original_forward(self, *args, **kwargs)

    module.DistributedDataParallel.__init__ = __init__
    module.DistributedDataParallel.forward = forward
