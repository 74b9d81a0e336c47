"""CPU autocast that silently stays disabled, so a CPU autocast region computes in float32, as it
would if autocast were GPU-only.

Makes amp.gpu-only wrong (run with lenient_device_parser in one spec run).
"""
from wrong_world.worlds import autocast_left_in_float32


def apply():
    autocast_left_in_float32("cpu")
