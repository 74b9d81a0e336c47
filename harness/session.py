"""The claims plugin's per-run state (`ClaimsRun`, registered as the 'claims-run' plugin by
harness/claims_plugin.py): what each claim-linked test did, collected from the test reports and,
under xdist, from the workers; at the end the report of this environment with this run's
evidence added (harness/report.py builds it, harness/storage.py keeps it, harness/rendering.py
prints it). The markers a test carries are read here too (claim_ids(), claim_halves(),
claim_roles(), evidence_kind())."""
from __future__ import annotations

import contextlib
import datetime
import pathlib
import signal
import threading

import pytest

from harness import evidence, probe, provenance, rendering, report, roles, storage, verdicts
from harness.stash import NEEDS_KEY, PROCESS_HEADLINE, SKIP_REASON_KEY

DEFAULT_REPORT = "reports/claims.json"


def report_path(config) -> pathlib.Path:
    """The --claims-report path, absolute; a UsageError naming it when no report can be written there."""
    path = pathlib.Path(config.getoption("claims_report"))
    if not path.is_absolute():
        path = pathlib.Path(config.invocation_params.dir) / path
    if path.is_dir():
        raise pytest.UsageError(f"--claims-report {path}: is a folder; name a file, e.g. {path / 'claims.json'}")
    why = storage.check_writable(path)
    if why:
        raise pytest.UsageError(f"--claims-report {path}: cannot be written: {why}")
    return path


def claim_halves(item, inv=None) -> dict[str, str]:
    """{claim ID: "holding" / "failing"} from the test's claim(..., half=...) markers, and, given the
    inventory, from `decides="holds"` / `"left-out"` on a claim that is partly in some version:
    the two spellings of a half are one (harness/roles.py)."""
    halves: dict[str, str] = {}
    for mark in item.iter_markers("claim"):
        half = mark.kwargs.get("half")
        if half is None and inv is not None:
            half = roles.ROLE_HALF.get(mark.kwargs.get("decides"))
        for cid in mark.args:
            if half is not None and ("half" in mark.kwargs or (cid in inv and inv[cid].ever_partly)):
                halves.setdefault(cid, half)
    return halves


def claim_roles(item) -> dict[str, str]:
    """{claim ID: declared role} from the test's claim(..., decides=...) markers."""
    return {cid: mark.kwargs["decides"]
            for mark in item.iter_markers("claim") if "decides" in mark.kwargs for cid in mark.args}


def claim_ids(item) -> list[str]:
    ids: list[str] = []
    for mark in item.iter_markers("claim"):
        for cid in mark.args:
            if cid not in ids:
                ids.append(cid)
    return ids


def evidence_kind(item) -> evidence.Kind:
    """What a test needs, as the report uses it to tell deciding from supporting evidence."""
    needs = item.stash.get(NEEDS_KEY, None) or {}
    return {
        "gpus": int(needs.get("gpus", 0)),
        "processes": bool(needs.get("processes")),
        "benchmark": item.get_closest_marker("benchmark") is not None,
        "libs": list(needs.get("libs", [])),
        "network": bool(needs.get("network")),
    }


def skip_reason(report) -> str:
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
    return reason.removeprefix("Skipped: ")


def failure_summary(report) -> str:
    """The failure in one line: a failed process world's or launch's headline (what, rank,
    section, exit status or signal, logs) when there is one, else the assertion's `E` lines, else
    the first lines of the message (a pytest.fail without a traceback)."""
    text = getattr(report, "longreprtext", "") or str(report.longrepr or "")
    heads = [ln[ln.index(PROCESS_HEADLINE):].strip() for ln in text.splitlines() if PROCESS_HEADLINE in ln]
    if heads:
        return f"{report.when}: {heads[0]}"[:600]
    lines = [ln[2:].strip() for ln in text.splitlines() if ln.startswith("E ")] or text.splitlines()[:3]
    return f"{report.when}: " + " | ".join(ln.strip() for ln in lines[:6])[:600]


class ClaimsRun:
    """Per-run state and hooks, registered as the 'claims-run' plugin."""

    def __init__(self, config, inv, wanted):
        self.config = config
        self.inventory = inv
        self.wanted = wanted
        self.tests: dict[str, evidence.TestRecord] = {}  # this run's evidence, by node ID
        self.deselected: dict[str, evidence.TestRecord] = {}  # the tests -m / --claim / -k left out
        self.collected: set[str] = set()  # claim-linked node IDs this run collected (selected or not)
        self.environment: evidence.Environment | None = None
        self.written = None  # (doc, path, notes) once the report is written
        self.unchanged: str | None = None  # why this run left the report as it was
        self.lost_workers: list[str] = []  # xdist workers that went down with an error
        self.hashing: threading.Thread | None = None  # xdist controller: provenance.warm in the background
        self.as_collected: dict[str, str | None] = {}  # node ID -> its source hash when the run collected it
        self.finished = 0  # tests finished (where an interrupted run stopped: "N of M collected tests finished")
        self.running: dict[str, None] = {}  # node IDs started and not finished (where an interrupted run stopped)
        self.signalled: str | None = None  # the signal that interrupted the run, when it was one we caught
        self._sigterm_before = None
        self.warned: dict[str, list[dict[str, str]]] = {}  # node ID -> the warnings its run raised

    def catch_sigterm(self) -> None:
        """SIGTERM (what `timeout` and most job runners send at a step's time limit) interrupts the
        run as Ctrl-C does, so that the evidence of the tests that finished is written; only where
        nothing else handles SIGTERM, and only in the main thread (the process that writes the report)."""
        if threading.current_thread() is not threading.main_thread():
            return
        if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
            return

        def interrupt(signum, frame):
            self.signalled = signal.Signals(signum).name
            raise KeyboardInterrupt(f"{self.signalled}: the run was told to stop")

        self._sigterm_before = signal.signal(signal.SIGTERM, interrupt)

    def release_sigterm(self) -> None:
        if self._sigterm_before is not None and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, self._sigterm_before)
            self._sigterm_before = None

    @property
    def is_worker(self) -> bool:
        return hasattr(self.config, "workerinput")

    @property
    def is_controller(self) -> bool:
        return self.config.pluginmanager.hasplugin("dsession")

    # --- collection ----------------------------------------------------------------

    @pytest.hookimpl(wrapper=True)
    def pytest_pycollect_makeitem(self, collector, name, obj):
        """Validate claim markers as tests are collected: a bad ID is a collection error."""
        result = yield
        for item in result if isinstance(result, list) else [result]:
            if not isinstance(item, pytest.Function):
                continue
            for mark in item.iter_markers("claim"):
                if not mark.args or set(mark.kwargs) - {"half", "decides"}:
                    raise collector.CollectError(f"{item.name}: claim() takes one or more claim IDs and "
                                                 "optionally half= or decides=, nothing else")
                if "decides" in mark.kwargs and mark.kwargs["decides"] not in roles.ROLES:
                    raise collector.CollectError(f"{item.name}: claim(decides=...) must be one of {roles.ROLES}, "
                                                 f"got {mark.kwargs['decides']!r}")
                if "half" in mark.kwargs and mark.kwargs["half"] not in verdicts.HALVES:
                    raise collector.CollectError(f"{item.name}: claim(half=...) must be one of {verdicts.HALVES}, "
                                                 f"got {mark.kwargs['half']!r}")
            for cid in claim_ids(item):
                if not isinstance(cid, str) or cid not in self.inventory:
                    raise collector.CollectError(f"{item.name}: unknown claim ID {cid!r} (not in tests/claims/*.toml)")
                claim = self.inventory[cid]
                if not claim.standings:
                    raise collector.CollectError(
                        f"{item.name}: claim {cid!r} has tests but no standing in tests/claims/{claim.topic}.toml"
                    )
            for cid in claim_halves(item):  # an explicit half= on a claim that is never partly
                if cid in self.inventory and not self.inventory[cid].ever_partly:
                    raise collector.CollectError(
                        f"{item.name}: claim {cid!r} is marked with a half but no standing of it is partly")
        return result

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config, items):
        """After the needs hook (tryfirst), before `-m`: attach claim IDs, apply --claim."""
        keep, drop = [], []
        for item in items:
            ids = claim_ids(item)
            if ids:
                item.user_properties.append(("claims", ids))
                if claim_halves(item, self.inventory):
                    item.user_properties.append(("halves", claim_halves(item, self.inventory)))
                if claim_roles(item):
                    item.user_properties.append(("decides", claim_roles(item)))
                item.user_properties.append(("evidence_kind", evidence_kind(item)))
            (drop if self.wanted and not set(self.wanted) & set(ids) else keep).append(item)
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = keep

    def pytest_deselected(self, items):
        for item in items:
            ids = claim_ids(item)
            if ids:
                reason = (item.stash.get(SKIP_REASON_KEY, None)
                          or f"{report.DESELECTED} ({self.selection().options()})")
                self.deselected[item.nodeid] = self._record(item, outcome="deselected", reason=reason)

    def selection(self) -> evidence.Selection:
        """What this run selected (-m, --claim, -k, its arguments)."""
        opt = self.config.option
        return evidence.Selection(tuple(map(str, self.config.invocation_params.args)), opt.markexpr or "",
                                  tuple(self.wanted), opt.keyword or "")

    def pytest_collection_finish(self, session):
        self.collected |= {item.nodeid for item in session.items if claim_ids(item)} | set(self.deselected)
        if self.is_controller:
            return
        if not self.is_worker and not self.config.option.collectonly:
            # the tests' sources as they run: an edit made while the run runs does not reach their stamps
            self.as_collected = provenance.warm(self.config.rootpath,
                                                [i.nodeid for i in session.items if claim_ids(i)])
        worker = self.config.workerinput["workerid"] if self.is_worker else None
        # one process looks at the machine: no CUDA context is created, unless nvidia-smi is
        # missing on a GPU machine (then torch names the GPUs, see probe.environment())
        if worker in (None, "gw0"):
            self.environment = probe.environment(self._libs(session.items))
        if self.is_worker:
            self.config.workeroutput["claims_deselected"] = self.deselected
            self.config.workeroutput["claims_collected"] = sorted(self.collected)
            self.config.workeroutput["claims_environment"] = self.environment

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node, ids):
        """xdist controller: hash the collected tests' sources now, beside the workers, instead of
        after the last test, where parsing every test module would lengthen the run's serial tail.
        These are the hashes the report stamps: a test edited after it was collected keeps the hash
        of the version that ran (and reads stale against the edited file). A run without xdist
        hashes at the end of its collection, before its first test (the serial benchmark step must
        stay quiet while it measures)."""
        if self.hashing is None:
            self.hashing = threading.Thread(target=self._hash_as_collected, args=(list(ids),),
                                            name="claims-provenance", daemon=True)
            self.hashing.start()

    def _hash_as_collected(self, nodeids: list[str]) -> None:
        self.as_collected = provenance.warm(self.config.rootpath, nodeids)

    # --- outcomes ------------------------------------------------------------------

    def pytest_runtest_logstart(self, nodeid, location):
        self.running[nodeid] = None

    def pytest_runtest_logfinish(self, nodeid, location):
        self.running.pop(nodeid, None)
        self.finished += 1  # every test that finished, claim-linked or not, passed, failed or skipped

    def pytest_runtest_logreport(self, report):
        ids = next((v for k, v in report.user_properties if k == "claims"), None)
        if not ids:
            return
        entry = self.tests.get(report.nodeid)
        if entry is None:
            props = dict(report.user_properties)
            entry = self.tests[report.nodeid] = evidence.record(ids, {}, halves=props.get("halves"),
                                                                decides=props.get("decides"))
            if report.nodeid in self.warned:
                entry["warnings"] = list(self.warned[report.nodeid])
        for key, value in report.user_properties:
            if key == "evidence_kind":
                entry["kind"] = value
            elif key == "figure" and value not in entry["figures"]:
                entry["figures"].append(value)
            elif key == "inconclusive":
                entry["inconclusive"] = value
        if report.skipped and hasattr(report, "wasxfail"):
            entry["outcome"], entry["reason"] = "xfailed", f"xfail: {report.wasxfail}"
        elif report.skipped:
            if entry["outcome"] is None:
                entry["outcome"], entry["reason"] = "skipped", skip_reason(report)
        elif report.failed:
            if entry["outcome"] not in ("failed", "error"):
                entry["outcome"] = "failed" if report.when == "call" else "error"
                entry["reason"] = failure_summary(report)
        elif report.when == "call" and entry["outcome"] is None:
            entry["outcome"] = "xpassed" if hasattr(report, "wasxfail") else "passed"

    def pytest_warning_recorded(self, warning_message, when, nodeid, location):
        """The warnings a test raised (and did not assert with pytest.warns), by category and message:
        a deciding test that meets a DeprecationWarning or FutureWarning of the API its claim states
        shows the deprecation rule 3 judges (meta_tests/pipeline/test_deprecations_seen.py). With
        xdist the workers' warnings reach the controller after the test's reports."""
        if when != "runtest" or not nodeid:
            return
        seen = {"category": warning_message.category.__name__, "message": str(warning_message.message)[:300]}
        warned = self.warned.setdefault(nodeid, [])
        if seen not in warned:
            warned.append(seen)
        entry = self.tests.get(nodeid)
        if entry is not None:
            entry["warnings"] = list(warned)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node, error):
        """xdist controller: merge what a worker saw outside of test reports."""
        if error is not None:
            self.lost_workers.append(f"{getattr(node, 'gateway', node).id}: {str(error)[:200]}")
        out = getattr(node, "workeroutput", None) or {}
        for nodeid, entry in (out.get("claims_deselected") or {}).items():
            self.deselected.setdefault(nodeid, entry)
        self.collected |= set(out.get("claims_collected") or ())
        if self.environment is None and out.get("claims_environment"):
            self.environment = out["claims_environment"]

    # --- report --------------------------------------------------------------------

    def pytest_sessionfinish(self, session, exitstatus):
        if self.is_worker:
            return  # workers report to the controller
        ran = {n: t for n, t in self.tests.items() if t["outcome"] is not None}
        if not any(t["outcome"] in evidence.EXECUTED for t in ran.values()):
            # a run that executed no claim-linked test (every one skipped or deselected: the GPU spec
            # on a machine without a GPU) leaves the report byte for byte as it was
            if ran:
                self.unchanged = (f"no claim-linked test executed ({len(ran)} skipped): "
                                  f"{report_path(self.config)} is left as it was")
            return
        path = report_path(self.config)
        try:
            with storage.locked(path), self._signals_held() as held:
                self.written = self._merge_and_write(session, exitstatus, ran, path)
        except (storage.ReportLocked, OSError) as exc:
            # one line, naming the report and why; the run's evidence is kept in a file of its own
            why = str(exc) if isinstance(exc, storage.ReportLocked) else f"{type(exc).__name__}: {exc}"
            self.unchanged = f"{path}: {why}; {self._keep_unwritten(exitstatus, ran, path)}"
            session.exitstatus = pytest.ExitCode.INTERNAL_ERROR
            return
        if held:
            session.exitstatus = pytest.ExitCode.INTERRUPTED

    def _keep_unwritten(self, exitstatus, ran: dict, path: pathlib.Path) -> str:
        """This run's evidence, in a file beside the report (or in the temporary folder) when the
        report could not be written: what the run found is not lost with the write."""
        tests = {n: self._stamped(n, t) for n, t in ran.items()}
        for t in tests.values():
            t["run"] = 0
        doc = {"schema": evidence.SCHEMA, "not_merged_into": str(path), "environment": self.environment or {},
               "runs": [self._run_entry(exitstatus, ran, None)], "tests": dict(sorted(tests.items()))}
        try:
            return f"this run's evidence is kept in {storage.keep_unwritten(doc, path)}"
        except OSError as exc:
            return f"this run's evidence could not be kept either ({exc})"

    @contextlib.contextmanager
    def _signals_held(self):
        """SIGINT and SIGTERM wait while the report is merged and written (a fraction of a second):
        a second signal would otherwise cut the write and lose the whole run's evidence. tox, told
        to stop, sends its command SIGINT and then SIGTERM 0.3 s later (its interrupt_timeout),
        which lands in this write. Yields the signals that arrived (the run then exits interrupted)."""
        held: list[int] = []
        if threading.current_thread() is not threading.main_thread():
            yield held
            return
        def hold(signum, frame):
            held.append(signum)

        before = {s: signal.signal(s, hold) for s in (signal.SIGINT, signal.SIGTERM)}
        try:
            yield held
        finally:
            for s, handler in before.items():  # None: a handler not set from Python (restored as the default)
                signal.signal(s, signal.SIG_DFL if handler is None else handler)

    def _merge_and_write(self, session, exitstatus, ran: dict, path: pathlib.Path):
        """Under the report's lock: the report at `path` with this run's evidence added."""
        if self.environment is None:
            # the worker that looks at the machine (gw0) was lost before it reported: look here,
            # or the report would be judged another environment's and moved aside
            self.environment = probe.environment(self._libs(session.items))
        environment = self.environment
        root = self.config.rootpath
        if self.hashing is not None:
            self.hashing.join()  # its results are self.as_collected: no file parsed twice
        new = {n: self._stamped(n, t) for n, t in ran.items()}
        for nodeid, d in self.deselected.items():
            new.setdefault(nodeid, d)
        stopped = self._stopped(session, exitstatus, ran)
        if stopped:
            new.update(self._unreached(session, new, stopped))
        swept = storage.sweep(path)
        previous, why_not = storage.load_previous(path, environment)
        if previous is not None:  # the libraries of the earlier runs' evidence stay named
            environment["libraries"] = {**((previous.get("environment") or {}).get("libraries") or {}),
                                        **(environment.get("libraries") or {})}
        notes = []
        if swept:
            notes.append(f"removed {len(swept)} temporary file(s) that a write of the report killed half-way left: "
                         + ", ".join(p.name for p in swept))
        if why_not:
            notes.append(f"the earlier report was moved aside to {storage.aside(path)}: {why_not}")
        tests, runs = report.merge(previous, new, self.collected, rootdir=root, narrowed=self._narrowed())
        dropped = sorted(set((previous or {}).get("tests") or {}) - set(tests))
        if dropped:  # said, never silent: a renamed test's evidence goes with them
            notes.append(f"the earlier evidence of {len(dropped)} test(s) that no longer exist was dropped, e.g. "
                         f"{dropped[0]} (a test renamed or moved keeps its evidence when "
                         "`python -m harness.evidence_files rename OLD NEW REPORT` runs before the next pytest run)")
        runs = runs + [self._run_entry(exitstatus, ran, stopped)]
        doc = report.build(self.inventory, tests=tests, environment=environment, runs=runs, rootdir=root)
        storage.write(doc, path, rendering.render_markdown(doc))
        return doc, path, notes

    def _run_entry(self, exitstatus, ran: dict, stopped: str | None) -> evidence.Run:
        """This run as its report records it (`runs`)."""
        run = evidence.Run(
            args=list(self.config.invocation_params.args),
            markexpr=self.config.option.markexpr or "",
            claims=self.wanted,
        )
        if self.config.option.keyword:
            run["keyword"] = self.config.option.keyword
        run["finished"] = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
        run["executed"] = sum(1 for t in ran.values() if t["outcome"] in verdicts.EXECUTED)
        run["skipped"] = sum(1 for t in ran.values() if t["outcome"] == "skipped")
        run["exitstatus"] = int(exitstatus)
        # interrupted, stopped early (-x, --maxfail) or a worker lost: what it did not reach is missing
        run["complete"] = not stopped
        if stopped:
            run["incomplete"] = stopped
        return run

    def _unreached(self, session, new: dict[str, evidence.TestRecord], stopped: str) -> dict[str, evidence.TestRecord]:
        """The claim-linked tests a stopped run collected but never finished, as skips that say so: a
        claim whose cases must all pass (a benchmark panel's `covered_by`) then reads not-run or
        inconclusive, never decided by the cases that happened to run first. A skip never undoes an
        earlier run's evidence of the test (report.merge). Only where this process collected the
        tests (no xdist: the serial benchmark steps); under xdist the controller holds no items."""
        out = {}
        for item in session.items:
            ids = claim_ids(item)
            if ids and item.nodeid not in new:
                rec = self._record(item, outcome="skipped", reason=f"not reached: the run stopped early ({stopped})")
                out[item.nodeid] = self._stamped(item.nodeid, rec)
        return out

    def _record(self, item, *, outcome: str, reason: str) -> evidence.TestRecord:
        """The record of a claim-linked test this process collected and did not run, from its markers
        (its halves in either spelling, its declared roles), as a run's test reports give them."""
        return evidence.record(claim_ids(item), evidence_kind(item), outcome=outcome, reason=reason,
                               halves=claim_halves(item, self.inventory), decides=claim_roles(item))

    def _stamped(self, nodeid: str, rec: evidence.TestRecord) -> evidence.TestRecord:
        """A copy of `rec` with its provenance: the test's source as this run collected it, its claims
        as they are."""
        stamp = provenance.stamp(self.config.rootpath, self.inventory, nodeid, rec["claims"],
                                 self.as_collected.get(nodeid))
        out = rec.copy()
        out["source_hash"], out["claims_hash"] = stamp["source_hash"], stamp["claims_hash"]
        return out

    def _libs(self, items) -> list[str]:
        """The optional modules that the collected claim-linked tests need (selected or not)."""
        kinds = [evidence_kind(i) for i in items if claim_ids(i)] + [d["kind"] for d in self.deselected.values()]
        return sorted({lib for k in kinds for lib in k.get("libs", [])})

    def _stopped(self, session, exitstatus, ran: dict) -> str | None:
        """Why and where this run stopped before its end, or None when it ran to the end."""
        why = []
        if exitstatus == pytest.ExitCode.INTERRUPTED:
            how = f"by {self.signalled}" if self.signalled else "(KeyboardInterrupt: Ctrl-C or SIGINT)"
            why.append(f"interrupted {how}")
        elif exitstatus == pytest.ExitCode.INTERNAL_ERROR:
            why.append("an internal error stopped it")
        elif session.shouldstop or session.shouldfail:
            why.append(str(session.shouldstop or session.shouldfail))
        why += [f"worker lost: {w}" for w in self.lost_workers]
        if not why:
            return None
        where = f"{self.finished} of {session.testscollected} collected tests finished"
        if self.running:
            running = list(self.running)
            where += "; running then: " + ", ".join(running[:5]) + (f" and {len(running) - 5} more"
                                                                    if len(running) > 5 else "")
        return "; ".join(why) + f" ({where})"

    def _narrowed(self) -> set[str]:
        """Test files this run named by node ID (a.py::test_x): it did not collect them whole."""
        root, here = self.config.rootpath, pathlib.Path(self.config.invocation_params.dir)
        out = set()
        for arg in self.config.args:
            if "::" in arg:
                file = (here / arg.split("::", 1)[0]).resolve()
                if file.is_relative_to(root):
                    out.add(file.relative_to(root).as_posix())
        return out

    def _asked(self, doc: dict) -> list[str]:
        """The claims this run was about: the --claim IDs, or the claims of the tests it executed
        when they are a handful (rendering.CLAIM_LINES_MAX); [] for a larger run."""
        if self.wanted:
            return list(self.wanted)
        ran = [t for t in self.tests.values() if t["outcome"] in verdicts.EXECUTED]
        ids = list(dict.fromkeys(cid for t in ran for cid in t["claims"]))
        return ids if len(ids) <= rendering.CLAIM_LINES_MAX else []

    def pytest_terminal_summary(self, terminalreporter):
        if self.unchanged:
            terminalreporter.section("claims")
            terminalreporter.write_line(f"claims report not written: {self.unchanged}")
        if not self.written:
            return
        doc, path, notes = self.written
        terminalreporter.section("claims")
        asked = self._asked(doc)
        if asked:  # the answer first: the claims this run asked about, then the whole report
            terminalreporter.write_line(f"the claim{'s' if len(asked) > 1 else ''} of this run:")
            for line in rendering.claim_lines(doc, asked):
                terminalreporter.write_line(line)
        for note in notes:
            terminalreporter.write_line(note)
        for line in rendering.summary_lines(doc):
            terminalreporter.write_line(line)
        terminalreporter.write_line(f"report: {path} and {path.with_suffix('.md')}")
