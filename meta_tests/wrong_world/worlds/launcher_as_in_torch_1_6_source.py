"""The launcher of the torch 1.6 source the note prints, in three of its details: without
--use_env it appends --local_rank=<n> (underscore) to the script's arguments; a worker that exits
with a non-zero status makes it raise subprocess.CalledProcessError (not torchelastic's
ChildFailedError); its parser defaults --master_port to 29500 (in the pytest process only, so that
no launch binds the fixed port).

Makes dist.launch-local-rank-arg, dist.launch-failure and dist.launch-master-defaults wrong (the
tests that decide their refutation from 2.0, 1.9 and 2.12).
"""
from wrong_world.worlds import WORKER_POPEN

TARGET = "torch.distributed.run"


def _underscore_local_rank(handler_module):
    original = handler_module.SubprocessHandler._popen

    def _popen(self, args, env):
        args = tuple("--local_rank=" + a[len("--local-rank="):] if a.startswith("--local-rank=") else a
                     for a in args)
        return original(self, args, env)

    handler_module.SubprocessHandler._popen = _popen


def patch(module):
    import importlib
    import subprocess

    from torch.distributed.elastic.multiprocessing.errors import ChildFailedError

    _underscore_local_rank(importlib.import_module(WORKER_POPEN))
    run = module.run

    def run_raising_called_process_error(args):
        try:
            return run(args)
        except ChildFailedError as e:
            _, failure = e.get_first_failure()
            raise subprocess.CalledProcessError(returncode=failure.exitcode, cmd=[args.training_script]) from None

    module.run = run_raising_called_process_error


def apply():
    import torch.distributed.launch as launch
    import torch.distributed.run as run

    get_args_parser = run.get_args_parser

    def parser_with_the_fixed_port():
        parser = get_args_parser()
        parser.set_defaults(master_port=29500)
        return parser

    run.get_args_parser = launch.get_args_parser = parser_with_the_fixed_port
