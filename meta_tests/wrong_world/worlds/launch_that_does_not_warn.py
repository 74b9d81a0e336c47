"""torch.distributed.launch without its deprecation: `python -m torch.distributed.launch` and its
main() run as before torch 1.9, printing no FutureWarning that names torchrun (the module's warning
is filtered out in every Python the spec starts, and main() is the undecorated function in the
pytest process).

The notes' world for the launcher claims that hold before 1.9 and are partly from 1.9 (the launcher
is deprecated): makes their failing half wrong, the deprecation test red, for
dist.spawn-and-launch, dist.launch-help-options, dist.launch-master-defaults,
dist.launch-master-node0, dist.launch-use-env, dist.launch-local-rank-arg, dist.launch-module,
dist.launch-no-python-needs-use-env, dist.launch-no-python-runs-the-program,
dist.launch-nnodes-node-rank, dist.launch-defaults, dist.launch-script-args, dist.launch-env-vars,
dist.launch-omp-threads, and dist.launch-is-current (its failing half).
"""
import warnings

MESSAGE = "The module torch.distributed.launch is deprecated"


def start_child():
    warnings.filterwarnings("ignore", message=MESSAGE, category=FutureWarning)


def apply():
    import torch.distributed.launch as launch

    launch.main = getattr(launch.main, "__wrapped__", launch.main)
