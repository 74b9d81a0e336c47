"""Unit tests of the harness's pure parts: inventory validation, version ranges, verdicts."""
import ast
import datetime
import json
import pathlib
import re
import subprocess
import sys

import pytest

from fixtures import versions
from fixtures.needs import missing
from harness import inventory, probe, rendering, report, storage, verdicts
from spec_runner import ROOT

CHECKLIST = pathlib.Path(__file__).resolve().parents[3] / "shared" / "claims-checklist.md"


def write_inventory(tmp_path, body, topic="t"):
    (tmp_path / f"{topic}.toml").write_text(f'topic = "{topic}"\ntitle = "T"\n' + body)
    return tmp_path


CLAIM = '[[claim]]\nid = "t.a"\nsource = ["n › s"]\nclaim = "c"\nchecklist_needs = ["cpu"]\ndecided_by = "cpu"\n'


def test_versions_compare_release_numbers_not_strings():
    assert versions.parse("2.14.1+cu130") == (2, 14, 1)
    assert versions.parse("2.0") == (2, 0, 0) == versions.parse("2.0.0a0")
    assert versions.in_range("2.10.0", since="2.9")
    assert not versions.in_range("2.10.0", before="2.9")
    assert versions.in_range("1.13.1", before="2.0")
    assert not versions.in_range("2.0.1", before="2.0")


def test_real_inventory_loads_and_holds_every_checklist_id():
    inv = inventory.load()
    if not CHECKLIST.exists():
        pytest.skip(f"needs the claims checklist at {CHECKLIST}")
    ids = set(re.findall(r"^\| `([a-z]+\.[a-z0-9-]+)` \|", CHECKLIST.read_text(), flags=re.M))
    assert len(ids) == 331
    assert ids <= set(inv.claims), f"missing from the inventory: {sorted(ids - set(inv.claims))}"
    extra = {cid for cid in inv.claims if cid not in ids}
    unmarked = {cid for cid in extra if not (inv[cid].added or inv[cid].split_from in ids)}
    assert not unmarked, f"claims not in the checklist must say added = true, or split_from a checklist ID: {unmarked}"


def test_a_split_claim_reads_split_from_its_row_never_added_by_this_project():
    """Rules 4 and 5: a note's own sentence split off a merged checklist row is no project addition."""
    inv = inventory.load()
    split = {cid: c.split_from for cid, c in inv.claims.items() if c.split_from}
    assert split.get("dist.ddp-loss-sync") == "dist.ddp-grad-average", split
    assert not any(inv[cid].added for cid in split), split
    assert verdicts.shown_text("c", split_from="t.b") == "c (split from t.b)"
    assert verdicts.shown_text("c", added=True) == f"c {verdicts.ADDED}"
    assert verdicts.shown_text("c") == "c"


@pytest.mark.parametrize(
    "body, message",
    [
        pytest.param(CLAIM + CLAIM, "duplicate claim ID", id="duplicate"),
        pytest.param(CLAIM + 'standing = "refuted"\n', "needs a one-sentence correction", id="refuted-no-correction"),
        pytest.param(CLAIM + 'standing = "maybe"\n', "standing verdict must be one of", id="bad-verdict"),
        pytest.param(CLAIM + 'colour = "red"\n', "unknown keys", id="unknown-key"),
        pytest.param(CLAIM.replace('["cpu"]', '["tpu"]'), "unknown need", id="unknown-need"),
        pytest.param(CLAIM.replace("checklist_needs", "needs"), "the key 'needs' is now 'checklist_needs'",
                     id="old-needs-key"),
        pytest.param(CLAIM.replace("t.a", "x.a"), "must start with", id="wrong-prefix"),
        pytest.param(CLAIM.replace('decided_by = "cpu"\n', ""), "missing 'decided_by'", id="no-decided-by"),
        pytest.param(CLAIM.replace('decided_by = "cpu"', 'decided_by = "tpu"'), "decided_by must be one of",
                     id="unknown-decided-by"),
        pytest.param(CLAIM + 'added = true\nsplit_from = "t.b"\n' + CLAIM.replace('"t.a"', '"t.b"'),
                     "split_from and added exclude each other", id="added-and-split"),
        pytest.param(CLAIM + 'split_from = "t.gone"\n', "which is no other claim", id="split-from-unknown"),
        pytest.param(CLAIM + 'split_from = "t.a"\n', "which is no other claim", id="split-from-itself"),
        pytest.param(
            CLAIM + '[[claim.standing]]\nbefore = "2.0"\nverdict = "holds"\n'
            '[[claim.standing]]\nsince = "2.1"\nverdict = "refuted"\ncorrection = "c"\n',
            "must meet",
            id="gap-between-ranges",
        ),
        pytest.param(
            CLAIM + '[[claim.standing]]\nsince = "2.0"\nverdict = "holds"\n'
            '[[claim.standing]]\nsince = "2.1"\nverdict = "refuted"\ncorrection = "c"\n',
            "open below",
            id="first-range-not-open",
        ),
    ],
)
def test_inventory_rejects_malformed_entries(tmp_path, body, message):
    with pytest.raises(inventory.InventoryError, match=message):
        inventory.load(write_inventory(tmp_path, body))


def ranged_claim(tmp_path, decided_by="cpu"):
    body = CLAIM.replace('decided_by = "cpu"', f'decided_by = "{decided_by}"') + (
        '[[claim.standing]]\nbefore = "2.0"\nverdict = "holds"\n'
        '[[claim.standing]]\nsince = "2.0"\nverdict = "refuted"\ncorrection = "now None"\n'
    )
    return inventory.load(write_inventory(tmp_path, body))["t.a"]


def rec(outcome, reason=None, inconclusive=None, nodeid="t.py::test_x", role="deciding", device="cpu",
        decides="by-version"):
    """A test record of the ranged claim: its test asserts each side of the boundary (by-version)."""
    return {"nodeid": nodeid, "outcome": outcome, "reason": reason, "inconclusive": inconclusive, "role": role,
            "device": device, "decides": decides}


NO_GPU = "needs a CUDA GPU (found 0: no GPU)"
CUDA_SUPPORT = rec("skipped", NO_GPU, role="supporting", device="cuda")


@pytest.mark.parametrize(
    "records, version, verdict, reason_part",
    [
        pytest.param([], "2.14.1", "untested", None, id="no-test"),
        pytest.param([rec("passed")], "1.13.1", "holds", "decided on CPU", id="passed-old-torch"),
        pytest.param([rec("passed")], "2.14.1", "refuted", "decided on CPU", id="passed-new-torch"),
        pytest.param([rec("passed"), CUDA_SUPPORT], "2.14.1", "refuted",
                     f"decided on CPU by test_x; test_x (supporting) did not run: {NO_GPU}", id="passed-and-skipped"),
        pytest.param([rec("skipped", NO_GPU), rec("deselected", NO_GPU)],
                     "2.14.1", "not-run", NO_GPU, id="all-skipped"),
        pytest.param([rec("passed"), rec("failed", "call: assert 1 == 2")], "2.14.1", "failed", "assert 1 == 2",
                     id="one-failed"),
        pytest.param([rec("passed"), rec("failed", "call: boom", role="supporting", device="cuda")], "2.14.1",
                     "failed", "boom", id="a-failing-supporting-test-fails-the-claim"),
        pytest.param([rec("error", "setup: leaked global torch state")], "2.14.1", "failed", "leaked", id="error"),
        pytest.param([rec("xfailed", "xfail: known")], "2.14.1", "failed", "xfail", id="xfail-is-not-a-pass"),
        pytest.param([rec("passed", inconclusive="ratio 1.02 within noise")], "2.14.1", "inconclusive", "noise",
                     id="inconclusive-benchmark"),
        pytest.param([rec("passed", role="supporting")], "2.14.1", "not-run", "no test that can decide it",
                     id="only-supporting-tests-collected"),
    ],
)
def test_verdict_for_every_outcome_mix(tmp_path, records, version, verdict, reason_part):
    got, _, reason, _ = verdicts.verdict_for(ranged_claim(tmp_path), records, version)
    assert got == verdict, reason
    if reason_part:
        assert reason_part in reason
    else:
        assert reason is None


def test_a_gpu_claim_is_not_decided_by_its_passing_cpu_case(tmp_path):
    claim = ranged_claim(tmp_path, decided_by="gpu")
    records = [rec("passed", role="supporting"), rec("skipped", NO_GPU, device="cuda")]
    verdict, standing, reason, supporting = verdicts.verdict_for(claim, records, "2.14.1")
    assert (verdict, standing, reason) == ("not-run", None, NO_GPU)
    assert supporting == "supporting evidence ran: test_x passed"
    records[1] = rec("passed", device="cuda")
    verdict = verdicts.verdict_for(claim, records, "2.14.1")[:3]
    assert verdict == ("refuted", "refuted", "decided on a CUDA GPU by test_x")


def test_a_decided_claim_names_its_deciding_tests_and_the_part_that_did_not_run(tmp_path):
    """Texts said once: no "the CPU test (1, deciding) did not run" beside "decided on CPU"."""
    claim = ranged_claim(tmp_path)
    records = [rec("passed", nodeid="t.py::test_a[cpu]"),
            rec("skipped", "needs a serial run (-p no:xdist), not an xdist worker", nodeid="t.py::test_b")]
    verdict, _, reason, _ = verdicts.verdict_for(claim, records, "2.14.1")
    assert verdict == "refuted"
    assert reason == ("decided on CPU by test_a[cpu]; test_b (deciding) did not run: "
                      "needs a serial run (-p no:xdist), not an xdist worker"), reason
    many = [rec("passed", nodeid=f"t.py::test_{i}") for i in range(6)]
    reason = verdicts.verdict_for(claim, many, "2.14.1")[2]
    assert reason == "decided on CPU by test_0, test_1, test_2, test_3 and 2 more"


def test_a_claim_with_covered_by_is_inconclusive_until_every_case_of_its_cover_passed(tmp_path):
    """Rule 7: a speed claim decided on a panel. One network measured, the panel not yet: inconclusive
    (not refuted), naming the panel; one row not run: still inconclusive; the whole panel: the standing."""
    body = CLAIM.replace('decided_by = "cpu"', 'decided_by = "cpu"\ncovered_by = ["test_panel"]') + (
        'standing = "refuted"\ncorrection = "no speed-up on any layer"\n')
    claim = inventory.load(write_inventory(tmp_path, body))["t.a"]
    assert claim.covered_by == ("test_panel",)
    one_net = [rec("passed", nodeid="t.py::test_net")]
    verdict, standing, reason, _ = verdicts.verdict_for(claim, one_net, "2.14.1")
    assert (verdict, standing) == ("inconclusive", None), reason
    assert "test_panel has no evidence here" in reason, reason
    rows = [rec("passed", nodeid="t.py::test_panel[a]"), rec("skipped", NO_GPU, nodeid="t.py::test_panel[b]")]
    verdict, _, reason, _ = verdicts.verdict_for(claim, one_net + rows, "2.14.1")
    assert verdict == "inconclusive", reason
    assert f"test_panel[b] did not run: {NO_GPU}" in reason, reason
    rows[1] = rec("passed", nodeid="t.py::test_panel[b]")
    assert verdicts.verdict_for(claim, one_net + rows, "2.14.1")[:2] == ("refuted", "refuted")
    assert verdicts.verdict_for(claim, [rec("skipped", NO_GPU)], "2.14.1")[0] == "not-run"
    with pytest.raises(inventory.InventoryError, match="covered_by"):
        inventory.load(write_inventory(tmp_path, CLAIM + 'covered_by = "test_panel"\n'))


@pytest.mark.parametrize(
    "decided_by, kind, role",
    [
        ("cpu", {"gpus": 0}, "deciding"),
        ("cpu", {"gpus": 1}, "supporting"),
        ("gpu", {"gpus": 1}, "deciding"),
        ("gpu", {"gpus": 0}, "supporting"),
        ("multi-gpu", {"gpus": 1}, "supporting"),
        ("multi-gpu", {"gpus": 2}, "deciding"),
        ("multi-process", {"gpus": 0, "processes": True}, "deciding"),
        ("multi-process", {"gpus": 0}, "supporting"),
        ("benchmark-cpu", {"gpus": 0, "benchmark": True}, "deciding"),
        ("benchmark-cpu", {"gpus": 1, "benchmark": True}, "supporting"),
        ("benchmark-gpu", {"gpus": 1, "benchmark": True}, "deciding"),
        ("external-lib", {"libs": ["einops"]}, "deciding"),
        ("external-lib", {}, "supporting"),
        ("network", {"network": True}, "deciding"),
    ],
)
def test_role_of_a_test_follows_the_claims_decided_by(tmp_path, decided_by, kind, role):
    assert verdicts.role_of(ranged_claim(tmp_path, decided_by), kind) == role


def record(claims, outcome, kind=None, **extra):
    return {"claims": claims, "outcome": outcome, "reason": extra.pop("reason", None), "figures": [],
            "inconclusive": None, "kind": kind or {"gpus": 0}, **extra}


def test_report_build_counts_every_claim_and_carries_corrections(tmp_path):
    inv = inventory.load(write_inventory(tmp_path, CLAIM.replace("t.a", "t.b") + CLAIM.replace(
        '["cpu"]\n', '["cpu"]\nstanding = "refuted"\ncorrection = "the truth"\n')))
    doc = report.build(
        inv,
        tests={"t.py::test_a": record(["t.a"], "passed", figures=[{"name": "speedup", "value": 2.5, "unit": "x"}],
                                      decides={"t.a": "wrong"})},
        environment={"torch": "2.14.1"},
        runs=[{"args": []}],
    )
    by_id = {c["id"]: c for c in doc["claims"]}
    assert by_id["t.a"]["verdict"] == "refuted"
    assert by_id["t.a"]["correction"] == "the truth"
    assert by_id["t.a"]["figures"][0]["value"] == 2.5
    assert by_id["t.a"]["tests"] == [{"nodeid": "t.py::test_a", "outcome": "passed", "reason": None,
                                      "role": "deciding", "device": "cpu", "decides": "wrong"}]
    assert by_id["t.b"]["verdict"] == "untested"
    assert doc["summary"]["refuted"] == 1
    assert doc["summary"]["untested"] == 1
    assert doc["summary"]["decided"] == 1
    md = rendering.render_markdown(doc)
    assert "| `t.a` |" in md
    assert "the truth" in md
    assert "speedup = 2.5x" in md
    assert "deciding passed: test_a (decided by cpu)" in md


ENV = {"torch": "2.14.1", "machine": "m", "fingerprint": "f1"}


def previous(tests, env=ENV):
    return {"schema": report.SCHEMA, "environment": env, "runs": [{"args": ["-m", "cpu"]}], "tests": tests}


def test_merge_adds_a_run_to_the_report_of_the_same_environment():
    old = previous({"a.py::t1": record(["t.a"], "passed"), "a.py::t2": record(["t.a"], "skipped", reason="r")})
    tests, runs = report.merge(old, {"b.py::t3": record(["t.a"], "passed", {"gpus": 1})}, collected={"b.py::t3"})
    assert len(runs) == 1
    assert set(tests) == {"a.py::t1", "a.py::t2", "b.py::t3"}
    assert tests["b.py::t3"]["run"] == 1


@pytest.mark.parametrize(
    "old, new, kept",
    [
        pytest.param("passed", "skipped", "passed", id="a-skip-does-not-undo-a-run"),
        pytest.param("passed", "deselected", "passed", id="a-deselection-does-not-undo-a-run"),
        pytest.param("skipped", "deselected", "skipped", id="a-deselection-does-not-undo-a-skip"),
        pytest.param("passed", "failed", "failed", id="a-rerun-replaces-a-run"),
        pytest.param("failed", "passed", "passed", id="a-fixed-test-replaces-its-failure"),
        pytest.param("skipped", "passed", "passed", id="a-run-replaces-a-skip"),
    ],
)
def test_merge_keeps_the_strongest_evidence(old, new, kept):
    tests, _ = report.merge(previous({"a.py::t": record(["t.a"], old)}), {"a.py::t": record(["t.a"], new)},
                            collected={"a.py::t"})
    assert tests["a.py::t"]["outcome"] == kept


def test_merge_drops_tests_that_a_collected_file_no_longer_has():
    old = previous({"a.py::old_name": record(["t.a"], "passed"), "z.py::t": record(["t.a"], "passed")})
    tests, _ = report.merge(old, {"a.py::new_name": record(["t.a"], "passed")}, collected={"a.py::new_name"})
    assert set(tests) == {"a.py::new_name", "z.py::t"}


def test_merge_keeps_the_siblings_of_a_test_run_by_node_id():
    old = previous({"a.py::t1": record(["t.a"], "passed"), "a.py::t2": record(["t.a"], "passed")})
    tests, _ = report.merge(old, {"a.py::t1": record(["t.a"], "failed")}, collected={"a.py::t1"}, narrowed={"a.py"})
    assert set(tests) == {"a.py::t1", "a.py::t2"}
    assert tests["a.py::t1"]["outcome"] == "failed"


@pytest.mark.parametrize(
    "doc, why",
    [
        pytest.param(previous({"a.py::t": record(["t.a"], "passed")}, env={**ENV, "fingerprint": "other"}),
                     "belongs to another environment", id="other-environment"),
        pytest.param({"schema": 1, "claims": []}, "is a report of schema 1", id="old-schema"),
        pytest.param([1, 2], "is a report of schema 'list'", id="not-a-report"),
        pytest.param("garbage", "cannot be read as a claims report", id="unreadable"),
    ],
)
def test_a_report_this_run_cannot_add_to_is_named_and_never_merged(tmp_path, doc, why):
    path = tmp_path / "claims.json"
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    got, reason = storage.load_previous(path, ENV)
    assert got is None, reason
    assert why in reason, reason


@pytest.mark.parametrize("schema", report.MERGEABLE_SCHEMAS)
def test_a_report_of_a_mergeable_schema_is_added_to(tmp_path, schema):
    path = tmp_path / "claims.json"
    path.write_text(json.dumps({**previous({"a.py::t": record(["t.a"], "passed")}), "schema": schema}))
    got, reason = storage.load_previous(path, ENV)
    assert reason is None
    assert set(got["tests"]) == {"a.py::t"}


def test_aside_never_overwrites_an_earlier_one(tmp_path):
    now = datetime.datetime(2026, 11, 24, 10, 0, 0, tzinfo=datetime.timezone.utc)
    moved = []
    for text in ("first", "second"):
        (tmp_path / "claims.json").write_text(text)
        (tmp_path / "claims.md").write_text(text + " md")
        moved.append(storage.aside(tmp_path / "claims.json", now=now))
    assert [p.name for p in moved] == ["claims.2026-11-24T10-00-00.aside.json",
                                       "claims.2026-11-24T10-00-00-1.aside.json"]
    assert [p.read_text() for p in moved] == ["first", "second"]
    assert moved[1].with_suffix(".md").read_text() == "second md"
    assert not (tmp_path / "claims.json").exists()


def test_needs_reasons_list_everything_missing(monkeypatch):
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    monkeypatch.setenv("CUDA_LAUNCH_BLOCKING", "1")
    needs = {"gpus": 2, "min_torch": "99.0", "max_torch": "1.0", "libs": ["no_such_lib_xyz"], "network": True,
             "processes": False, "serial": True, "async_launch": True}
    first = missing({**needs, "gpus": 1}, found_gpus=0, torch_version="2.14.1")[0]
    assert first == "needs a CUDA GPU (found 0: no GPU)"
    reasons = missing(needs, found_gpus=1, torch_version="2.14.1")
    assert reasons == [
        "needs 2 CUDA GPUs (found 1)",
        "needs torch >= 99.0 (found 2.14.1)",
        "needs torch < 1.0 (found 2.14.1)",
        "needs optional library no_such_lib_xyz (not installed)",
        "needs network access (the spec runs offline)",
        "needs asynchronous kernel launches (CUDA_LAUNCH_BLOCKING=1 makes every launch wait)",
    ], "no serial hint beside another unmet need: a serial run would not help"
    assert missing({**needs, "gpus": 0, "min_torch": None, "max_torch": None, "libs": [], "network": False,
                    "async_launch": False},
                   found_gpus=0, torch_version="2.14.1") == ["needs a serial run (-p no:xdist), not an xdist worker"]
    monkeypatch.delenv("PYTEST_XDIST_WORKER")
    monkeypatch.setenv("CUDA_LAUNCH_BLOCKING", "0")
    met = {"gpus": 0, "min_torch": "1.0", "max_torch": None, "libs": ["json"], "network": False, "processes": True,
           "serial": True, "async_launch": True}
    assert missing(met, found_gpus=0, torch_version="2.14.1") == []


@pytest.mark.parametrize("visible, hidden", [
    (None, False), ("0", False), ("1,0", False), ("GPU-5ab1", False),
    ("", True), (" ", True), ("-1", True), ("-1,0", True), (",0", True),
])
def test_a_cuda_visible_devices_that_hides_every_gpu_is_told_apart(visible, hidden):
    # hidden GPUs are "no GPU" for the process (cuda_status), not "present but unusable"
    assert probe.hides_every_gpu(visible) is hidden, f"CUDA_VISIBLE_DEVICES={visible!r}: expected hidden={hidden}"


def test_one_figure_formatter_for_claims_md_and_the_page():
    from harness.matrix import texts

    ratio = {"name": "float64 / float32 time", "value": 1.912, "spread": 0.0512, "unit": "x"}
    assert rendering.figure_text(ratio) == "1.912x ± 0.051"
    assert rendering.figure_text({"value": 12.34, "unit": "ms"}) == "12.34 ms"
    assert texts.figure_text is rendering.figure_text
    assert rendering.figures_text({"figures": [ratio]}) == "float64 / float32 time = 1.912x ± 0.051"


def _module_name(path: pathlib.Path, root: pathlib.Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(root: pathlib.Path = ROOT, package: str = "harness") -> dict[str, set[str]]:
    """{module: the modules of `package` it imports}, read with ast from every import statement of
    every module: at module level, inside a function, under `if TYPE_CHECKING:` or `__main__`
    alike. `from p import name` is an edge to p.name where that is a module, else to p. An edge to
    one of a module's own packages is left out (Python runs the package's __init__ first)."""
    paths = {_module_name(p, root): p for p in sorted((root / package).rglob("*.py"))}

    def resolve(name: str) -> str | None:
        while name and name not in paths:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for here, path in paths.items():
        targets = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets |= {resolve(a.name) for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = here.split(".") if path.name == "__init__.py" else here.split(".")[:-1]
                    parts = parts[: len(parts) - (node.level - 1)]
                    base = ".".join(parts + ([node.module] if node.module else []))
                targets |= {resolve(f"{base}.{a.name}") for a in node.names}
        graph[here] = {t for t in targets if t and t != here and not here.startswith(t + ".")}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The circles of `graph` (its strongly connected components of more than one module)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def reachable(graph: dict[str, set[str]], module: str) -> set[str]:
    seen: set[str] = set()
    todo = [module]
    while todo:
        for w in graph.get(todo.pop(), ()):
            if w not in seen:
                seen.add(w)
                todo.append(w)
    return seen


def test_the_harness_import_graph_runs_one_way():
    """Every import of harness/ (function-level and type-only ones included) points one way: no
    circle (red where provenance's file tools imported storage, rendering and the matrix from inside
    functions while those imported provenance, or where evidence imported its outcome words from
    verdicts, which imported provenance), and the floor, evidence.py, imports nothing of harness."""
    graph = import_graph()
    assert cycles(graph) == [], f"harness/ imports in a circle: {cycles(graph)}"
    assert graph["harness.evidence"] == set(), f"harness/evidence.py imports {sorted(graph['harness.evidence'])}"


def test_the_import_reader_sees_deferred_and_type_only_imports(tmp_path):
    """The reader itself: an import inside a function, one under TYPE_CHECKING and a relative one
    each make an edge, and a circle through them is found."""
    pkg = tmp_path / "harness"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("from . import c  # noqa\n")
    (pkg / "a.py").write_text("def f():\n    from harness import b\n    return b\n")
    (pkg / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import harness.sub.c\n")
    (pkg / "sub" / "c.py").write_text("from ..a import f\n")
    graph = import_graph(tmp_path)
    assert graph["harness.a"] == {"harness.b"}
    assert graph["harness.b"] == {"harness.sub.c"}
    assert graph["harness.sub.c"] == {"harness.a"}
    assert graph["harness.sub"] == {"harness.sub.c"}
    assert cycles(graph) == [["harness.a", "harness.b", "harness.sub.c"]]


@pytest.mark.parametrize("module, absent", [
    ("harness.verdicts", ["torch", "harness.inventory", "harness.report"]),
    ("harness.inventory", ["torch", "harness.report"]),
    ("fixtures.needs", ["torch", "harness.report"]),
    ("harness.probe", ["torch", "harness.report"]),
    ("fixtures.gpu", ["torch", "fixtures.procs"]),
    ("harness.report", ["torch", "harness.claims_plugin", "harness.session", "harness.matrix", "harness.storage",
                        "harness.rendering"]),
    ("harness.evidence", ["torch", "harness.inventory", "harness.report", "harness.storage"]),
    ("harness.storage", ["torch", "harness.report", "harness.rendering", "harness.session"]),
    ("harness.rendering", ["torch", "harness.report", "harness.storage", "harness.session"]),
])
def test_the_machinery_imports_one_way(module, absent):
    """inventory -> verdicts -> evidence -> report, storage, rendering -> session -> plugin: a module
    never imports one downstream of it (building, storage and rendering not each other), and
    the verdict is decided without torch."""
    code = f"import sys, {module}; print(sorted(m for m in {absent!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    assert out.strip() == "[]", f"importing {module} imported {out.strip()}; expected none of {absent}"
    if module.startswith("harness."):  # and not later either: every import read, function-level ones too
        later = sorted(reachable(import_graph(), module) & set(absent))
        assert later == [], f"{module} imports {later}, directly or through other modules, in some function"


def test_the_harness_imports_nothing_of_fixtures():
    """harness/ (the machinery) never imports fixtures/ (what test bodies use): the arrow points
    from the tests' helpers to the machinery only. Read from the sources, and checked by importing
    every harness module in a fresh interpreter."""
    sources = sorted((ROOT / "harness").rglob("*.py"))
    found = [f"{p.relative_to(ROOT)}:{n}" for p in sources
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if re.match(r"\s*(from|import)\s+fixtures\b", line)]
    assert found == [], f"harness imports fixtures at {found}"
    modules = [".".join(p.relative_to(ROOT).with_suffix("").parts) for p in sources if p.name != "__main__.py"]
    code = f"import importlib, sys; [importlib.import_module(m) for m in {modules!r}]; " \
           "print(sorted(m for m in sys.modules if m == 'fixtures' or m.startswith('fixtures.')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    assert out.strip() == "[]", f"importing the harness loaded {out.strip()}"


def test_the_verdict_words_are_spelt_in_verdicts_only():
    """No other machinery module (the matrix package included) spells a tuple or set of the
    verdict words."""
    word = r"""["'](holds|partly|refuted|inconclusive|not-run|failed|untested)["']"""
    spelt = re.compile(rf"[(\[{{]\s*{word}\s*,\s*{word}")  # a literal that opens with two verdict words
    found = [f"{p.name}:{n}" for folder in ("harness", "fixtures") for p in sorted((ROOT / folder).rglob("*.py"))
             if p.name != "verdicts.py"
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if spelt.search(line)]
    assert found == [], f"verdict words spelt outside harness/verdicts.py at {found}; expected none"


def test_the_environment_names_torchvision_as_importing_it_would_without_importing_it():
    """The report's environment names torchvision's version (with its local label, 0.29.1+cu130,
    which importlib.metadata lacks) without importing torchvision, which the serial benchmark step
    does not otherwise need. Red in a world where probe reads the distribution's metadata, or
    imports torchvision to name it."""
    import torchvision

    code = ("import sys; from harness.probe import torchvision_version; v = torchvision_version(); "
            "print(repr((v, 'torchvision' in sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    named, imported = ast.literal_eval(out.strip())
    actual = str(torchvision.__version__)
    assert (named, imported) == (actual, False), (
        f"probe named torchvision {named!r} (imported it: {imported}); torchvision.__version__ is {actual!r}")
