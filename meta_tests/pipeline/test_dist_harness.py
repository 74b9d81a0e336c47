"""Self-test of fixtures/procs/: hard timeouts, nothing left behind, readable failures.

A hung program that has started a child in a session of its own (what torchelastic does
with its workers) is killed at the deadline, child included; so are the workers of a real
torchrun whose script never ends. A failing command's message carries its stderr tail.
The spawn world is supervised section by section: a stuck section fails alone, the
sections after it run in a new world. A process killed at a deadline shows where it was stuck
(its Python stack, written by faulthandler on the SIGABRT that comes before the kill).
"""
from __future__ import annotations

import ast
import json
import os
import pathlib
import socket
import sys
import time

import pytest

from fixtures import procs
from fixtures.procs import runner, workers, worlds


def pid_records(folder) -> list[dict]:
    return [json.loads(p.read_text()) for p in folder.glob("*.json")]


def test_a_hung_program_and_its_escaped_child_are_killed_at_the_timeout(tmp_path):
    out = tmp_path / "pids"
    out.mkdir()
    start = time.monotonic()
    result = procs.run("hang", [sys.executable, "-m", "fixtures.dist_workers.hang", out],
                       env=procs.clean_env(), folder=tmp_path / "logs", timeout=3)
    took = time.monotonic() - start
    assert result.timed_out, result.describe()
    assert result.returncode is None, result.describe()
    assert took < 3 + 6, f"the call took {took:.1f} s for a 3 s timeout"
    (rec,) = pid_records(out)  # it did start, and it did start its child
    assert not runner.running(rec["pid"]), f"left behind: {rec}"
    assert not runner.running(rec["child"]), f"left behind: {rec}"
    # the child escaped the process-group kill (own session): only the token sweep can reach it;
    # the leader may already be gone when the sweep looks, so count at least the child
    assert result.swept >= 1
    assert runner.processes_with_token(result.token) == []
    assert "killed after" in result.describe()
    assert "sleeping forever" in result.describe()


STUCK = """
import os, resource, sys, time
os.chdir(sys.argv[1])  # where a core file would land (core_pattern "core")
resource.setrlimit(resource.RLIMIT_CORE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))


def wait_for_the_peer_that_never_answers():
    print("waiting", file=sys.stderr, flush=True)
    time.sleep(3600)


wait_for_the_peer_that_never_answers()
"""


def test_a_child_killed_at_the_deadline_shows_the_function_it_was_stuck_in(tmp_path):
    """SIGABRT before the kill: faulthandler (PYTHONFAULTHANDLER=1 from clean_env) writes the stack
    to stderr and the failure text shows it. The code is in a file, so the command does not name it."""
    script = tmp_path / "stuck.py"
    script.write_text(STUCK)
    (tmp_path / "cwd").mkdir()
    result = procs.run("stuck", [sys.executable, script, tmp_path / "cwd"], env=procs.clean_env(),
                       folder=tmp_path / "logs", timeout=3)
    text = result.describe()
    assert result.timed_out, text
    assert "line 9 in wait_for_the_peer_that_never_answers" in text, f"no stack of the stuck function in:\n{text}"
    assert "waiting" in result.tail(), "the stderr before the kill is still shown"
    assert runner.processes_with_token(result.token) == []
    assert list((tmp_path / "cwd").iterdir()) == [], "no core file from the SIGABRT"


def test_a_line_worker_that_gives_no_answer_shows_where_it_was_stuck():
    code = ("import sys, time\ndef compute_the_answer_forever():\n    time.sleep(3600)\n"
            "sys.stdin.readline()\ncompute_the_answer_forever()\n")
    worker = workers.LineWorker("stuck-worker", code, timeout=30)
    with pytest.raises(AssertionError, match="gave no answer within 2 s") as silent:
        worker.ask("go", timeout=2)
    assert "in compute_the_answer_forever" in str(silent.value), str(silent.value)
    assert runner.processes_with_token(worker.token) == []
    head = str(silent.value).splitlines()[0]
    assert head == f"process failure: worker stuck-worker: gave no answer within 2 s (killed); logs: {worker.log_path}"
    assert "compute_the_answer_forever" in worker.log_path.read_text(), "the failed worker's log is kept"
    worker.log_path.unlink()


def test_a_line_worker_that_dies_fails_with_a_headline_naming_its_error_and_its_kept_log():
    """The first line of a dead worker's failure is a process headline, which the claims report
    records as the failure: the worker, its exit status, its last exception line and its log's path
    (kept for a failed worker; a worker closed after its answers leaves no log behind). Red in a
    world where the message starts with the stderr tail, names no log, or the log is deleted."""
    from harness import session

    code = "import sys\nsys.stdin.readline()\nraise ValueError('no such command')\n"
    worker = workers.LineWorker("dying-worker", code, timeout=30)
    with pytest.raises(AssertionError) as died:
        worker.ask("go")
    worker.close()
    head = str(died.value).splitlines()[0]
    assert head == (f"process failure: worker dying-worker: ended (exit status 1), ValueError: no such command; "
                    f"logs: {worker.log_path}"), head

    class Report:
        when = "call"
        longreprtext = f"E   AssertionError: {died.value}".replace("\n", "\nE   ")

    assert session.failure_summary(Report) == f"call: {head}"
    assert "ValueError: no such command" in worker.log_path.read_text(), "the failed worker's log is kept"
    worker.log_path.unlink()
    answering = workers.LineWorker("answering-worker", "import sys\nfor line in sys.stdin:\n    print(line.strip())\n",
                                   timeout=30)
    assert answering.ask("echo", timeout=30) == "echo"
    answering.close()
    assert not answering.log_path.exists(), "a worker that did not fail leaves its log behind"


@pytest.mark.slow
def test_hung_torchrun_workers_in_their_own_sessions_are_killed(tmp_path):
    out = tmp_path / "pids"
    out.mkdir()
    cmd = procs.torchrun_cmd("--nproc_per_node", "2", "--master_port", procs.free_port(),
                             runner.ROOT / "fixtures/dist_workers/hang.py", out)
    result = procs.run_group([("torchrun-hang", cmd, procs.clean_env(TMPDIR=str(tmp_path)))],
                             folder=tmp_path / "logs", timeout=40,
                             stop_when=lambda: len(list(out.glob("*.json"))) == 2)[0]
    assert result.timed_out, result.describe()
    recs = pid_records(out)
    assert len(recs) == 2, f"the workers never started:\n{result.describe()}"
    left = [pid for r in recs for pid in (r["pid"], r["child"]) if runner.running(pid)]
    assert not left, f"processes left behind: {left}"
    assert runner.processes_with_token(result.token) == []


def test_a_failing_command_reports_its_status_and_stderr_tail(tmp_path):
    code = "import sys\nfor i in range(40): print('line', i, file=sys.stderr)\nsys.exit(3)"
    result = procs.run("crash", [sys.executable, "-c", code], env=procs.clean_env(), folder=tmp_path, timeout=20)
    assert (result.returncode, result.timed_out) == (3, False)
    text = result.describe()
    assert "exit status 3" in text, text
    assert "line 39" in text, text
    assert "line 5\n" not in text, text  # the tail only
    with pytest.raises(pytest.fail.Exception, match="line 39"):
        procs.require_ok({"procs": [vars(result)]})


def test_free_port_is_a_loopback_port_nobody_holds():
    port = procs.free_port()
    assert port != 29500
    with socket.socket() as s:
        s.bind(("127.0.0.1", port))


def test_a_shared_result_is_produced_once_per_session(tmp_path_factory):
    calls = []

    def produce(folder):
        calls.append(folder)
        return {"n": len(calls)}

    key = f"selftest-{os.getpid()}"
    assert procs.shared(tmp_path_factory, key, produce) == {"n": 1}
    assert procs.shared(tmp_path_factory, key, produce) == {"n": 1}
    assert len(calls) == 1


EARLY_SPEC = """
import time

from fixtures import procs

T = {}


@procs.session_result("early-selftest")
def early(folder):
    return {"started": time.time()}


def test_reads_it(early):
    assert list(T) == ["other", "plain"], f"ran before the tests that do not read it: {list(T)}"
    assert early["started"] < T["other"] + 1.0, f"produced at {early['started'] - T['other']:.1f} s, not early"


def test_other():
    T["other"] = time.time()
    time.sleep(1.5)


def test_plain():
    T["plain"] = time.time()
"""


def test_a_shared_result_is_started_with_the_first_test_and_its_readers_run_last(pytester, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(runner.ROOT), os.environ.get("PYTHONPATH")])))
    pytester.makepyfile(test_early=EARLY_SPEC)
    result = pytester.runpytest_subprocess("-p", "fixtures.procs.session", "-p", "no:cacheprovider", "-p", "no:xdist",
                                           "-v", timeout=120)
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["*test_other PASSED*", "*test_plain PASSED*", "*test_reads_it PASSED*"])


NEEDED_SPEC = """
import os

import pytest

from fixtures import procs
from fixtures.procs.session import session_result_param


def produced(key):
    with open(os.environ["PRODUCED_LOG"], "a") as fh:
        fh.write(key + "\\n")
    return {"key": key, "pid": os.getpid()}


@procs.session_result("needed-a")
def result_a(folder):
    return produced("a")


@procs.session_result("needed-b")
def result_b(folder):
    return produced("b")


@procs.session_result("needed-unread")
def unread(folder):
    return produced("unread")


either = session_result_param("either", [
    pytest.param(result_a, id="a"),
    pytest.param(result_b, id="b", marks=pytest.mark.skip(reason="a skipped test needs nothing")),
], doc="a or b")


def test_reads_a(result_a):
    assert result_a["key"] == "a"


def test_reads_either(either):
    assert either["key"] == "a"
"""


def test_a_shared_result_is_produced_once_and_only_when_a_collected_test_reads_it(pytester, monkeypatch, tmp_path):
    """session_result's fixtures and a session_result_param over them read one result per key,
    produced once; a result that no runnable test reads (none reads it, or its reader is skipped)
    is never produced, not even by the background thread. Red in a world where the parametrized
    fixture produced its own copy, or where the thread produced every registered result."""
    log = tmp_path / "produced.log"
    monkeypatch.setenv("PRODUCED_LOG", str(log))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(runner.ROOT), os.environ.get("PYTHONPATH")])))
    pytester.makepyfile(test_needed=NEEDED_SPEC)
    result = pytester.runpytest_subprocess("-p", "fixtures.procs.session", "-p", "no:cacheprovider", "-p", "no:xdist",
                                           "-v", timeout=120)
    result.assert_outcomes(passed=2, skipped=1)
    result.stdout.fnmatch_lines(["*test_reads_either?a? PASSED*"])
    result.stdout.fnmatch_lines(["*test_reads_either?b? SKIPPED*"])
    assert log.read_text().split() == ["a"], f"produced: {log.read_text().split()}, expected only a, once"


def test_the_launch_environment_drops_distributed_variables(monkeypatch):
    monkeypatch.setenv("RANK", "7")
    monkeypatch.setenv("PET_MASTER_PORT", "29500")
    monkeypatch.setenv("OMP_NUM_THREADS", "5")
    monkeypatch.setenv("NCCL_SOCKET_IFNAME", "lo")  # the operator's NCCL setting stays
    env = procs.clean_env(EXTRA="1")
    assert not {"RANK", "PET_MASTER_PORT", "OMP_NUM_THREADS"} & set(env)
    assert env["NCCL_SOCKET_IFNAME"] == "lo"
    assert env["EXTRA"] == "1"
    assert env["PYTHONPATH"].split(os.pathsep)[0] == str(runner.ROOT)


def _plugin_list() -> list[str]:
    """conftest.py's pytest_plugins, read from its syntax tree."""
    tree = ast.parse((runner.ROOT / "conftest.py").read_text(encoding="utf-8"))
    (value,) = [s.value for s in tree.body if isinstance(s, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == "pytest_plugins" for t in s.targets)]
    return ast.literal_eval(value)


def _names_tests_use() -> set[str]:
    """`procs.X` and `from fixtures.procs import X` in tests/."""
    used = set()
    for path in sorted((runner.ROOT / "tests").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "procs":
                used.add(node.attr)
            elif isinstance(node, ast.ImportFrom) and node.module == "fixtures.procs":
                used.update(a.name for a in node.names)
    return used


def test_the_procs_package_exports_what_test_bodies_use_and_its_plugins_are_registered_directly():
    """fixtures/procs/__init__.py exports the names tests/ use and `session_result` (how a test file
    declares a launch it shares), nothing more: no fixture, no hook. The modules that hold fixtures
    or hooks are conftest.py's plugins themselves. Red when a test uses a name the package lacks,
    the package exports one no test uses, re-exports a fixture or hook, or a plugin module is
    missing from the list (pytest would not know its fixtures)."""
    import importlib
    import inspect

    exported = set(procs.__all__)
    assert exported == _names_tests_use() | {"session_result"}, (
        f"exported, unused by tests/: {sorted(exported - _names_tests_use() - {'session_result'})}; "
        f"used by tests/, not exported: {sorted(_names_tests_use() - exported)}")
    plugins = _plugin_list()
    assert "fixtures.procs" not in plugins, "the package is no plugin: its modules are"
    for path in sorted((runner.ROOT / "fixtures" / "procs").glob("*.py")):
        name = ".".join(path.relative_to(runner.ROOT).with_suffix("").parts).removesuffix(".__init__")
        module = importlib.import_module(name)
        # a hook is a function named pytest_*; a fixture is what @pytest.fixture returned
        holds = sorted(n for n, v in vars(module).items() if (n.startswith("pytest_") and inspect.isfunction(v))
                       or type(v).__name__ == "FixtureFunctionDefinition")
        if name == "fixtures.procs":
            assert holds == [], f"the package re-exports {holds}: pytest finds them in the plugin modules"
        elif holds:
            assert name in plugins, f"{name} holds {holds} but is not in conftest.py's pytest_plugins"


STARTED_AND_READY = r"""
import sys, time
started = time.time()
time.sleep(float(sys.argv[1]))  # the warm-up (a benchmark side's autotuning)
ready = time.time()
print("ready", flush=True)
for line in sys.stdin:
    print(started, ready, flush=True)
"""


def test_line_workers_start_one_after_the_other():
    """The second worker starts only once the first said "ready": no side's warm-up overlaps another's."""
    specs = [((name, STARTED_AND_READY, (warm_up,)), {"timeout": 30})
             for name, warm_up in (("first", 0.5), ("second", 0))]
    with procs.line_workers(*specs, ready_timeout=60) as pair:
        times = [[float(t) for t in w.ask("times").split()] for w in pair]
    (first_started, first_ready), (second_started, _) = times
    assert first_ready - first_started >= 0.5
    assert second_started >= first_ready, (
        f"the second worker started {first_ready - second_started:.3f} s before the first was ready")


def test_a_world_counts_as_started_only_when_every_rank_got_through_init():
    ok = {"init": {"initialized": True}}
    assert worlds.world_started([ok, ok])
    assert not worlds.world_started([ok, None]), "a rank that wrote nothing: start again"
    assert not worlds.world_started([ok, {"spawn": {}}]), "a rank stuck before init: start again"
    assert not worlds.world_started([ok, {"init": {"error": "EADDRINUSE"}}])


def _rank(sections: dict, *, started=True, running=None) -> dict:
    record = {"spawn": {"pid": 1}, "init": {"initialized": True} if started else {"error": "EADDRINUSE"}, **sections}
    if running:
        record["_running"] = {"section": running, "since": 0.0}
    return record


def _world(sections, ranks, *, verdict=None, returned=True) -> dict:
    proc = {"name": "w", "cmd": ["python"], "returncode": 0 if returned else None, "timed_out": not returned,
            "seconds": 1.0, "stdout": "", "stderr": "tail of this world", "swept": 0}
    return {"sections": sections, "port": 1, "ranks": ranks, "verdict": verdict or {},
            "driver": {"pid": 1, **({"spawn_returned": "None"} if returned else {})}, "proc": proc}


def test_sections_merge_over_worlds_and_a_lost_section_is_only_its_own_failure():
    failed_start = _world(["a", "b", "c"], [_rank({}, started=False), None], returned=False)
    lost = {"lost": "section 'b' did not finish within 5 s on rank 1"}
    stuck = _world(["a", "b", "c"], [_rank({"a": 1, "b": 2}), _rank({"a": 1}, running="b")], verdict=lost,
                   returned=False)
    remaining, merged = worlds.merge_worlds([failed_start, stuck], ["a", "b", "c"])
    assert remaining == ["c"], "the sections after the lost one run again"
    assert [m["a"] for m in merged] == [1, 1], "what a rank finished is kept"
    assert merged[0]["b"] == 2, "what a rank finished is kept"
    assert merged[1]["b"] == {"error": lost["lost"]}
    rest = _world(["c"], [_rank({"c": 3}), _rank({"c": 3})])
    remaining, merged = worlds.merge_worlds([failed_start, stuck, rest], ["a", "b", "c"])
    assert remaining == []
    assert [m["c"] for m in merged] == [3, 3]
    assert [m["_world"] for m in merged][1] == {"a": 1, "b": 1, "c": 2}
    world = {"ranks": merged, "procs": [w["proc"] for w in (failed_start, stuck, rest)]}
    assert procs.world_section(world, "a") == [1, 1]
    with pytest.raises(pytest.fail.Exception,
                       match=r"(?s)rank 1, section 'b' raised:.*did not finish.*tail of this world"):
        procs.world_section(world, "b")


@pytest.mark.slow
def test_a_stuck_section_fails_alone_and_the_sections_after_it_still_run(tmp_path, monkeypatch):
    from fixtures.dist_workers.spawn_world import HANG_VAR

    monkeypatch.setenv(HANG_VAR, "barrier")  # every rank sleeps for an hour in the barrier section
    limits = worlds.WorldLimits(start=180.0, section=3.0, exit=30.0, worlds=3)
    world = worlds.produce_world(tmp_path, "gloo", ["broadcast", "barrier", "sampler"], limits)
    sections = [w["sections"] for w in world["worlds"]]
    assert sections == [["broadcast", "barrier", "sampler"], ["sampler"]], world["worlds"]
    assert [b["after"] for b in procs.world_section(world, "broadcast")] == [[1.0, 2.0]] * 2
    with pytest.raises(pytest.fail.Exception, match="section 'barrier' did not finish within 3 s") as lost:
        procs.world_section(world, "barrier")
    # the stuck code is named in the stacks written at the kill (one process aborted at a time, so
    # whole stacks, not interleaved in the shared stderr). Not every rank's: once the spawn parent is
    # aborted first, a rank can be on its way out (its main thread in multiprocessing's exit path,
    # the signal taken by a gloo thread)
    stacks = str(lost.value)
    assert "in _run_section\n" in stacks, f"the stuck ranks' stacks in:\n{stacks}"
    assert stacks.count("Fatal Python error: Aborted") >= procs.WORLD_SIZE, f"fewer stacks than ranks in:\n{stacks}"
    assert [s["rank"] for s in procs.world_section(world, "sampler")] == [0, 1]
    # spawn, init and the driver come from the world whose spawn returned: the second one
    assert world["driver"]["spawn_returned"] == "None"
    assert {s["ppid"] for s in procs.world_section(world, "spawn")} == {world["driver"]["pid"]}
    for proc in procs.results_of(world):
        assert runner.processes_with_token(proc.token) == [], f"left behind by {proc.describe()}"


@pytest.mark.slow
def test_the_ddp_step_worker_answers_timed_steps_and_leaves_nothing_behind():
    """The DataParallel-vs-DDP benchmark's DDP side (fixtures/dist_workers/ddp_bench.py), on gloo
    with CPU tensors and three ranks (--world, as the DDP half of dist.dp-comm-scaling uses it):
    ready, one answer per command, every rank swept on close."""
    from fixtures.dist_workers import ddp_bench

    args = ("--port", procs.free_port(), "--width", 16, "--depth", 2, "--batch", 4, "--world", 3, "--device", "cpu")
    worker = workers.LineWorker("ddp-cpu", ddp_bench.COMMAND, args, timeout=60,
                                env=procs.clean_env(OMP_NUM_THREADS="1"))
    try:
        worker.expect("ready", timeout=180)
        answers = [float(worker.ask("steps 3")) for _ in range(2)]
        assert all(0 < ms < 60_000 for ms in answers), answers
        assert worker.ask("jump").startswith("unknown command"), "an unknown command is answered, not ignored"
        # the ranks are multiprocessing's spawn children (not its resource tracker)
        ranks = [pid for pid in runner.processes_with_token(worker.token)
                 if b"spawn_main" in pathlib.Path(f"/proc/{pid}/cmdline").read_bytes()]
        assert len(ranks) == 3, f"three ranks carry the token, found {ranks}"
    finally:
        worker.close()
    assert runner.processes_with_token(worker.token) == []


# two GPUs: with one, ids[worker % 1] is ids[0] for every worker, and a rule that always gave
# GPU 0 would pass too
@pytest.mark.needs(gpus=2)
def test_a_child_that_uses_one_gpu_sees_this_workers_gpu(monkeypatch):
    import torch

    env = procs.clean_env(gpus=1)
    ids = procs.visible_gpu_ids()
    n = torch.cuda.device_count()
    for worker in range(2 * n):
        monkeypatch.setenv("PYTEST_XDIST_WORKER", f"gw{worker}")
        assert procs.worker_gpus(1) == ids[worker % n]
    assert env["CUDA_VISIBLE_DEVICES"] in ids
    assert procs.clean_env().get("CUDA_VISIBLE_DEVICES") == os.environ.get("CUDA_VISIBLE_DEVICES"), (
        "without gpus= the variable is left as it was")


def test_asking_for_more_gpus_than_visible_is_an_error_not_gpu_0():
    import torch

    with pytest.raises(RuntimeError, match="declare needs"):
        procs.worker_gpus(torch.cuda.device_count() + 1)


def test_each_spawn_world_section_names_the_tests_that_read_it():
    """spawn_world.py / world_sections.py: one function per section key; every test its docstring names exists and
    reads that key with world_section(world, dist_workers.KEY), and every test that reads a key is
    named there."""
    import ast
    import re

    from fixtures import dist_workers
    from fixtures.dist_workers import spawn_world

    assert tuple(spawn_world.SECTION_FUNCTIONS) == dist_workers.STARTUP + dist_workers.SECTIONS
    readers: dict[str, set] = {}  # key -> "file::test" that call world_section(..., key)
    for path in sorted((runner.ROOT / "tests").glob("test_dist_*.py")):
        for fn in ast.parse(path.read_text(encoding="utf-8")).body:
            for call in ast.walk(fn) if isinstance(fn, ast.FunctionDef) else ():
                if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "world_section":
                    # the key is a constant of fixtures/dist_workers, never a string typed in the test
                    arg = call.args[1]
                    by_constant = isinstance(arg, ast.Attribute) and getattr(arg.value, "id", None) == "dist_workers"
                    assert by_constant, (
                        f"{path.name}::{fn.name} reads a section by {ast.unparse(arg)}, not dist_workers.KEY")
                    key = getattr(dist_workers, arg.attr)
                    readers.setdefault(key, set()).add(f"tests/{path.name}::{fn.name}")
    for key, section in spawn_world.SECTION_FUNCTIONS.items():
        assert section.__name__ == f"section_{key}", f"{key}: function {section.__name__}, expected section_{key}"
        text = " ".join(section.__doc__.split())
        named, file = set(), None
        for m in re.finditer(r"(tests/test_\w+\.py)::(\w+)|\b(test_\w+)", text):
            file = m.group(1) or file
            named.add(f"{file}::{m.group(2) or m.group(3)}")
        assert named == readers.get(key, set()), (
            f"section {key!r}: the docstring names {sorted(named)}; "
            f"the tests reading it are {sorted(readers.get(key, ()))}")


def test_the_background_thread_starts_processes_from_the_session_environment(monkeypatch):
    """_produce_early hands its thread the environment as the session started: a variable a test
    monkeypatches meanwhile (here in the main thread) never reaches the worlds it starts."""
    import threading

    monkeypatch.setenv("SPEC_PROBE_VAR", "session")
    seen = {}

    def in_thread(environ):
        runner.use_environ(environ)
        seen["value"] = procs.clean_env().get("SPEC_PROBE_VAR")

    snapshot = dict(os.environ)
    monkeypatch.setenv("SPEC_PROBE_VAR", "a test's value")
    thread = threading.Thread(target=in_thread, args=(snapshot,))
    thread.start()
    thread.join(timeout=30)
    assert seen == {"value": "session"}, f"the thread's child would see {seen}, expected the session's value"
    assert procs.clean_env()["SPEC_PROBE_VAR"] == "a test's value", "the main thread keeps reading os.environ"


def test_a_failing_launch_gives_one_headline_first_with_status_and_log_path(tmp_path):
    """Red in a world where the message starts with the stderr dump (the report then records its tail)."""
    code = "import sys\nprint('[rank1]: RuntimeError: boom', file=sys.stderr)\nraise ValueError('bad value')"
    result = procs.run("node0", [sys.executable, "-c", code], env=procs.clean_env(), folder=tmp_path, timeout=30)
    with pytest.raises(pytest.fail.Exception) as failed:
        procs.require_ok({"procs": [vars(result)]})
    first = str(failed.value).splitlines()[0]
    assert first == (f"process failure: launch node0: exit status 1, ValueError: bad value; "
                     f"logs: {tmp_path / 'node0.stderr'}"), first
    assert (tmp_path / "node0.stderr").exists()


@pytest.mark.slow
def test_a_world_killed_in_one_rank_gives_its_headline_line_in_the_report(tmp_path, monkeypatch):
    """A rank SIGKILLed in a section: the failure's first line names the world, the rank, the section,
    the signal and the log path, and the claims report records that line (red in a world where the
    report keeps the last lines of the stderr dump, or the message does not lead with the headline)."""
    from fixtures.dist_workers.spawn_world import KILL_VAR
    from harness import session

    monkeypatch.setenv(KILL_VAR, "1:barrier")
    limits = worlds.WorldLimits(start=180.0, section=60.0, exit=30.0, worlds=2, clean_return=False)
    world = worlds.produce_world(tmp_path, "gloo", ["broadcast", "barrier"], limits)
    with pytest.raises(pytest.fail.Exception) as lost:
        procs.world_section(world, "barrier")
    message = str(lost.value)

    class Report:  # what the claims plugin reads of a failed test's report
        when = "call"
        longreprtext = message
        longrepr = message

    summary = session.failure_summary(Report)
    assert summary.startswith("call: process failure: world gloo, rank 1, section 'barrier': "), summary
    assert "SIGKILL" in summary, summary
    log = summary.rsplit("; logs: ", 1)[-1]
    assert pathlib.Path(log).is_file(), f"the headline's log path {log!r} does not exist"
    assert message.splitlines()[0] == summary.removeprefix("call: "), "the message leads with the headline"
