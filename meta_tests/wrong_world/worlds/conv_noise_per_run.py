"""Convolutions whose results differ from process to process whatever the flags (an offset from the
process id), in every process the spec starts (fresh processes per run).

Makes cudnn.deterministic-repro wrong.
"""
import os

TARGET = "torch.nn.modules.conv"


def patch(module):
    original = module.Conv2d._conv_forward

    def _conv_forward(self, input, weight, bias):
        return original(self, input, weight, bias) + (os.getpid() % 997 + 1) * 1e-6  # differs per process

    module.Conv2d._conv_forward = _conv_forward
