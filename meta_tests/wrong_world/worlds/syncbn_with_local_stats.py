"""SyncBatchNorm that normalizes each rank with its own batch's statistics, as BatchNorm does (in the spawn
workers).

Makes dist.syncbn-global-stats wrong.
"""

TARGET = "torch.nn.modules.batchnorm"


def patch(module):
    def forward(self, input):
        self._check_input_dim(input)
        return module._BatchNorm.forward(self, input)  # each rank's own statistics, no collective

    module.SyncBatchNorm.forward = forward
