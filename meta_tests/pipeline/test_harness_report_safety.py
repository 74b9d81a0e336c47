"""The claims report never loses evidence (harness/report.py, harness/claims_plugin.py), shown with
real processes on a mini project: a write killed half-way, two concurrent xdist runs, a corrupt
report, a report of another environment, a run interrupted mid-way (KeyboardInterrupt, SIGTERM),
paths that cannot take a report, and a run stopped early."""
import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest

import fork_server
from spec_runner import MINI_PROJECT_INI as INI
from spec_runner import ROOT

INVENTORY = """
topic = "x"
title = "Mini"
""" + "".join(f"""
[[claim]]
id = "x.{name}"
source = ["n › s"]
claim = "{name}"
checklist_needs = ["cpu"]
decided_by = "cpu"
standing = "holds"
""" for name in ("a", "b"))

# SLOW_BUILD widens the read-merge-write window of a run (report.build sleeps), so that two runs
# started together overlap inside it; STOP_AT makes test_b raise KeyboardInterrupt
CONFTEST = f"""
import os, sys, time
sys.path.insert(0, {str(ROOT)!r})
pytest_plugins = ["fixtures.needs", "harness.claims_plugin"]
import harness.report as _report
_build = _report.build
def _slow_build(*args, **kwargs):
    time.sleep(float(os.environ.get("SLOW_BUILD", "0")))
    return _build(*args, **kwargs)
_report.build = _slow_build
"""

TESTS = """
import os
import pytest

@pytest.mark.claim("x.a")
def test_a():
    if os.environ.get("CRASH_WORKER") == os.environ.get("PYTEST_XDIST_WORKER", "none"):
        os._exit(3)  # the worker process dies, as on a segfault or the OOM killer

@pytest.mark.claim("x.b")
def test_b():
    if os.environ.get("STOP_AT") == "b":
        raise KeyboardInterrupt
    assert os.environ.get("FAIL_B") != "1", "asked to fail"
"""


@pytest.fixture
def mini(tmp_path):
    (tmp_path / "pytest.ini").write_text(INI)
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "claims").mkdir()
    (tmp_path / "claims" / "x.toml").write_text(INVENTORY)
    (tmp_path / "test_mini.py").write_text(TESTS)
    return tmp_path


def pytest_cmd(*args):
    return [sys.executable, "-m", "pytest", *args]


def run(project, *args, env=None, timeout=120):
    """pytest in the mini project, as a process of its own (forked from meta_tests/fork_server.py)."""
    scratch = project.parent / f"{project.name}-runs"
    scratch.mkdir(exist_ok=True)
    return fork_server.run_pytest(list(args), cwd=project, timeout=timeout, scratch=scratch,
                                  env={**os.environ, "CUDA_VISIBLE_DEVICES": "", **(env or {})})


def load(path):
    return json.loads(path.read_text())


def outcomes(doc):
    return {n.split("::")[-1]: t["outcome"] for n, t in doc["tests"].items()}


def test_a_write_killed_half_way_leaves_the_previous_report_whole(mini):
    assert run(mini).returncode == 0
    path = mini / "reports" / "claims.json"
    before = path.read_bytes()
    # a child writes a new report and is SIGKILLed after half of the JSON went to disk
    child = textwrap.dedent(f"""
        import json, os, sys, time, pathlib
        sys.path.insert(0, {str(ROOT)!r})
        from harness import storage
        real_fdopen = os.fdopen

        class HalfThenHang:
            def __init__(self, fh): self.fh = fh
            def __enter__(self): return self
            def __exit__(self, *exc): self.fh.close()
            def write(self, text):
                self.fh.write(text[: len(text) // 2]); self.fh.flush()
                print("HALF", flush=True); time.sleep(120)
            def flush(self): self.fh.flush()
            def fileno(self): return self.fh.fileno()

        os.fdopen = lambda fd, *a, **k: HalfThenHang(real_fdopen(fd, *a, **k))
        path = pathlib.Path({str(path)!r})
        doc = json.loads(path.read_text()); doc["tests"] = {{f"t{{i}}": {{"x": "y" * 100}} for i in range(5000)}}
        storage.write_atomic(path, json.dumps(doc))
    """)
    proc = subprocess.Popen([sys.executable, "-c", child], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "HALF"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        proc.stdout.close()
    assert path.read_bytes() == before, "the report was changed by a write that never finished"
    assert outcomes(load(path)) == {"test_a": "passed", "test_b": "passed"}


def test_two_concurrent_xdist_runs_keep_both_runs_evidence(mini):
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "SLOW_BUILD": "3"}
    procs = [subprocess.Popen(pytest_cmd("-n", "2", "-k", name), cwd=mini, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True) for name in ("test_a", "test_b")]
    outs = [p.communicate(timeout=180)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    doc = load(mini / "reports" / "claims.json")
    assert outcomes(doc) == {"test_a": "passed", "test_b": "passed"}, (
        f"one run's evidence was lost: {outcomes(doc)}\n" + "\n".join(o[-1500:] for o in outs))
    assert len(doc["runs"]) == 2
    assert {c["id"]: c["verdict"] for c in doc["claims"]} == {"x.a": "holds", "x.b": "holds"}


@pytest.mark.parametrize(
    "earlier, why",
    [
        pytest.param("garbage", "cannot be read as a claims report", id="corrupt"),
        pytest.param(json.dumps({"schema": 2, "environment": {"fingerprint": "elsewhere", "torch": "1.13.1",
                                                               "machine": "gpu-box", "device": "NVIDIA H100"},
                                 "runs": [], "tests": {"t.py::gpu_evidence": {"outcome": "passed"}}}),
                     "belongs to another environment (torch 1.13.1 on gpu-box, NVIDIA H100)", id="another-environment"),
        pytest.param(json.dumps({"schema": 99, "tests": {}}), "is a report of schema 99", id="unknown-schema"),
    ],
)
def test_a_report_this_run_cannot_add_to_is_moved_aside_never_lost(mini, earlier, why):
    (mini / "reports").mkdir()
    (mini / "reports" / "claims.json").write_text(earlier)
    result = run(mini, "-k", "test_a")
    assert result.returncode == 0, result.stdout[-2000:]
    aside = list((mini / "reports").glob("claims.*.aside.json"))
    assert len(aside) == 1
    assert aside[0].read_text() == earlier
    assert f"the earlier report was moved aside to {aside[0]}: it {why}" in result.stdout, result.stdout[-2000:]
    doc = load(mini / "reports" / "claims.json")
    assert len(doc["runs"]) == 1
    assert outcomes(doc)["test_a"] == "passed"


def test_a_keyboard_interrupt_mid_run_keeps_the_finished_tests_evidence_and_reads_incomplete(mini):
    """Red in a world where an interrupted run writes nothing (test_a's evidence lost), writes it
    as a complete run, or leaves the test it never finished without a word (no record at all)."""
    result = run(mini, "-p", "no:randomly", env={"STOP_AT": "b"})
    assert result.returncode == pytest.ExitCode.INTERRUPTED, result.stdout[-2000:]
    doc = load(mini / "reports" / "claims.json")
    assert outcomes(doc) == {"test_a": "passed", "test_b": "skipped"}, "the finished test's evidence was lost"
    unreached = doc["tests"]["test_mini.py::test_b"]["reason"]
    assert unreached.startswith("not reached: the run stopped early (interrupted"), unreached
    last = doc["runs"][-1]
    assert last["complete"] is False, last
    assert last["incomplete"].startswith("interrupted (KeyboardInterrupt"), last
    assert "running then: test_mini.py::test_b" in last["incomplete"], last
    assert "incomplete run 1 of 1: interrupted" in result.stdout, result.stdout[-2000:]
    assert "**incomplete**: interrupted" in (mini / "reports" / "claims.md").read_text()


HANGS = """
import pathlib
import time
import pytest

@pytest.mark.claim("x.b")
def test_c_hangs():
    pathlib.Path("started").write_text("c")
    time.sleep(120)
"""


def test_a_step_time_limit_sigterm_keeps_the_finished_tests_evidence_and_names_where_it_stopped(mini):
    """`timeout` (a CI step's limit) sends SIGTERM: the tests that finished keep their evidence and the
    run names the test it stopped in (red in a world where SIGTERM kills the run with nothing written)."""
    (mini / "test_zhang.py").write_text(HANGS)
    proc = subprocess.Popen(pytest_cmd("-p", "no:randomly", "-p", "no:cacheprovider"), cwd=mini,
                            env={**os.environ, "CUDA_VISIBLE_DEVICES": ""}, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        for _ in range(1200):
            if (mini / "started").exists() or proc.poll() is not None:
                break
            __import__("time").sleep(0.1)
        assert (mini / "started").exists(), "the hanging test never started"
        proc.send_signal(signal.SIGTERM)
        out = proc.communicate(timeout=60)[0]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == pytest.ExitCode.INTERRUPTED, out[-2000:]
    doc = load(mini / "reports" / "claims.json")
    assert outcomes(doc) == {"test_a": "passed", "test_b": "passed", "test_c_hangs": "skipped"}, out[-2000:]
    last = doc["runs"][-1]
    assert last["complete"] is False, last
    assert last["incomplete"].startswith("interrupted by SIGTERM"), last
    assert "running then: test_zhang.py::test_c_hangs" in last["incomplete"], last


SIGNALLED_WRITE = """
import signal
_unsignalled = _report.build
def _signalled_build(*args, **kwargs):
    os.kill(os.getpid(), getattr(signal, os.environ["SIGNAL_IN_WRITE"]))
    return _unsignalled(*args, **kwargs)
_report.build = _signalled_build
"""


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGINT"])
def test_a_signal_while_the_report_is_written_does_not_cut_the_write(mini, sig):
    """tox, told to stop (Ctrl-C, a CI job's cancel or time limit), sends its pytest SIGINT and 0.3 s
    later SIGTERM, which lands while the interrupted run writes its report. The write finishes and
    the run exits interrupted. Red in a world where the signal cuts the write: no report at all."""
    (mini / "conftest.py").write_text(CONFTEST + SIGNALLED_WRITE)
    proc = subprocess.run(pytest_cmd("-p", "no:randomly", "-p", "no:cacheprovider", "-p", "no:xdist"), cwd=mini,
                          env={**os.environ, "CUDA_VISIBLE_DEVICES": "", "SIGNAL_IN_WRITE": sig},
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    assert (mini / "reports" / "claims.json").exists(), f"{sig} during the write left no report: {proc.stdout[-2000:]}"
    assert outcomes(load(mini / "reports" / "claims.json")) == {"test_a": "passed", "test_b": "passed"}
    assert proc.returncode == pytest.ExitCode.INTERRUPTED, proc.stdout[-2000:]


def test_a_lost_gw0_still_gives_the_report_this_environment(mini):
    # gw0 is the worker that looks at the machine; when it dies before reporting, the controller
    # looks itself, or the report would read as another environment's and be moved aside next run
    assert run(mini).returncode == 0
    first = load(mini / "reports" / "claims.json")["environment"]
    result = run(mini, "-n", "1", env={"CRASH_WORKER": "gw0"})
    assert "crashed" in result.stdout, result.stdout[-2000:]
    doc = load(mini / "reports" / "claims.json")
    assert doc["environment"]["fingerprint"] == first["fingerprint"], (doc["environment"], first)
    assert not list((mini / "reports").glob("*.aside.json")), "the report of this environment was moved aside"
    assert doc["runs"][-1]["complete"] is False
    assert "gw0" in doc["runs"][-1]["incomplete"]


def test_a_run_stopped_early_is_written_but_recorded_incomplete(mini):
    result = run(mini, "-x", "-p", "no:randomly", env={"FAIL_B": "1"})
    assert result.returncode == pytest.ExitCode.TESTS_FAILED
    runs = load(mini / "reports" / "claims.json")["runs"]
    assert runs[-1]["complete"] is False
    assert runs[-1]["exitstatus"] == 1
    assert "stopping after 1" in runs[-1]["incomplete"]
    assert run(mini).returncode == 0
    assert load(mini / "reports" / "claims.json")["runs"][-1]["complete"] is True


@pytest.mark.parametrize("spelling", ["space", "equals"])
@pytest.mark.parametrize("exists", [False, True], ids=["new", "existing"])
@pytest.mark.parametrize("where", ["inside", "outside"])
def test_claims_report_path_works_in_both_spellings(mini, tmp_path_factory, spelling, exists, where):
    folder = mini / "out" if where == "inside" else tmp_path_factory.mktemp("elsewhere")
    path = folder / "run.json"
    if exists:
        assert run(mini, "-k", "test_a", f"--claims-report={path}").returncode == 0
    args = ["--claims-report", str(path)] if spelling == "space" else [f"--claims-report={path}"]
    result = run(mini, "-k", "test_b", *args)
    if (spelling, exists, where) == ("space", True, "outside"):
        # pytest finds its rootdir (and so pytest.ini and the conftest that loads this plugin) before
        # any plugin option is known: the value of an unknown option that names an existing path
        # outside the checkout is taken for a test path (pytest-dev/pytest#8846, "a known issue").
        # No plugin code runs that early; README and tox.ini use --claims-report=PATH.
        assert result.returncode == pytest.ExitCode.USAGE_ERROR
        assert "unrecognized arguments: --claims-report" in result.stderr, result.stderr
        return
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert outcomes(load(path))["test_b"] == "passed"


@pytest.mark.parametrize(
    "target, message",
    [
        pytest.param("a_folder", "is a folder; name a file", id="folder"),
        pytest.param("a_file/claims.json", "cannot be written: {mini}/a_file is not a folder", id="under-a-file"),
    ],
)
def test_a_path_that_cannot_take_the_report_is_a_usage_error_before_any_test(mini, target, message):
    (mini / "a_folder").mkdir()
    (mini / "a_file").write_text("not a folder")
    result = run(mini, f"--claims-report={target}")
    assert result.returncode == pytest.ExitCode.USAGE_ERROR, result.stdout[-2000:]
    assert message.format(mini=mini) in result.stderr, result.stderr
    assert str(mini / target) in result.stderr, result.stderr
    assert "passed" not in result.stdout


# --- faults of the fault-injection run (issue 41) ------------------------------------------------


def test_a_complete_rerun_clears_an_earlier_interrupted_run(mini):
    """Fault 1: once a complete run has replaced every record of an interrupted one, the report is no
    longer incomplete: not in the summary, not in claims.md, and the matrix takes it (red where the
    interrupted run stays "incomplete run 1 of 2" for good)."""
    from harness.matrix import model

    assert run(mini, "-p", "no:randomly", env={"STOP_AT": "b"}).returncode == pytest.ExitCode.INTERRUPTED
    result = run(mini, "-p", "no:randomly")
    assert result.returncode == 0, result.stdout[-2000:]
    path = mini / "reports" / "claims.json"
    doc = load(path)
    assert [r["complete"] for r in doc["runs"]] == [False, True]
    assert {t["run"] for t in doc["tests"].values()} == {1}, "every record points to the complete rerun"
    assert "incomplete run" not in result.stdout, result.stdout[-2000:]
    assert "**incomplete**" not in (mini / "reports" / "claims.md").read_text()
    assert model.load(path).path == path  # the matrix no longer refuses it


def test_an_interrupted_run_that_still_holds_evidence_stays_incomplete(mini):
    """The other side of fault 1: a later run that replaces only part of an interrupted run's
    evidence (-k) leaves the report incomplete."""
    assert run(mini, "-p", "no:randomly", env={"STOP_AT": "b"}).returncode == pytest.ExitCode.INTERRUPTED
    result = run(mini, "-p", "no:randomly", "-k", "test_a")
    assert "incomplete run 1 of 2: interrupted" in result.stdout, result.stdout[-2000:]


FULL_DISK = """
import errno
from harness import storage as _storage
def _no_space(path, text):
    raise OSError(errno.ENOSPC, "No space left on device", str(path))
_storage.write_atomic = _no_space
"""


@pytest.mark.parametrize("how", ["full-disk", "lock-is-a-folder"])
def test_a_failed_report_write_says_so_in_one_line_and_keeps_the_evidence_aside(mini, how):
    """Fault 2: a report that cannot be written (a full disk, a lock path that is a folder) ends the
    run with one line naming the report and why, pytest's internal-error status (not 1, "tests
    failed"), and this run's evidence in a file of its own that the line names; the earlier report
    stays as it was. Red where it ends in an INTERNALERROR traceback with exit status 1."""
    assert run(mini, "-k", "test_a").returncode == 0
    path = mini / "reports" / "claims.json"
    before = path.read_bytes()
    if how == "full-disk":
        (mini / "conftest.py").write_text(CONFTEST + FULL_DISK)
    else:
        (mini / "reports" / "claims.json.lock").unlink(missing_ok=True)
        (mini / "reports" / "claims.json.lock").mkdir()
    result = run(mini, "-p", "no:randomly")
    assert result.returncode == pytest.ExitCode.INTERNAL_ERROR, result.stdout[-3000:] + result.stderr[-3000:]
    assert "INTERNALERROR" not in result.stdout + result.stderr, result.stdout[-3000:] + result.stderr[-3000:]
    lines = [ln for ln in result.stdout.splitlines() if ln.startswith("claims report not written:")]
    assert len(lines) == 1, result.stdout[-3000:]
    line = lines[0]
    assert f"claims report not written: {path}: " in line, line
    assert ("No space left on device" if how == "full-disk" else "Is a directory") in line, line
    kept = list((mini / "reports").glob("claims.*.unwritten.aside.json"))
    assert len(kept) == 1, line
    assert f"this run's evidence is kept in {kept[0]}" in line, line
    assert outcomes(load(kept[0])) == {"test_a": "passed", "test_b": "passed"}
    assert path.read_bytes() == before, "the earlier report was changed"


def test_a_report_path_no_file_can_be_created_in_is_refused_before_any_test(mini):
    """Fault 5: /proc takes no new file, though os.access says root may write there: the run is a
    usage error before any test runs (red where it runs the tests, waits for the lock's 300 s and
    then blames a lock that does not exist)."""
    result = run(mini, "--claims-report=/proc/r.json", timeout=60)
    assert result.returncode == pytest.ExitCode.USAGE_ERROR, result.stdout[-2000:] + result.stderr[-2000:]
    assert "--claims-report /proc/r.json: cannot be written: no file can be created in /proc" in result.stderr, \
        result.stderr
    assert "passed" not in result.stdout


def test_leftover_temporary_files_of_a_killed_write_are_swept_and_said(mini):
    """Fault 6: a write SIGKILLed before its rename leaves `.claims.json.XXXX.tmp`; the next run
    removes it (and the .md's) under the report's lock and says so in a line."""
    assert run(mini, "-k", "test_a").returncode == 0
    left = [mini / "reports" / ".claims.json.k1ll3d.tmp", mini / "reports" / ".claims.md.k1ll3d.tmp"]
    for p in left:
        p.write_text('{"half": ')
    other = mini / "reports" / ".other.json.x.tmp"  # not this report's: left alone
    other.write_text("x")
    result = run(mini, "-k", "test_b")
    assert result.returncode == 0, result.stdout[-2000:]
    assert not any(p.exists() for p in left), "the leftover temporary files are still there"
    assert other.exists()
    assert ("removed 2 temporary file(s) that a write of the report killed half-way left: "
            ".claims.json.k1ll3d.tmp, .claims.md.k1ll3d.tmp") in result.stdout, result.stdout[-2000:]


SKIPS_FIRST = """
import pytest

@pytest.mark.claim("x.a")
def test_0_skips():
    pytest.skip("not here")

def test_0_unlinked():
    pass
"""


def test_an_interrupted_runs_finished_count_counts_skips_and_unlinked_tests(mini):
    """Fault 6: "N of M collected tests finished" counts every test that finished, a skip and a test
    linked to no claim included (red where it counted only executed claim-linked tests: 1 of 4)."""
    (mini / "test_0.py").write_text(SKIPS_FIRST)
    result = run(mini, "-p", "no:randomly", env={"STOP_AT": "b"})
    assert result.returncode == pytest.ExitCode.INTERRUPTED, result.stdout[-2000:]
    last = load(mini / "reports" / "claims.json")["runs"][-1]
    assert "(3 of 4 collected tests finished; running then: test_mini.py::test_b)" in last["incomplete"], last
