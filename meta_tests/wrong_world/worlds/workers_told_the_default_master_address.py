"""The note's world for a default launch: the workers get MASTER_ADDR=127.0.0.1 (--master_addr's
default), not the free-port rendezvous' host name (socket.getfqdn()).

Makes dist.launch-master-defaults wrong.
"""
from wrong_world.worlds import WORKER_POPEN, edit_worker_env

TARGET = WORKER_POPEN


def edit(env):
    env["MASTER_ADDR"] = "127.0.0.1"


def patch(module):
    edit_worker_env(module, edit)
