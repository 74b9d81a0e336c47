"""No races between a test and the background thread of its worker (fixtures/procs/session.py).

Each xdist worker produces the launches and worlds of the distributed claims in a background
thread while its other tests run. pytest iterates `logging`'s logger dict, unlocked, as every
test phase starts (_pytest.logging.catching_logs); a module imported in the background thread
creates loggers (torch.distributed.run imports torch.distributed.elastic: 18 of them) and
modules, and the test beside it can fail with "dictionary changed size during iteration" (rarely:
the import must last long enough, as in a fresh environment whose bytecode is not compiled yet).
So the thread imports nothing (what a producer needs is imported by its `prepare` in the main
thread). The first test checks exactly that; the stress test runs the CPU spec 10 times beside a
CPU burner (SPEC_STRESS=1: it takes 10 times the CPU spec, so CI does not run it; the first test
guards the cause in every CI run).
"""
from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from spec_runner import ROOT, make_runner

SPY = '''
import logging
import sys
import threading
import time

import pytest

_OUT = {out!r}


def _note(what):
    if threading.current_thread() is not threading.main_thread():
        with open(_OUT, "a") as fh:
            fh.write(f"{{threading.current_thread().name}}: {{what}}\\n")


_TRIED = []  # (thread, module) imports started outside the main thread


class _Imports:
    def find_spec(self, name, path=None, target=None):
        if name not in sys.modules and threading.current_thread() is not threading.main_thread():
            _TRIED.append((threading.current_thread().name, name))
        return None


def pytest_unconfigure(config):
    # a failed import (an optional module that is not installed) adds nothing to sys.modules
    with open(_OUT, "a") as fh:
        for thread, name in _TRIED:
            if name in sys.modules:
                fh.write(f"{{thread}}: import {{name}}\\n")


sys.meta_path.insert(0, _Imports())
_get = logging.Manager.getLogger


def _getLogger(self, name):
    if not isinstance(self.loggerDict.get(name), logging.Logger):
        _note(f"logger {{name}}")
    return _get(self, name)


logging.Manager.getLogger = _getLogger


@pytest.hookimpl(trylast=True)
def pytest_runtest_setup(item):
    # after the fixtures: the background thread has started; it takes the launch first, as it does
    # when other tests run before the readers
    time.sleep(3)
'''


@pytest.mark.slow
def test_the_background_thread_imports_no_module_and_creates_no_logger(tmp_path):
    """Red in a world where a launch producer imports torch.distributed.run in the thread (no
    `prepare`): its modules and loggers appear there while tests run beside it."""
    out = tmp_path / "thread.txt"
    run = make_runner(tmp_path)
    result = run("tests/test_dist_launch.py", "-p", "no:xdist", "-m", "cpu",
                 "-k", "test_a_launched_worker_forms_a_process_group_from_the_launcher_env",
                 patch=SPY.format(out=str(out)), timeout=300)
    assert result.returncode == 0, result.output[-3000:]
    assert "1 passed" in result.output, result.output[-2000:]
    seen = out.read_text().splitlines() if out.exists() else []
    assert seen == [], "the background thread changed sys.modules / logging's logger dict:\n" + "\n".join(seen[:40])


@pytest.mark.skipif(os.environ.get("SPEC_STRESS") != "1",
                    reason="the stress run takes 10 times the CPU spec: set SPEC_STRESS=1 to run it")
def test_the_cpu_spec_ten_times_beside_a_cpu_burner_fails_no_test(tmp_path):
    """Ten `pytest -m cpu -n 2` runs while a process keeps every core busy; its closing line names
    every test that failed in any run (red where a race fails a test now and then)."""
    burner = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(os.cpu_count() or 2)]
    failed: dict[str, int] = {}
    seconds = []
    try:
        for i in range(10):
            report = tmp_path / f"run{i}.json"
            t0 = time.monotonic()
            cmd = [sys.executable, "-m", "pytest", "-m", "cpu", "-n", "2", "-q", "-p", "no:cacheprovider",
                   f"--claims-report={report}"]
            proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=1800,
                                  env={**os.environ, "CUDA_VISIBLE_DEVICES": ""})
            seconds.append(time.monotonic() - t0)
            for line in proc.stdout.splitlines():
                if line.startswith(("FAILED ", "ERROR ")):
                    name = line.split(" ", 2)[1]
                    failed[name] = failed.get(name, 0) + 1
            if proc.returncode not in (0, 1):
                failed[f"run {i}: exit status {proc.returncode}"] = 1
    finally:
        for b in burner:
            b.kill()
            b.wait()
    print(f"stress: 10 runs beside {len(burner)} burner(s), {min(seconds):.0f}-{max(seconds):.0f} s each; "
          + (f"failed at least once: {', '.join(f'{n} ({k}x)' for n, k in sorted(failed.items()))}" if failed
             else "no test failed"))
    assert failed == {}, failed
