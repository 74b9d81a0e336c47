"""A launcher that gets two of the note's options wrong: every worker it starts is told
GROUP_RANK 0, whatever --node_rank says, and under --no_python it still runs the program through
`python -u` (for the spec's executable wrapper, a shell script that execs Python on the recorder,
the Python it would exec).

Makes dist.launch-nnodes-node-rank, dist.launch-no-python-runs-the-program and
dist.launch-no-python-needs-use-env wrong (their holding halves; the last two share the test of
what --no_python runs).
"""
import os
import shlex
import sys

from wrong_world.worlds import WORKER_POPEN

TARGET = WORKER_POPEN


def _through_python(args):
    program = args[0]
    if os.path.basename(program).startswith("python"):
        return args
    with open(program, encoding="utf-8") as f:
        lines = [ln for ln in f.read().splitlines() if ln.startswith("exec ")]
    if lines:  # the wrapper: exec PYTHON SCRIPT "$@"
        _, python, script, *_ = shlex.split(lines[-1])
        return (python, "-u", script, *args[1:])
    return (sys.executable, "-u", *args)


def patch(module):
    original = module.SubprocessHandler._popen

    def _popen(self, args, env):
        env = dict(env)
        env["GROUP_RANK"] = "0"
        return original(self, _through_python(tuple(args)), env)

    module.SubprocessHandler._popen = _popen
