"""The note's world for DDP: the loss is synchronized across the cards. A loss (F.mse_loss, what the
spec's DDP section computes) of a DistributedDataParallel output is replaced on every rank by the
mean of all ranks' losses; its gradient, and DDP's averaging of the gradients, stay as they are.
In the spawn workers.

Makes dist.ddp-loss-sync wrong: each rank's loss is not the loss of its own data.
"""
TARGET = "torch.nn.parallel.distributed"


def patch(module):
    import torch.distributed as dist
    import torch.nn.functional as F

    forward = module.DistributedDataParallel.forward
    mse_loss = F.mse_loss

    def ddp_forward(self, *args, **kwargs):
        out = forward(self, *args, **kwargs)
        out.wrong_world_ddp_output = True
        return out

    def synced_mse_loss(input, target, *args, **kwargs):
        loss = mse_loss(input, target, *args, **kwargs)
        if getattr(input, "wrong_world_ddp_output", False):
            mean = loss.detach().clone()
            dist.all_reduce(mean)
            mean /= dist.get_world_size()
            loss = loss + (mean - loss.detach())  # the ranks' mean loss, with this rank's own gradient
        return loss

    module.DistributedDataParallel.forward = ddp_forward
    F.mse_loss = synced_mse_loss
