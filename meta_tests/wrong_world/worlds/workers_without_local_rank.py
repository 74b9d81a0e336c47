"""A launcher that starts its workers without LOCAL_RANK in their environment (torchelastic's
SubprocessHandler, in the launcher process).

Makes dist.launch-env-vars and dist.local-rank-meaning wrong.
"""
from wrong_world.worlds import WORKER_POPEN, edit_worker_env

TARGET = WORKER_POPEN


def edit(env):
    env.pop("LOCAL_RANK", None)


def patch(module):
    edit_worker_env(module, edit)
