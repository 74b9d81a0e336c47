"""The fork server behind run_spec (meta_tests/fork_server.py): a spec run forked from it is as
isolated as a fresh process, and a stuck one is killed with everything it started."""
import subprocess
import time

import pytest

import fork_server
from fixtures.procs.runner import running
from spec_runner import make_runner

pytestmark = pytest.mark.skipif(not fork_server.usable(), reason="spec runs start fresh here (a GPU machine, "
                                f"or {fork_server.FRESH_VAR}=1): no fork server")

# torch.nn.functional.dropout that drops nothing: nn.dropout-train-eval fails
DROPOUT_IS_IDENTITY = """
import torch.nn.functional as F

F.dropout = lambda input, p=0.5, training=True, inplace=False: input
"""


def test_a_patch_reaches_only_its_own_run(tmp_path):
    run = make_runner(tmp_path)
    claim = ("--claim", "nn.dropout-train-eval", "-m", "cpu")
    assert run(*claim).verdict("nn.dropout-train-eval") == "holds"
    assert run(*claim, patch=DROPOUT_IS_IDENTITY).verdict("nn.dropout-train-eval") == "failed"
    # the patched torch was the child's copy: the server's is untouched for the next run
    assert run(*claim).verdict("nn.dropout-train-eval") == "holds"


def test_a_run_past_its_timeout_is_killed_with_the_processes_it_started(tmp_path):
    pid_file = tmp_path / "grandchild.pid"
    stuck = f"""
import subprocess, sys, time

import torch

# started as the run loads its plugins, before any test: a process of the run's own
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
open({str(pid_file)!r}, "w").write(str(child.pid))


def manual_seed(seed):
    time.sleep(600)


torch.manual_seed = manual_seed  # the suite seeds every test: the first test gets stuck here
"""
    started = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired):
        make_runner(tmp_path)("--claim", "nn.dropout-train-eval", "-m", "cpu", patch=stuck, timeout=6)
    assert time.monotonic() - started < 60, "the timeout did not end the run"
    grandchild = int(pid_file.read_text())
    for _ in range(50):  # SIGKILL to the run's session: the process it started is gone too
        if not running(grandchild):
            break
        time.sleep(0.1)
    else:
        pytest.fail(f"process {grandchild}, started by the killed run, is still alive")
