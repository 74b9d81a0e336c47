"""The note's LOCAL_RANK, a GPU index: the launcher gives LOCAL_RANK only to the processes that
have a GPU of their own (local ranks below the machine's GPU count); the others start without it.
On a machine without a GPU, no worker gets one.

Makes dist.local-rank-meaning wrong in its failing half (more processes on a machine than GPUs).
"""
from wrong_world.worlds import WORKER_POPEN, edit_worker_env

TARGET = WORKER_POPEN


def patch(module):
    import torch

    gpus = torch.cuda.device_count()

    def edit(env):
        if int(env.get("LOCAL_RANK", 0)) >= gpus:
            env.pop("LOCAL_RANK", None)

    edit_worker_env(module, edit)
