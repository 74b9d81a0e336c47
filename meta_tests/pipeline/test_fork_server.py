"""The fork server behind run_spec (meta_tests/fork_server.py): a spec run forked from it is as
isolated as a fresh process, and a stuck one is killed with everything it started."""
import subprocess
import time

import pytest

import fork_server
from fixtures.procs.runner import running
from pipeline.harness_worlds import stuck_run
from spec_runner import make_runner

pytestmark = pytest.mark.skipif(not fork_server.usable(), reason="spec runs start fresh here (a GPU machine, "
                                f"or {fork_server.FRESH_VAR}=1): no fork server")


def test_a_patch_reaches_only_its_own_run(tmp_path):
    run = make_runner(tmp_path)
    claim = ("--claim", "nn.dropout-train-eval", "-m", "cpu")
    assert run(*claim).verdict("nn.dropout-train-eval") == "holds"
    assert run(*claim, world="dropout_without_rescale").verdict("nn.dropout-train-eval") == "failed"
    # the patched torch was the child's copy: the server's is untouched for the next run
    assert run(*claim).verdict("nn.dropout-train-eval") == "holds"


def test_a_run_past_its_timeout_is_killed_with_the_processes_it_started(tmp_path, monkeypatch):
    pid_file = tmp_path / "grandchild.pid"
    monkeypatch.setenv(stuck_run.PID_FILE_VAR, str(pid_file))
    started = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired):
        make_runner(tmp_path)("--claim", "nn.dropout-train-eval", "-m", "cpu",
                              world="pipeline.harness_worlds.stuck_run", timeout=6)
    assert time.monotonic() - started < 60, "the timeout did not end the run"
    grandchild = int(pid_file.read_text())
    for _ in range(50):  # SIGKILL to the run's session: the process it started is gone too
        if not running(grandchild):
            break
        time.sleep(0.1)
    else:
        pytest.fail(f"process {grandchild}, started by the killed run, is still alive")
