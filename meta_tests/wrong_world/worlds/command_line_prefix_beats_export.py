"""Python processes that a script starts see the CUDA_VISIBLE_DEVICES=... prefix the script was run with,
whatever the script exported in between (the note's ranking: command line over script). The pytest
process passes the prefix on to `sh` scripts in a variable of its own; every child Python applies it
before CUDA starts.

Makes cuda.visible-devices-priority wrong.
"""

TARGET = "torch.cuda"


def patch(module):
    import os

    prefix = os.environ.get("WRONG_WORLD_PREFIX_CUDA_VISIBLE_DEVICES")
    if prefix is not None:  # set before CUDA starts: it decides what this process sees
        os.environ["CUDA_VISIBLE_DEVICES"] = prefix


def apply():
    import subprocess

    _popen_init = subprocess.Popen.__init__

    def _popen_with_prefix(self, args, *rest, **kwargs):
        env = kwargs.get("env")
        if isinstance(args, (list, tuple)) and args and args[0] == "sh" and env and "CUDA_VISIBLE_DEVICES" in env:
            kwargs["env"] = {**env, "WRONG_WORLD_PREFIX_CUDA_VISIBLE_DEVICES": env["CUDA_VISIBLE_DEVICES"]}
        _popen_init(self, args, *rest, **kwargs)

    subprocess.Popen.__init__ = _popen_with_prefix
