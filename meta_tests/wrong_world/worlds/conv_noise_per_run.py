"""Convolutions whose results differ from process to process whatever the flags (an offset from the
process id), in every process the spec starts (fresh processes per run).

Makes cudnn.deterministic-repro wrong.
"""

TARGET = "torch.nn.modules.conv"


def patch(module):
    import os

    original = module.Conv2d._conv_forward

    def _conv_forward(self, input, weight, bias):
        return original(self, input, weight, bias) + (os.getpid() % 997 + 1) * 1e-6  # differs per process

    module.Conv2d._conv_forward = _conv_forward
