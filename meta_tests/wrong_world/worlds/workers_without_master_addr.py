"""A launcher whose workers cannot rendezvous: they start without MASTER_ADDR, so torch.distributed.launch
cannot launch a DDP world.

Makes dist.launch-is-current wrong (its holding half).
"""
from wrong_world.worlds import WORKER_POPEN, edit_worker_env

TARGET = WORKER_POPEN


def edit(env):
    env.pop("MASTER_ADDR", None)


def patch(module):
    edit_worker_env(module, edit)
