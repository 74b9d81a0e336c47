"""A CUDA_VISIBLE_DEVICES=... given on the command line that the program does not heed: every
`python -c` program the spec starts (through a shell script or not) drops the variable before CUDA
starts, so it sees every GPU of the machine, whatever the command line listed (an empty list too).

Makes cuda.visible-devices-command-line wrong (needs a CUDA GPU, like its test).
"""
import os
import sys

TARGET = "torch.cuda"


def patch(module):
    if getattr(sys, "orig_argv", [])[1:2] == ["-c"]:
        os.environ.pop("CUDA_VISIBLE_DEVICES", None)
