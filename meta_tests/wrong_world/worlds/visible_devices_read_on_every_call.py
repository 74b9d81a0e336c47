"""The note's CUDA_VISIBLE_DEVICES set in code, heeded whenever it is set: torch.cuda.device_count()
and torch.cuda.is_available() read the variable's current value on every call, so setting it to ""
after CUDA has started hides the GPU from them (in every Python the spec starts).

Makes cuda.visible-devices-code wrong in its failing half (set after CUDA starts, it changes
nothing); needs a CUDA GPU, like its test.
"""
import os

TARGET = "torch.cuda"


def patch(module):
    device_count, is_available = module.device_count, module.is_available

    def hidden():
        return os.environ.get("CUDA_VISIBLE_DEVICES") == ""

    module.device_count = lambda: 0 if hidden() else device_count()
    module.is_available = lambda: False if hidden() else is_available()
