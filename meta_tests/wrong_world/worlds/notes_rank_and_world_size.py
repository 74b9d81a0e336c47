"""The notes' meanings: each worker's RANK is its machine's index (GROUP_RANK) and WORLD_SIZE the number of
machines (GROUP_WORLD_SIZE).

Makes dist.rank-meaning and dist.world-size-meaning wrong.
"""
from wrong_world.worlds import WORKER_POPEN, edit_worker_env

TARGET = WORKER_POPEN


def edit(env):
    env["RANK"] = env["GROUP_RANK"]
    env["WORLD_SIZE"] = env["GROUP_WORLD_SIZE"]


def patch(module):
    edit_worker_env(module, edit)
