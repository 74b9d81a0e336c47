"""Kernel launches that return only once the kernel is done (the spec's sleep kernel waits): the CPU
cannot work while a GPU kernel runs.

Makes cuda.parallel-devices wrong.
"""
import torch

_sleep = torch.cuda._sleep


def _sleep_and_wait(cycles):
    _sleep(cycles)
    torch.cuda.synchronize()


def apply():
    torch.cuda._sleep = _sleep_and_wait
