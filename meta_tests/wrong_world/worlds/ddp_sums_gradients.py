"""DDP that sums the ranks' gradients instead of averaging them (a comm hook that all-reduces without
dividing), in the spawn workers.

Makes dist.ddp-grad-average and dist.ddp-loss-sync wrong: the gradient is not the mean.
"""

TARGET = "torch.nn.parallel.distributed"


def patch(module):
    import torch.distributed as dist

    original = module.DistributedDataParallel.__init__

    def _sum(state, bucket):
        return dist.all_reduce(bucket.buffer(), async_op=True).get_future().then(lambda fut: fut.value()[0])

    def __init__(self, *args, **kwargs):
        original(self, *args, **kwargs)
        self.register_comm_hook(None, _sum)

    module.DistributedDataParallel.__init__ = __init__
