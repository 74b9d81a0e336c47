"""DDP whose buffer broadcast lands in place on the running statistics a forward saved for backward: plain
BatchNorm always hits the in-place error, as the note says (in the spawn workers).

Makes dist.bn-inplace-error wrong.
"""

TARGET = "torch.nn.parallel.distributed"


def patch(module):
    original = module.DistributedDataParallel.forward

    def forward(self, *inputs, **kwargs):
        import torch

        out = original(self, *inputs, **kwargs)
        if self.broadcast_buffers:  # rank 0's buffers land in place after the forward saved them
            with torch.no_grad():
                for buffer in self.module.buffers():
                    buffer.add_(0)
        return out

    module.DistributedDataParallel.forward = forward
