"""CUDA autocast that silently stays disabled, so a CUDA autocast region computes in float32.

Makes amp.float16-half wrong: the linear layer's output under autocast is float32, not float16.
"""
from wrong_world.worlds import autocast_left_in_float32


def apply():
    autocast_left_in_float32("cuda")
