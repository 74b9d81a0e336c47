"""Python processes that a script starts see the CUDA_VISIBLE_DEVICES=... prefix the script was run with,
whatever the script exported in between (the note's ranking: command line over script). The pytest
process passes the prefix on to `sh` scripts in a variable of its own; every child Python applies it
before CUDA starts.

Makes cuda.visible-devices-priority wrong.
"""
import os
import subprocess

TARGET = "torch.cuda"
PREFIX_VAR = "WRONG_WORLD_PREFIX_CUDA_VISIBLE_DEVICES"

_popen_init = subprocess.Popen.__init__


def patch(module):
    prefix = os.environ.get(PREFIX_VAR)
    if prefix is not None:  # set before CUDA starts: it decides what this process sees
        os.environ["CUDA_VISIBLE_DEVICES"] = prefix


def _popen_with_prefix(self, args, *rest, **kwargs):
    env = kwargs.get("env")
    if isinstance(args, (list, tuple)) and args and args[0] == "sh" and env and "CUDA_VISIBLE_DEVICES" in env:
        kwargs["env"] = {**env, PREFIX_VAR: env["CUDA_VISIBLE_DEVICES"]}
    _popen_init(self, args, *rest, **kwargs)


def apply():
    subprocess.Popen.__init__ = _popen_with_prefix
