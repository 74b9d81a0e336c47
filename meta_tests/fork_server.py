"""A fork server for the meta tests' spec runs: one Python that has imported what every spec run
imports (torch, torchvision, numpy, hypothesis, pytest) and forks a child per run.

A wrong-world check runs the real spec in a process of its own. Started fresh, each such process
pays the import of torch and torchvision again (3-4 s of CPU); the checks run some eighty of them.
Forked from this server, a run starts with those modules imported and pays only pytest's start-up
and its own tests. Each child is still a separate process: it sets its own working directory,
environment and sys.path, loads the patch plugin and the project's conftest itself, and its torch
is the server's copy, which the patch may change without reaching any other run.

    run_pytest(args, cwd=..., env=..., timeout=120, scratch=tmp_path)   # a CompletedProcess

Forking is safe here because importing torch starts no thread and initializes no GPU. A forked
child cannot use CUDA that its parent initialized, and whether a query of the GPUs initializes the
driver differs between releases: on a machine with an NVIDIA device (/dev/nvidiactl) every run
starts fresh instead, as with `SPEC_RUNS_FRESH=1`.

The server (this file run as a script) reads one JSON request per line on stdin, forks, answers
{"pid": ...} at once and {"rc": ...} when the child has ended. A child runs in a session of its
own, so a timeout kills it with every process it started.
"""
from __future__ import annotations

import atexit
import json
import os
import pathlib
import select
import signal
import subprocess
import sys
import time

FRESH_VAR = "SPEC_RUNS_FRESH"


def usable() -> bool:
    """Fork spec runs here? Not on a GPU machine, not where FRESH_VAR asks for fresh processes."""
    return os.environ.get(FRESH_VAR, "") in ("", "0") and not pathlib.Path("/dev/nvidiactl").exists()


class ForkServer:
    def __init__(self):
        self._proc: subprocess.Popen | None = None

    def _start(self) -> subprocess.Popen:
        if self._proc is None or self._proc.poll() is not None:
            self._proc = subprocess.Popen([sys.executable, __file__], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          text=True, start_new_session=True)
            atexit.register(self.close)
            self._read({"ready"}, deadline=time.monotonic() + 120)
        return self._proc

    def _read(self, keys: set[str], deadline: float | None) -> dict:
        """The server's next answer; None for deadline means wait as long as it takes."""
        out = self._proc.stdout
        while True:
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not select.select([out], [], [], wait)[0]:
                raise TimeoutError
            line = out.readline()
            if not line:
                raise RuntimeError(f"the fork server ended (exit status {self._proc.wait()})")
            doc = json.loads(line)
            if keys & doc.keys():
                return doc

    def run(self, args: list[str], *, env: dict, cwd: pathlib.Path, output: pathlib.Path, path: list[str],
            timeout: float, errors: pathlib.Path | None = None) -> int:
        """pytest.main(args) in a forked child; its stdout goes to `output`, its stderr to `errors`
        (or `output` too). Returns the exit status; raises subprocess.TimeoutExpired (the child and
        its processes killed) past timeout."""
        proc = self._start()
        request = {"args": args, "env": env, "cwd": str(cwd), "output": str(output), "path": path,
                   "errors": str(errors or output)}
        proc.stdin.write(json.dumps(request) + "\n")
        proc.stdin.flush()
        pid = self._read({"pid"}, deadline=time.monotonic() + 60)["pid"]
        try:
            return self._read({"rc"}, deadline=time.monotonic() + timeout)["rc"]
        except TimeoutError:
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self._read({"rc"}, deadline=None)
            raise subprocess.TimeoutExpired(["pytest", *args], timeout) from None

    def close(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.stdin.close()
            try:
                self._proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self._proc.pid, signal.SIGKILL)
                self._proc.wait()
        if self._proc is not None:
            self._proc.stdout.close()


SERVER = ForkServer()  # started on first use, one per meta-test process


def run_pytest(args: list[str], *, cwd: pathlib.Path, env: dict, timeout: float, scratch: pathlib.Path,
               path: list[str] = ()) -> subprocess.CompletedProcess:
    """`python -m pytest *args` in cwd with env, as subprocess.run(..., capture_output=True, text=True)
    would report it: forked from SERVER where usable(), else a fresh Python. `scratch`: a folder for
    the forked run's captured output; `path`: folders put on sys.path after cwd (and on PYTHONPATH)."""
    cmd = [sys.executable, "-m", "pytest", *args]
    if not usable():
        return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    out, err = scratch / "pytest-stdout.txt", scratch / "pytest-stderr.txt"
    rc = SERVER.run(list(args), env=env, cwd=cwd, output=out, errors=err, path=list(path), timeout=timeout)
    return subprocess.CompletedProcess(cmd, rc, out.read_text(errors="replace"), err.read_text(errors="replace"))


def _child(request: dict) -> int:
    os.setsid()
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    out = os.open(request["output"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(out, 1)
    if request["errors"] == request["output"]:
        os.dup2(out, 2)
    else:
        os.dup2(os.open(request["errors"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), 2)
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    # as `python -m pytest` run in cwd would have it: cwd first (not this script's folder), then the patch's
    sys.path[0] = request["cwd"]
    sys.path[1:1] = request["path"]
    import pytest

    return int(pytest.main(request["args"]))


def serve() -> None:
    import hypothesis  # noqa: F401  (what every spec run imports; no thread, no GPU)
    import numpy  # noqa: F401
    import pytest  # noqa: F401
    import torch  # noqa: F401
    import torchvision  # noqa: F401

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the meta tests; they close us
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            rc = 3
            try:
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                rc = _child(request)
            except BaseException:
                import traceback

                traceback.print_exc()
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(rc)
        print(json.dumps({"pid": pid}), flush=True)
        _, status = os.waitpid(pid, 0)
        print(json.dumps({"rc": os.waitstatus_to_exitcode(status)}), flush=True)


if __name__ == "__main__":
    serve()
