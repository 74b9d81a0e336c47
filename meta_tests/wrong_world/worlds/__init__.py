"""The wrong worlds: one module per world, named for what it breaks. A world patches torch (or a
library) so that a claim's stated behaviour is different (for a refuted claim: so that the note is
right), and a meta test in ../test_wrong_world_*.py asserts that the claim's tests go red there.

A world module has a docstring saying which claims it makes wrong and how, and one or more of:

    def apply():            patches the pytest process of the spec run (most worlds: the spec's
                            tests run there)
    TARGET = "torch.x.y"    patches every Python process the spec run starts (launchers, spawn
    def patch(module):      workers), right after that process first imports TARGET; `module` is
                            TARGET's module
    def start_child():      runs at start-up of every Python process the spec run starts, for what
                            an after-import patch cannot reach

A world with child parts keeps its top level free of torch imports (its module is imported at
start-up of every child, torch-free workers included). world_hook.py switches the worlds on;
a meta test names them by module name: run_spec(..., world="sgd_that_climbs"), or several at once,
world=("cpu_autocast_in_float32", "lenient_device_parser"). The helpers below are shared by
several worlds.
"""
from __future__ import annotations

# torch/distributed/elastic/multiprocessing/subprocess_handler: where torchelastic starts each
# worker with its environment (torch >= 2.2 layout)
WORKER_POPEN = "torch.distributed.elastic.multiprocessing.subprocess_handler.subprocess_handler"


def edit_worker_env(module, edit) -> None:
    """Wrap `module`'s (WORKER_POPEN's) SubprocessHandler._popen so that edit(env) changes the
    environment of every worker the launcher starts."""
    original = module.SubprocessHandler._popen

    def _popen(self, args, env):
        env = dict(env)
        edit(env)
        return original(self, args, env)

    module.SubprocessHandler._popen = _popen


def graph_leaves(tensor) -> list:
    """The leaves that tensor.backward() will write a gradient into (the AccumulateGrad nodes of
    its autograd graph)."""
    seen, stack, leaves = set(), [tensor.grad_fn], []
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        if getattr(fn, "variable", None) is not None:
            leaves.append(fn.variable)
        stack.extend(next_fn for next_fn, _ in fn.next_functions)
    return leaves


def autocast_left_in_float32(disabled: str) -> None:
    """torch.autocast (and torch.amp.autocast) that silently stays disabled, so in float32, for
    the device type `disabled` ("cuda", "cpu"); other device types autocast as usual."""
    import torch

    original = torch.autocast

    class autocast(original):
        def __init__(self, device_type, *args, **kwargs):
            super().__init__(device_type, *args, **kwargs)
            if device_type == disabled:
                self._enabled = False

    torch.autocast = autocast
    torch.amp.autocast = autocast
