"""The claims x torch-version matrix (harness/matrix/), built from evidence in a miniature checkout.

Each test writes a small inventory (tests/claims/*.toml) and a test file into tmp_path, and claims
reports made by the real builder (report.build, with the provenance stamps the plugin records)
for several torch releases; the matrix then recomputes every cell from those reports' evidence
with the inventory as it is now. Covered: columns and their order, version ranges and changes,
the merge of several reports of one column test by test, the optional-library reports joining
the pinned CPU column, GPU columns, a corrected standing shown with no rerun, stale evidence, the
committed per-column evidence (small, atomic, never fewer columns, --only), incomplete and
unreadable reports, both renderings. The page in a real browser: test_matrix_browser.py.
"""
from __future__ import annotations

import html
import json
import re

import pytest

from harness import inventory, matrix, note_order, probe, provenance, rendering, report, storage, verdicts
from harness.matrix import model, texts
from spec_runner import ROOT
from tox_reader import tox_torch_releases

TITLES = {"optim": "Optimizers & zero_grad", "serial": "Serialization", "cuda": "CUDA", "lib": "Libraries"}
NEEDS = {"cpu": ["cpu"], "gpu": ["gpu"], "external-lib": ["external-lib:einops"], "benchmark-cpu": ["benchmark-cpu"]}
H100 = "NVIDIA H100 80GB HBM3"


def _toml(value) -> str:
    return json.dumps(value, ensure_ascii=False)  # JSON strings and lists of strings are TOML too


def slug(cid: str) -> str:
    return re.sub(r"\W", "_", cid)


class Project:
    """A checkout in miniature: tests/claims/<topic>.toml and tests/test_x.py (a function per claim)."""

    def __init__(self, root):
        self.root = root
        (root / "tests" / "claims").mkdir(parents=True)
        self.claims: dict[str, dict] = {}
        self.bodies: dict[str, str] = {}
        self.clock = 0

    def claim(self, cid, standing="holds", correction=None, decided_by="cpu", text=None, source=None):
        """standing: "holds", "refuted" (with correction) or [(verdict, since, before, correction)]."""
        self.claims[cid] = {"standing": standing, "correction": correction or ("the truth" if standing == "refuted"
                                                                               else None),
                            "decided_by": decided_by, "text": text or f"text of {cid}",
                            "source": source or [f"001_note.txt \u203a {cid}"]}
        self.bodies.setdefault(cid, "assert True")
        self.write()

    def write(self):
        by_topic: dict[str, list[str]] = {}
        for cid, c in self.claims.items():
            topic = cid.split(".", 1)[0]
            lines = by_topic.setdefault(topic, [f"topic = {_toml(topic)}",
                                                f"title = {_toml(TITLES.get(topic, topic))}"])
            lines += ["", "[[claim]]", f"id = {_toml(cid)}", f"source = {_toml(c['source'])}",
                      f"claim = {_toml(c['text'])}", f"checklist_needs = {_toml(NEEDS[c['decided_by']])}",
                      f"decided_by = {_toml(c['decided_by'])}"]
            if isinstance(c["standing"], str):
                lines.append(f"standing = {_toml(c['standing'])}")
                if c["correction"]:
                    lines.append(f"correction = {_toml(c['correction'])}")
            else:
                for verdict, since, before, corr in c["standing"]:
                    lines += ["[[claim.standing]]", f"verdict = {_toml(verdict)}"]
                    lines += [f"{k} = {_toml(v)}"
                              for k, v in (("since", since), ("before", before), ("correction", corr)) if v]
        for path in (self.root / "tests" / "claims").glob("*.toml"):
            path.unlink()
        for topic, lines in by_topic.items():
            (self.root / "tests" / "claims" / f"{topic}.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
        (self.root / "tests" / "test_x.py").write_text("".join(
            f"{self.role_marker(cid)}def test_{slug(cid)}():\n    {body}\n\n\n" for cid, body in self.bodies.items()),
            encoding="utf-8")

    def role_marker(self, cid) -> str:
        """A claim that stands refuted in some range: its test asserts what each range states (a test
        that declares no role only confirms, harness/roles.py)."""
        standing = self.claims[cid]["standing"]
        verdicts_ = {standing} if isinstance(standing, str) else {v for v, *_ in standing}
        return f'@pytest.mark.claim({cid!r}, decides="by-version")\n' if "refuted" in verdicts_ else ""

    @property
    def inv(self):
        return inventory.load(self.root / "tests" / "claims")

    def report(self, name, torch, outcomes, *, device=None, machine="m1", numpy="1.26.4", args=("-m", "cpu"),
               complete=None):
        """A report written by the real builder: outcomes maps a claim ID to an outcome ("passed",
        "failed", "skipped", ...) or a dict of record fields (outcome, reason, kind, figures,
        nodeid); each run later than the last one this project wrote."""
        inv = self.inv
        self.clock += 1
        tests = {}
        for cid, spec in outcomes.items():
            rec = {"outcome": spec} if isinstance(spec, str) else dict(spec)
            nodeid = rec.pop("nodeid", f"tests/test_x.py::test_{slug(cid)}")
            rec = {"claims": [cid], "reason": None, "figures": [], "inconclusive": None,
                   "kind": {"gpus": 1 if device else 0}, "run": 0, **rec}
            if rec["outcome"] in verdicts.EXECUTED:
                rec.update(provenance.stamp(self.root, inv, nodeid, [cid]))
            tests[nodeid] = rec
        env = {"torch": torch, "torchvision": "0.0.0", "numpy": numpy, "python": "3.11.7", "machine": machine,
               "gpu_count": int(bool(device)), "gpu_names": [device] if device else [], "device": device or "cpu",
               "cuda_status": "1 GPU(s)" if device else "no GPU"}
        env["fingerprint"] = probe.fingerprint(env)
        run = {"args": list(args), "markexpr": "cpu", "claims": [],
               "finished": f"2026-01-01T00:00:{self.clock:02d}+00:00",
               "executed": sum(t["outcome"] in verdicts.EXECUTED for t in tests.values()), "skipped": 0}
        if complete is not None:
            run.update(complete=complete, exitstatus=0 if complete else 2)
        path = self.root / "reports" / name
        doc = report.build(inv, tests=tests, environment=env, runs=[run], rootdir=self.root)
        storage.write(doc, path, rendering.render_markdown(doc))
        return path

    def build(self, *paths, evidence=True, **kw):
        out = self.root / "docs" / "matrix"
        m = matrix.build(list(paths), out, evidence_dir=out / "reports" if evidence else None,
                         inv=self.inv, rootdir=self.root, **kw)
        return m, (out / "claims-matrix.md").read_text(encoding="utf-8"), \
            (out / "claims-matrix.html").read_text(encoding="utf-8")

    def main(self, *args):
        return matrix.main([*map(str, args), "--out", str(self.root / "docs" / "matrix"),
                            "--evidence", str(self.root / "docs" / "matrix" / "reports")],
                           inv=self.inv, rootdir=self.root)


@pytest.fixture
def proj(tmp_path, monkeypatch):
    """A miniature checkout, and the working folder: the builder's default local reports
    (reports/torch-*.json) are the miniature's, never those a tox run left in this checkout."""
    project = Project(tmp_path / "proj")
    monkeypatch.chdir(project.root)
    return project


def row(m, cid):
    return next(r for r in m.rows if r.id == cid)


def cells(m, cid):
    return {c.label: cell.verdict for c, cell in zip(m.columns, row(m, cid).cells, strict=True)}


def changes(m, cid):
    return [t.describe() for t in row(m, cid).transitions]


def detail(page, cid):
    return re.search(rf'<template id="detail-{re.escape(cid)}">(.*?)</template>', page, re.S).group(1)


# --- columns, ranges, changes ------------------------------------------------------------------


def test_columns_are_ordered_by_version_not_by_file_name(proj):
    proj.claim("optim.a")
    paths = [proj.report("torch-2.10.0.json", "2.10.0+cu128", {"optim.a": "passed"}),
             proj.report("a-torch-2.9.1.json", "2.9.1", {"optim.a": "passed"}),
             proj.report("z-torch-1.13.1.json", "1.13.1+cu117", {"optim.a": "passed"})]
    m, _, _ = proj.build(*paths, evidence=False)
    assert [c.release for c in m.columns] == ["1.13.1", "2.9.1", "2.10.0"]


def test_a_change_is_a_range_from_the_last_old_to_the_first_new_version(proj):
    proj.claim("optim.zero", [("holds", None, "2.0", None), ("refuted", "2.0", None, "grads are None")])
    proj.claim("optim.same")
    paths = [proj.report(f"r{v}.json", v, {"optim.zero": "passed", "optim.same": "passed"})
             for v in ("1.13.1", "2.0.1", "2.3.1")]
    m, _, _ = proj.build(*paths, evidence=False)
    assert cells(m, "optim.zero") == {"1.13.1": "holds", "2.0.1": "refuted", "2.3.1": "refuted"}
    assert changes(m, "optim.zero") == ["holds \u2192 refuted: changed between 1.13.1 and 2.0.1"]
    assert changes(m, "optim.same") == []


def test_versions_that_measured_nothing_widen_the_range(proj):
    # not-run (a skip) and untested (no evidence) say nothing about the behaviour: the range spans them
    proj.claim("serial.load", [("holds", None, "2.6", None), ("refuted", "2.6", None, "it needs weights_only")])
    proj.claim("serial.other")
    skip = {"outcome": "skipped", "reason": "needs torch >= 2.1 (found 2.0.1)"}
    paths = [proj.report("r1.json", "1.13.1", {"serial.load": "passed"}),
             proj.report("r2.json", "2.0.1", {"serial.load": skip}),
             proj.report("r3.json", "2.3.1", {"serial.other": "passed"}),
             proj.report("r4.json", "2.6.0", {"serial.load": "passed"}),
             proj.report("r5.json", "2.14.1", {"serial.load": "passed"})]
    m, _, _ = proj.build(*paths, evidence=False)
    assert cells(m, "serial.load") == {"1.13.1": "holds", "2.0.1": "not-run", "2.3.1": "untested",
                                       "2.6.0": "refuted", "2.14.1": "refuted"}
    assert row(m, "serial.load").cells[1].entry["reason"] == "needs torch >= 2.1 (found 2.0.1)"
    assert changes(m, "serial.load") == ["holds \u2192 refuted: changed between 1.13.1 and 2.6.0"]


def test_a_change_back_and_a_changed_correction_are_transitions_too(proj):
    proj.claim("optim.x", [("refuted", None, "2.0", "old truth"), ("refuted", "2.0", "2.3", "new truth"),
                           ("holds", "2.3", "2.6", None), ("refuted", "2.6", None, "new truth")])
    paths = [proj.report(f"r{v}.json", v, {"optim.x": "passed"}) for v in ("1.13.1", "2.0.1", "2.3.1", "2.6.0")]
    m, _, _ = proj.build(*paths, evidence=False)
    assert changes(m, "optim.x") == [
        "refuted \u2192 refuted (the correction changed): changed between 1.13.1 and 2.0.1",
        "refuted \u2192 holds: changed between 2.0.1 and 2.3.1",
        "holds \u2192 refuted: changed between 2.3.1 and 2.6.0",
    ]


def test_failed_entries_are_shown_and_listed_with_their_reason(proj):
    proj.claim("optim.zero")
    reason = "call: AssertionError: grad is tensor([0.]), expected None"
    paths = [proj.report("r1.json", "1.13.1", {"optim.zero": {"outcome": "failed", "reason": reason}}),
             proj.report("r2.json", "2.0.1", {"optim.zero": "passed"})]
    m, md, page = proj.build(*paths, evidence=False)
    assert cells(m, "optim.zero") == {"1.13.1": "failed", "2.0.1": "holds"}
    assert changes(m, "optim.zero") == ["failed \u2192 holds: changed between 1.13.1 and 2.0.1"]
    failures = md.split("## Failures to look at", 1)
    assert len(failures) == 2, "the Markdown lists no failures"
    assert "`optim.zero` | 1.13.1 |" in failures[1]
    assert "expected None" in failures[1]
    assert re.search(r'class="v v-failed" data-claim="optim.zero" title="torch 1\.13\.1: failed \| failure: '
                     r'test_optim_zero: call: AssertionError', page)


def test_a_known_failure_explains_its_cell_and_an_entry_that_matches_nothing_warns(proj, capsys):
    proj.claim("optim.zero")
    paths = [proj.report("r1.json", "1.13.1", {"optim.zero": {"outcome": "failed", "reason": "call: slower"}}),
             proj.report("r2.json", "2.0.1", {"optim.zero": "passed"})]
    known = proj.root / "known-failures.toml"
    known.write_text('[[failure]]\nclaim = "optim.zero"\nrelease = "1.13.1"\nnote = "slow float32 GEMM on this CPU"\n'
                     '[[failure]]\nclaim = "optim.zero"\nrelease = "2.0.1"\nnote = "was failing once"\n')
    m, md, page = proj.build(*paths, evidence=False, known=known)
    assert [c.known for c in row(m, "optim.zero").cells] == ["slow float32 GEMM on this CPU", ""]
    assert 'title="torch 1.13.1: failed | known failure: slow float32 GEMM on this CPU | failure: ' in page
    assert "known failure: slow float32 GEMM on this CPU" in md
    err = capsys.readouterr().err
    assert "known failure optim.zero on torch 2.0.1: no failed cell matches it" in err, err
    assert "1.13.1: no failed cell" not in err


def test_the_committed_known_failures_name_real_claims_and_releases():
    entries = texts.load_known(ROOT / "docs" / "known-failures.toml")
    inv = inventory.load()
    releases = set(tox_torch_releases().values())
    assert entries, "docs/known-failures.toml has no entry"
    for e in entries:
        assert e["claim"] in inv.claims, e
        assert e["release"] in releases, (e["release"], sorted(releases))


def test_the_note_order_covers_every_source_of_the_inventory():
    """The page's "By note" order reads harness/note_order.json (python -m harness.note_order):
    every claim's source has its place there, in its own note."""
    order = note_order.load()
    missing = sorted({s for c in inventory.load().claims.values() for s in c.source if s not in order})
    assert missing == [], f"rerun python -m harness.note_order: no place for {missing}"
    for source, (note, at) in order.items():
        assert source.startswith(note), (source, note, at)
        assert at >= 0, (source, note, at)


def test_consecutive_versions_with_the_same_verdict_collapse_into_one_range_cell(proj):
    proj.claim("optim.a", [("holds", None, "2.2", None), ("refuted", "2.2", "2.3", "a truth"),
                           ("refuted", "2.3", "2.4", "another truth"), ("refuted", "2.4", None, "a truth")])
    proj.claim("optim.b")
    spec = [("1.13.1", "passed"), ("2.0.1", "passed"), ("2.1.2", "skipped"), ("2.2.2", "passed"),
            ("2.3.1", "passed"), ("2.4.1", "passed")]
    paths = [proj.report(f"torch-{v}.json", v, {"optim.a": o, "optim.b": "passed"}) for v, o in spec]
    m, _, page = proj.build(*paths, evidence=False)
    segs = [(s.first, s.last, s.verdict, s.span) for s in row(m, "optim.a").segments]
    assert segs == [("1.13.1", "2.0.1", "holds", 2), ("2.1.2", "2.1.2", "not-run", 1),
                    ("2.2.2", "2.2.2", "refuted", 1), ("2.3.1", "2.3.1", "refuted", 1),
                    ("2.4.1", "2.4.1", "refuted", 1)], "a changed correction starts a range"
    assert [(s.first, s.last, s.span) for s in row(m, "optim.b").segments] == [("1.13.1", "2.4.1", 6)]
    assert ('<td class="seg v-holds" colspan="6" data-claim="optim.b" data-verdict="holds" data-device="cpu" '
            'data-first="1.13.1" data-last="2.4.1"') in page


# --- one column from several reports -----------------------------------------------------------


def test_the_reports_of_one_column_merge_test_by_test(proj):
    for cid in ("optim.a", "optim.b", "optim.c", "optim.d"):
        proj.claim(cid)
    older = proj.report("torch-2.3.1.json", "2.3.1+cu121", {
        "optim.a": "passed", "optim.b": "passed", "optim.c": {"outcome": "skipped", "reason": "needs x"},
        "optim.d": {"outcome": "failed", "reason": "boom"}}, machine="m1")
    newer = proj.report("torch-2.3.1-cpu.json", "2.3.1+cpu", {
        "optim.a": {"outcome": "failed", "reason": "AssertionError: changed"},
        "optim.b": {"outcome": "skipped", "reason": "needs y"}, "optim.c": "passed"}, machine="m2")
    again = proj.report("torch-2.3.1-again.json", "2.3.1+cpu", {"optim.d": "passed"}, machine="m2")
    m, md, _ = proj.build(older, newer, again, evidence=False)
    assert [c.release for c in m.columns] == ["2.3.1"], "builds of one release share a column"
    assert cells(m, "optim.a") == {"2.3.1": "failed"}, "a later executed result replaces an earlier one"
    assert cells(m, "optim.b") == {"2.3.1": "holds"}, "a skip never undoes an executed result"
    assert cells(m, "optim.c") == {"2.3.1": "holds"}, "an executed result replaces a skip"
    assert cells(m, "optim.d") == {"2.3.1": "holds"}
    (d_a, d_d) = m.columns[0].evidence.disagreements
    assert (d_a["nodeid"], d_a["kept"]["outcome"], d_a["replaced"]["outcome"]) == (
        "tests/test_x.py::test_optim_a", "failed", "passed")
    assert (d_d["kept"]["outcome"], d_d["replaced"]["outcome"]) == ("passed", "failed")
    details = matrix.column_details(m.columns[0])
    assert "test_optim_a: failed (torch 2.3.1+cpu on m2" in details["disagreements"]
    assert "kept over passed (torch 2.3.1+cu121 on m1" in details["disagreements"]
    assert "2.3.1+cu121, 2.3.1+cpu" in md, "the Versions table names both builds"


def test_the_optional_library_reports_join_the_pinned_cpu_column(proj):
    proj.claim("lib.einops-rearrange", decided_by="external-lib")
    proj.claim("optim.a")
    libs = {"kind": {"gpus": 0, "libs": ["einops"]}}
    torch = proj.report("torch-2.14.1.json", "2.14.1+cu130", {
        "optim.a": "passed",
        "lib.einops-rearrange": {**libs, "outcome": "skipped", "reason": "einops is not installed"}})
    lib = proj.report("lib.json", "2.14.1+cu130", {"lib.einops-rearrange": {**libs, "outcome": "passed"}},
                      numpy="2.2.6", args=("tests/test_x.py", "-m", "cpu"))
    m, _, _ = proj.build(torch, lib, evidence=False)
    assert [c.label for c in m.columns] == ["2.14.1"]
    assert cells(m, "lib.einops-rearrange") == {"2.14.1": "holds"}, "decided where its library ran"
    assert cells(m, "optim.a") == {"2.14.1": "holds"}
    assert m.columns[0].evidence.disagreements == []
    assert m.columns[0].partial is None, "a report that adds up with a whole run is not partial"
    assert matrix.column_details(m.columns[0])["numpy"] == "1.26.4, 2.2.6"


def test_a_gpu_run_is_its_own_column_and_a_cpu_column_never_decides_a_gpu_claim(proj):
    proj.claim("cuda.x", decided_by="gpu")
    proj.claim("optim.a")
    cpu_case = {"nodeid": "tests/test_x.py::test_cuda_x[cpu]", "outcome": "passed", "kind": {"gpus": 0}}
    cuda_skip = {"nodeid": "tests/test_x.py::test_cuda_x[cuda]", "outcome": "skipped",
                 "reason": "needs a CUDA GPU (found 0)", "kind": {"gpus": 1}}
    cpu = proj.report("torch-2.6.0.json", "2.6.0", {"optim.a": "passed", "cuda.x": cpu_case})
    doc = json.loads(cpu.read_text())  # the CUDA case of the same test, skipped
    doc["tests"][cuda_skip.pop("nodeid")] = {**doc["tests"]["tests/test_x.py::test_cuda_x[cpu]"], **cuda_skip}
    cpu.write_text(json.dumps(doc))
    gpu = proj.report("torch-2.6.0-gpu.json", "2.6.0+cu124", {
        "optim.a": "passed", "cuda.x": {"nodeid": "tests/test_x.py::test_cuda_x[cuda]", "outcome": "passed"}},
        device=H100)
    old = proj.report("torch-2.0.1.json", "2.0.1", {"cuda.x": cpu_case})
    m, md, page = proj.build(gpu, cpu, old, evidence=False)
    assert [c.label for c in m.columns] == ["2.0.1", "2.6.0", f"2.6.0 \u00b7 {H100}"]
    assert list(cells(m, "cuda.x").values()) == ["not-run", "not-run", "holds"]
    _, cpu_cell, _ = row(m, "cuda.x").cells
    assert cpu_cell.entry["reason"] == "needs a CUDA GPU (found 0)"
    assert cpu_cell.supporting == "supporting evidence ran: test_cuda_x[cpu] passed"
    assert "no test that can decide it (gpu: needs a CUDA GPU)" in row(m, "cuda.x").cells[0].entry["reason"]
    assert list(cells(m, "optim.a").values()) == ["untested", "holds", "not-run"], \
        "a CPU-decided claim is not decided by a GPU run's CUDA test"
    assert changes(m, "cuda.x") == []
    assert f"| 2.0.1 | 2.6.0 | 2.6.0 \u00b7 {H100} |" in md
    assert f'<th class="lane" colspan="1" title="{H100}" scope="colgroup">{H100}</th>' in page
    assert "supporting evidence ran: test_cuda_x[cpu] passed" in page


# --- the inventory as it is now: corrections without a rerun, stale evidence -----------------------


def test_an_edited_correction_shows_after_a_rebuild_with_no_test_rerun(proj):
    proj.claim("optim.zero", "refuted", correction="the old wording of the truth")
    proj.claim("optim.same")
    local = proj.report("torch-2.6.0.json", "2.6.0", {"optim.zero": "passed", "optim.same": "passed"})
    _, md, page = proj.build(local)
    assert "the old wording of the truth" in md
    assert "the old wording of the truth" in page
    evidence = proj.root / "docs" / "matrix" / "reports" / "2.6.0.json"
    before = evidence.read_bytes()
    local.unlink()  # nothing reruns: the committed evidence is all there is
    proj.claims["optim.zero"]["correction"] = "the new wording of the truth"
    proj.write()
    m, md, page = proj.build()
    assert cells(m, "optim.zero") == {"2.6.0": "refuted"}
    assert "the new wording of the truth" in md
    assert "the new wording of the truth" in page
    assert "the old wording" not in md
    assert "the old wording" not in page
    assert evidence.read_bytes() == before, "the evidence did not change"


@pytest.mark.parametrize("edit", ["flip-the-standing", "reword-the-claim", "edit-the-test"])
def test_evidence_from_an_older_test_or_claim_decides_nothing(proj, edit):
    proj.claim("optim.zero", "refuted")
    proj.claim("optim.same")
    proj.build(proj.report("torch-2.6.0.json", "2.6.0", {"optim.zero": "passed", "optim.same": "passed"}))
    if edit == "flip-the-standing":
        proj.claims["optim.zero"].update(standing="holds", correction=None)
    elif edit == "reword-the-claim":
        proj.claims["optim.zero"]["text"] = "other words"
    else:
        proj.bodies["optim.zero"] = "assert 1 + 1 == 2"
    proj.write()
    m, _, page = proj.build()
    cell = row(m, "optim.zero").cells[0]
    assert cell.verdict == "not-run"
    assert cell.entry["reason"] == f"{provenance.STALE_REASON} (test_optim_zero)"
    assert ('title="torch 2.6.0: not-run | not run: evidence from an older version of the test or claim: rerun '
            '(test_optim_zero)') in page
    assert cells(m, "optim.same") == {"2.6.0": "holds"}, "other claims' evidence still decides"
    assert matrix.column_details(m.columns[0])["evidence"] == "2 tests, 1 stale (rerun them)"


# --- the committed evidence -----------------------------------------------------------------------


def test_each_columns_evidence_is_committed_small_and_rebuilds_the_same_page(proj):
    proj.claim("optim.a", "refuted", correction="a correction only the inventory holds")
    proj.claim("optim.b", text="a claim text only the inventory holds")
    paths = [proj.report("torch-2.0.1.json", "2.0.1", {"optim.a": "passed", "optim.b": "passed"}),
             proj.report("torch-2.6.0.json", "2.6.0", {"optim.a": "passed", "optim.b": "skipped"}),
             proj.report("torch-2.6.0-gpu.json", "2.6.0", {"optim.a": "passed"}, device=H100)]
    _, md, page = proj.build(*paths)
    folder = proj.root / "docs" / "matrix" / "reports"
    assert sorted(p.name for p in folder.iterdir()) == ["2.0.1.json", "2.6.0-nvidia-h100-80gb-hbm3.json", "2.6.0.json"]
    for path in folder.iterdir():
        text = path.read_text(encoding="utf-8")
        doc = json.loads(text)
        assert {"claims", "titles", "summary", "generated"}.isdisjoint(doc), path.name
        assert {"schema", "environment", "runs", "tests"} <= set(doc)
        assert "only the inventory holds" not in text, "no inventory text is copied"
        assert all(set(t) >= {"claims", "outcome"} and None not in t.values() for t in doc["tests"].values())
    for p in paths:
        p.unlink()
    stamps = {p: p.stat().st_mtime_ns for p in folder.iterdir()}
    m, md2, page2 = proj.build()
    assert [c.label for c in m.columns] == ["2.0.1", "2.6.0", f"2.6.0 \u00b7 {H100}"]
    # the inputs differ (three local reports in the first build, three committed files in this one); the bytes do not
    assert md2 == md, "the committed evidence alone rebuilds the same Markdown, byte for byte"
    assert page2 == page, "the committed evidence alone rebuilds the same page, byte for byte"
    assert {p: p.stat().st_mtime_ns for p in folder.iterdir()} == stamps, "unchanged evidence is not rewritten"
    assert not list(folder.glob(".*")), "no temporary files left"


def test_a_gpu_column_of_an_older_release_sits_in_its_own_lane_after_the_cpu_columns(proj):
    """The range view's lane headers (CPU, each GPU model) span the version headers of their own
    columns: a GPU run of 2.6.0 beside CPU runs up to 2.7.1 comes after every CPU column, in the
    version row, the lanes, the cells and the grid alike (red in a world that sorts by release first:
    the GPU's 2.6.0 sits between the CPU's 2.6.0 and 2.7.1 while its lane header stands over 2.7.1)."""
    proj.claim("optim.a")
    paths = [proj.report(f"torch-{v}.json", v, {"optim.a": "passed"}) for v in ("2.0.1", "2.6.0", "2.7.1")]
    paths.append(proj.report("torch-2.6.0-gpu.json", "2.6.0", {"optim.a": "passed"}, device=H100))
    m, _, page = proj.build(*paths)
    assert [c.label for c in m.columns] == ["2.0.1", "2.6.0", "2.7.1", f"2.6.0 \u00b7 {H100}"]
    assert m.lanes() == [("cpu", [0, 1, 2]), (H100, [3])]
    ranges = page.split('id="ranges"', 1)[1].split("</thead>", 1)[0]
    assert re.findall(r'<th class="lane" colspan="(\d+)"', ranges) == ["3", "1"], ranges
    assert re.findall(r'<th class="ver[^"]*"[^>]*>([^<]+)<', ranges) == ["2.0.1", "2.6.0", "2.7.1", "2.6.0"], ranges
    cells = re.findall(r'<td class="seg[^"]*" colspan="(\d+)"[^>]*data-device="([^"]+)"', page)
    assert cells == [("3", "cpu"), ("1", H100)], cells


def test_a_build_never_drops_a_committed_column_unless_asked(proj, capsys):
    proj.claim("optim.a")
    for v in ("2.0.1", "2.6.0"):
        proj.report(f"torch-{v}.json", v, {"optim.a": "passed"})
    reports = proj.root / "reports"
    assert proj.main(reports / "torch-*.json") == 0
    out = capsys.readouterr().out
    assert "  2.0.1: 1 holds" in out
    assert f"from local {reports / 'torch-2.0.1.json'} (1 test) -> " \
           f"{proj.root / 'docs' / 'matrix' / 'reports' / '2.0.1.json'} (updated)" in out
    # a newer local report of one column: its evidence joins the committed evidence of the others
    proj.report("torch-2.6.0.json", "2.6.0", {"optim.a": {"outcome": "failed", "reason": "boom"}})
    (reports / "torch-2.0.1.json").unlink()
    assert proj.main(reports / "torch-2.6.0.json") == 0
    out = capsys.readouterr().out
    assert "matrix: 1 claims x 2 columns" in out
    assert f"from committed {proj.root / 'docs' / 'matrix' / 'reports' / '2.0.1.json'} (1 test) -> " in out
    assert "(unchanged)" in out
    assert (f"from committed {proj.root / 'docs' / 'matrix' / 'reports' / '2.6.0.json'} (all replaced) + "
            f"local {reports / 'torch-2.6.0.json'} (1 test)") in out
    # the evidence of a column is gone: the build refuses and writes nothing
    page = (proj.root / "docs" / "matrix" / "claims-matrix.html").read_bytes()
    (proj.root / "docs" / "matrix" / "reports" / "2.0.1.json").unlink()
    assert proj.main(reports / "torch-2.6.0.json") == 2
    err = capsys.readouterr().err
    assert "has the column(s) 2.0.1, and no evidence for them is here" in err
    assert "--only" in err
    assert (proj.root / "docs" / "matrix" / "claims-matrix.html").read_bytes() == page
    # ... unless asked for fewer columns
    assert proj.main(reports / "torch-2.6.0.json", "--only", "2.6.*") == 0
    assert "matrix: 1 claims x 1 columns (--only 2.6.*)" in capsys.readouterr().out
    assert "<!-- columns: 2.6.0 -->" in (proj.root / "docs" / "matrix" / "claims-matrix.md").read_text()


def test_a_page_built_before_the_columns_comment_is_guarded_too(proj, capsys):
    proj.claim("optim.a")
    local = proj.report("torch-2.6.0.json", "2.6.0", {"optim.a": "passed"})
    md = proj.root / "docs" / "matrix" / "claims-matrix.md"
    md.parent.mkdir(parents=True)
    md.write_text("Built 2026-01-01 from 16 claims report(s) over torch 1.13.1, 2.6.0. The interactive page ...")
    assert proj.main(local) == 2
    assert "has the column(s) 1.13.1, and no evidence" in capsys.readouterr().err
    assert not (proj.root / "docs" / "matrix" / "reports").exists()


def test_schema_3_reports_are_read_and_their_evidence_passes_through(proj):
    proj.claim("optim.a")
    path = proj.report("torch-2.6.0.json", "2.6.0", {"optim.a": "passed"})
    doc = json.loads(path.read_text())
    doc["schema"] = 3
    doc["tests"]["tests/test_x.py::test_optim_a"]["halves"] = {"first": "passed"}  # a field schema 3 adds
    path.write_text(json.dumps(doc))
    m, _, _ = proj.build(path)
    assert cells(m, "optim.a") == {"2.6.0": "holds"}
    committed = json.loads((proj.root / "docs" / "matrix" / "reports" / "2.6.0.json").read_text())
    assert committed["schema"] == 3
    assert committed["tests"]["tests/test_x.py::test_optim_a"]["halves"] == {"first": "passed"}


def test_the_evidence_of_a_deleted_test_file_is_dropped_and_said(proj, capsys):
    proj.claim("optim.a")
    path = proj.report("torch-2.6.0.json", "2.6.0", {"optim.a": "passed"})
    doc = json.loads(path.read_text())
    doc["tests"]["tests/test_gone.py::test_a"] = doc["tests"]["tests/test_x.py::test_optim_a"]
    path.write_text(json.dumps(doc))
    assert proj.main(path) == 0
    err = capsys.readouterr().err
    assert "2.6.0: the evidence of 1 test(s) whose file or function no longer exists is dropped" in err
    assert "python -m harness.evidence_files rename" in err, "the note names the remedy for a renamed test"
    committed = json.loads((proj.root / "docs" / "matrix" / "reports" / "2.6.0.json").read_text())
    assert list(committed["tests"]) == ["tests/test_x.py::test_optim_a"]


def test_a_renamed_test_leaves_the_matrix_its_evidence_and_its_verdict(proj, capsys):
    """A test renamed since its column was measured decides nothing and no rendering lists it (red
    where only a deleted file drops evidence: the old name stays a deciding test on the page)."""
    proj.claim("optim.a", "refuted")
    proj.claim("optim.b")
    proj.build(proj.report("torch-2.6.0.json", "2.6.0", {"optim.a": "passed", "optim.b": "passed"}))
    test_file = proj.root / "tests" / "test_x.py"
    test_file.write_text(test_file.read_text().replace("def test_optim_a(", "def test_optim_a_renamed("))
    assert proj.main() == 0
    assert "2.6.0: the evidence of 1 test(s) whose file or function no longer exists is dropped" in \
        capsys.readouterr().err
    m, md, page = proj.build()
    assert cells(m, "optim.a")["2.6.0"] not in verdicts.DECIDED, cells(m, "optim.a")
    assert cells(m, "optim.b") == {"2.6.0": "holds"}, "the file's other test still decides"
    for where, text in (("markdown", md), ("page", page)):
        assert "test_optim_a" not in text.replace("test_optim_a_renamed", ""), f"the {where} lists the gone test"
    committed = json.loads((proj.root / "docs" / "matrix" / "reports" / "2.6.0.json").read_text())
    assert list(committed["tests"]) == ["tests/test_x.py::test_optim_b"]


def test_the_column_details_show_the_recorded_libraries_and_gpu_stack(proj):
    """Red in a world where the libraries of a lib.* run, or the cuDNN / NCCL / driver / clocks of a
    GPU run, are not carried from the reports to the column details."""
    proj.claim("optim.a")
    cpu = proj.report("torch-2.6.0.json", "2.6.0", {"optim.a": "passed"})
    gpu = proj.report("torch-2.6.0-gpu.json", "2.6.0", {"optim.a": "passed"}, device="NVIDIA H100")
    lib = proj.report("lib.json", "2.6.0", {"optim.a": "passed"})
    clocks = {"clocks.sm": "1980 MHz", "clocks.max.sm": "1980 MHz", "clocks.mem": "2619 MHz"}
    for path, extra in ((lib, {"libraries": {"einops": "0.8.1", "PIL": "13.0.0"}}),
                        (gpu, {"cudnn_version": "91002", "nccl_version": "2.27.3",
                               "gpu_preflight": {"driver": ["580.82"], "clocks": [clocks]}})):
        doc = json.loads(path.read_text())
        doc["environment"].update(extra)
        path.write_text(json.dumps(doc))
    m, md, _ = proj.build(cpu, gpu, lib)
    details = {c.label: matrix.column_details(c) for c in m.columns}
    cpu_col, gpu_col = (details[c.label] for c in m.columns)
    assert cpu_col["libraries"] == "PIL 13.0.0, einops 0.8.1", cpu_col
    assert cpu_col["GPU stack"] == "none", cpu_col
    assert gpu_col["GPU stack"] == ("driver 580.82 · cuDNN 91002 · NCCL 2.27.3 · clocks SM 1980 MHz of "
                                    "1980 MHz, memory 2619 MHz"), gpu_col
    assert "| libraries | PIL 13.0.0, einops 0.8.1 |" in md


def test_a_report_with_an_incomplete_run_is_refused_unless_asked(proj, capsys):
    proj.claim("optim.a")
    whole = proj.report("torch-2.0.1.json", "2.0.1", {"optim.a": "passed"}, complete=True)
    cut = proj.report("torch-2.6.0.json", "2.6.0", {"optim.a": "passed"}, complete=False)
    assert proj.main(whole, cut) == 2
    err = capsys.readouterr().err
    assert f"{cut}: an incomplete run: run 1 of 1 (pytest -m cpu, exit status 2) did not complete" in err
    assert "--include-incomplete" in err
    assert not (proj.root / "docs" / "matrix" / "reports").exists(), "nothing is written"
    assert proj.main(whole, cut, "--include-incomplete") == 0
    assert "the evidence of 2.6.0 includes an incomplete run" in capsys.readouterr().err
    md = (proj.root / "docs" / "matrix" / "claims-matrix.md").read_text()
    assert "(INCOMPLETE: run 1 of 1 (pytest -m cpu, exit status 2) did not complete)" in md


@pytest.mark.parametrize("content, message", [
    pytest.param("{not json", "cannot read a claims report", id="not-json"),
    pytest.param(json.dumps({"schema": 1, "environment": {"torch": "2.0.1"}, "claims": []}),
                 "not a claims report of schema 2 or 3 (found 1)", id="schema-1"),
    pytest.param(json.dumps({"schema": 99, "environment": {"torch": "2.0.1"}}), "(found 99)", id="unknown-schema"),
    pytest.param(json.dumps({"schema": 2, "environment": {}, "tests": {}}), "names no torch version", id="no-torch"),
    pytest.param(json.dumps({"schema": 2, "environment": {"torch": "nightly"}, "tests": {}}),
                 "unreadable torch version", id="bad-version"),
    pytest.param(json.dumps({"schema": 2, "environment": {"torch": "2.0.1"}, "claims": []}), "records no evidence",
                 id="no-evidence"),
])
def test_unmergeable_reports_are_refused_with_the_file_name(proj, capsys, content, message):
    proj.claim("optim.a")
    path = proj.root / "reports" / "r.json"
    path.parent.mkdir()
    path.write_text(content)
    with pytest.raises(matrix.MatrixError, match=re.escape(message)) as info:
        matrix.load(path)
    assert str(info.value).startswith(f"{path}: ")
    assert proj.main(path) == 2
    assert f"harness.matrix: {path}: " in capsys.readouterr().err


def test_command_line_defaults_and_missing_inputs(proj, capsys, monkeypatch):
    proj.claim("optim.a")
    proj.report("torch-2.0.1.json", "2.0.1", {"optim.a": "passed"})
    proj.report("lib.json", "2.0.1", {"optim.a": "passed"})
    monkeypatch.chdir(proj.root)
    assert matrix.main([], inv=proj.inv, rootdir=proj.root) == 0, "defaults: reports/torch-*.json reports/lib*.json"
    out = capsys.readouterr().out
    assert "from local reports/torch-2.0.1.json" in out
    assert "+ local reports/lib.json" in out
    assert (proj.root / "docs" / "matrix" / "reports" / "2.0.1.json").exists()
    assert matrix.main(["reports/nothing-*.json"], inv=proj.inv, rootdir=proj.root) == 2
    assert "no report matches reports/nothing-*.json" in capsys.readouterr().err


# --- the renderings ------------------------------------------------------------------------------


def test_reasons_and_corrections_are_escaped_in_the_html_and_in_markdown_tables(proj):
    evil = '<script>alert("x")</script> & a|b'
    proj.claim("optim.a", "refuted", correction=evil)
    proj.claim("optim.b")
    _, md, page = proj.build(proj.report("r.json", "2.6.0", {"optim.a": "passed",
                                                             "optim.b": {"outcome": "skipped", "reason": evil}}))
    assert "<script>alert" not in page
    assert page.count("<script>") == 1, "only the page's own filter script"
    assert html.escape(evil, quote=True) in page
    assert ('title="torch 2.6.0: refuted | correction: '
            '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; a|b') in page
    assert "<script>" not in md
    assert "a\\|b" in md


def test_both_renderings_say_generated_do_not_edit_and_name_date_and_versions(proj):
    proj.claim("optim.a")
    paths = [proj.report("r1.json", "1.13.1+cu117", {"optim.a": "passed"}),
             proj.report("r2.json", "2.14.1+cu130", {"optim.a": "passed"})]
    _, md, page = proj.build(*paths)
    for text in (md, page):
        assert "do not edit" in text
        assert "2026-01-01" in text, "the day of the newest run (from the evidence, not the build's)"
        for exact in ("1.13.1+cu117", "2.14.1+cu130", "2026-01-01T00:00:01+00:00"):
            assert exact in text
        for local in ("r1.json", "r2.json", str(proj.root)):
            assert local not in text, f"{local!r}: a local file name (the same evidence builds the same bytes)"


def test_the_html_page_is_self_contained_with_a_topic_filter_and_inventory_titles(proj):
    proj.claim("optim.a")
    proj.claim("serial.b", "refuted")
    _, _, page = proj.build(proj.report("r.json", "2.6.0", {"optim.a": "passed", "serial.b": "passed"}))
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page), "no external assets"
    assert re.findall(r"<link[^>]*>", page) == ['<link rel="icon" href="data:,">'], "only an inline (empty) icon"
    assert "@import" not in page
    assert "url(" not in page
    assert '<select id="topic">' in page
    assert '<option value="serial">Serialization (serial.*)</option>' in page
    assert '<tr class="claim" data-id="serial.b" data-topic="serial" data-changed="0"' in page
    assert ".v-holds{background-color:" in page
    assert 'class="v v-refuted"' in page



def test_the_pages_css_and_javascript_files_are_inlined_as_they_are(proj):
    """The page's CSS and JavaScript live in harness/matrix/templates/ beside the Jinja2 template,
    found relative to the package (a fresh clone needs no install step), and the page holds each
    file's text verbatim: one self-contained file."""
    proj.claim("optim.a")
    _, _, page = proj.build(proj.report("r.json", "2.6.0", {"optim.a": "passed"}))
    templates = ROOT / "harness" / "matrix" / "templates"
    assert matrix.html.TEMPLATES == templates
    for name in ("page.html.j2", "page.css", "minisearch.js", "find.js", "page.js", "synonyms.json", "glossary.json"):
        assert (templates / name).is_file(), f"{name} missing from {templates}"
    inlined = (("page.css", "<style>\n"), ("minisearch.js", "<script>\n"), ("find.js", "\n"), ("page.js", "\n"))
    for name, where in inlined:
        text = (templates / name).read_text(encoding="utf-8")
        assert where + text in page, f"{name} is not inlined verbatim in the page"
    assert "{{" not in page, "no Jinja2 syntax left unrendered"
    assert "{%" not in page, "no Jinja2 syntax left unrendered"
    ignored = [line.strip() for line in (ROOT / ".gitignore").read_text().splitlines()]
    assert not {"*.css", "*.js", "*.j2", "templates/", "harness/matrix/templates/"} & set(ignored), \
        f".gitignore would drop the package's templates: {ignored}"

def test_a_partial_run_is_flagged_in_the_header_and_on_stderr(proj, capsys):
    proj.claim("optim.a")
    whole = proj.report("torch-2.0.1.json", "2.0.1", {"optim.a": "passed"})
    part = proj.report("torch-2.3.1.json", "2.3.1", {"optim.a": "passed"}, args=("--claim", "optim.a", "-q"))
    doc = json.loads(part.read_text())
    doc["runs"][0]["claims"] = ["optim.a"]
    part.write_text(json.dumps(doc))
    assert matrix.load(whole).partial is None
    assert matrix.load(part).partial == "--claim optim.a"
    assert proj.main(whole, part) == 0
    assert "the evidence of 2.3.1 is a partial run (--claim optim.a)" in capsys.readouterr().err
    md = (proj.root / "docs" / "matrix" / "claims-matrix.md").read_text()
    assert "| selection | -m cpu | --claim optim.a -q (PARTIAL RUN: --claim optim.a) |" in md


def _bench(value, spread):
    return {"outcome": "passed", "kind": {"gpus": 0, "benchmark": True}, "figures": [
        {"name": "float64 / float32 time", "value": value, "spread": spread, "unit": "x"},
        {"name": "not a number", "value": "n/a"}]}


def test_benchmark_claims_show_their_figures_per_version_in_both_renderings(proj):
    proj.claim("optim.bench", decided_by="benchmark-cpu")
    paths = [proj.report("a.json", "2.0.1", {"optim.bench": _bench(1.93, 0.05)}),
             proj.report("b.json", "2.6.0", {"optim.bench": _bench(2.41, 0.11)})]
    m, md, page = proj.build(*paths)
    assert row(m, "optim.bench").benchmark
    assert ("| `optim.bench` | float64 / float32 time "
            "| \u2713 holds: 1.93x \u00b1 0.05 | \u2713 holds: 2.41x \u00b1 0.11 |") in md
    text = detail(page, "optim.bench")
    assert "<td>2.0.1</td><td>cpu</td>" in text
    assert "1.93x \u00b1 0.05" in text
    assert "2.41x \u00b1 0.11" in text
    assert "n/a" not in text, "only numeric figures are shown"


def test_the_benchmark_plot_is_an_inline_svg_drawn_by_matplotlib(proj):
    pytest.importorskip("matplotlib", reason="matplotlib (requirements-matrix.txt) draws the benchmark plots")
    proj.claim("optim.bench", decided_by="benchmark-cpu")
    paths = [proj.report(f"{v}.json", v, {"optim.bench": _bench(x, 0.1)})
             for v, x in (("2.0.1", 1.5), ("2.6.0", 1.7), ("2.14.1", 1.6))]
    _, _, page = proj.build(*paths, evidence=False)
    svg = re.search(r'<div class="svgplot"[^>]*>(<svg.*?</svg>)', detail(page, "optim.bench"), re.S)
    assert svg, "no inline SVG plot in the benchmark claim's detail"
    assert "<?xml" not in page
    assert "<!DOCTYPE svg" not in page
    for label in ("2.0.1", "2.6.0", "2.14.1", "optim.bench"):
        assert label in svg.group(1)
    assert not re.search(r"""(xlink:)?href=["']https?:""", svg.group(1))
    assert proj.build(*paths, evidence=False)[2] == page, "the same input gives the same page"


def test_each_claim_has_a_detail_with_source_decided_by_evidence_and_roles(proj):
    proj.claim("optim.a", "refuted", correction="really it does X", source=["004_x.txt \u203a what is it"])
    proj.build(proj.report("r.json", "2.6.0", {"optim.a": "passed"}))
    doc = json.loads((proj.root / "reports" / "r.json").read_text())
    doc["tests"]["tests/test_x.py::test_optim_a[cuda]"] = {  # its CUDA case: supporting, skipped
        **doc["tests"]["tests/test_x.py::test_optim_a"], "outcome": "skipped", "kind": {"gpus": 1},
        "reason": "needs a CUDA GPU (found 0)"}
    (proj.root / "reports" / "r.json").write_text(json.dumps(doc))
    _, _, page = proj.build(proj.root / "reports" / "r.json")
    text = detail(page, "optim.a")
    for part in ("004_x.txt \u203a what is it", "<b>Decided by:</b> cpu", "really it does X",
                 "tests/test_x.py::test_optim_a[cuda]", "supporting", "needs a CUDA GPU (found 0)", "deciding"):
        assert html.escape(part, quote=False) in text or part in text, part
    # the search reads ID and text (data-id, data-key: fields of their own, ranked first), then the
    # topic's title, topic, decided_by, note section and correction
    assert ('data-key="text of optim.a" data-search="optimizers &amp; zero_grad optim cpu 004_x.txt \u203a what is it '
            'really it does x"') in page


def test_the_verdict_words_are_the_reports():
    assert model.VERDICTS is report.VERDICT_ORDER
    assert tuple(texts.SUMMARY_ORDER) == tuple(report.VERDICT_ORDER)
    assert set(model.BEHAVIOUR) >= {"holds", "refuted", "failed"}
    assert "inconclusive" not in model.BEHAVIOUR


def test_the_detail_states_a_single_correction_once(proj):
    proj.claim("optim.a", "refuted", correction="the one truth of optim.a")
    paths = [proj.report(f"r{i}.json", v, {"optim.a": "passed"}) for i, v in enumerate(["2.0.1", "2.1.2", "2.2.2"])]
    _, _, page = proj.build(*paths, evidence=False)
    assert detail(page, "optim.a").count("the one truth of optim.a") == 1, detail(page, "optim.a")


def test_a_partly_claim_has_its_own_symbol_colour_pattern_legend_filter_and_correction(proj):
    proj.claim("optim.p", "partly", correction="right for x; wrong for y")
    proj.bodies["optim.p"] = "assert True\n\n\ndef test_optim_p_failing():\n    assert True"
    proj.claim("optim.h")
    path = proj.report("torch-2.6.0.json", "2.6.0", {
        "optim.h": "passed", "optim.p": {"outcome": "passed", "halves": {"optim.p": "holding"}}})
    doc = json.loads(path.read_text())
    nodeid = "tests/test_x.py::test_optim_p_failing"
    doc["tests"][nodeid] = {**doc["tests"]["tests/test_x.py::test_optim_p"], "halves": {"optim.p": "failing"},
                            **provenance.stamp(proj.root, proj.inv, nodeid, ["optim.p"])}
    path.write_text(json.dumps(doc))
    m, md, page = proj.build(path)
    assert cells(m, "optim.p") == {"2.6.0": "partly"}
    assert cells(m, "optim.h") == {"2.6.0": "holds"}
    assert texts.SYMBOLS["partly"] == "\u25d0"
    assert texts.PATTERNS["partly"] not in {
        p for v, p in texts.PATTERNS.items() if v != "partly"}, "partly reads in greyscale by its own pattern"
    assert "partly on 2.6.0: right for x; wrong for y" in md
    assert '<select id="verdict">' in page
    assert '<option value="partly">\u25d0 partly</option>' in page
    assert re.search(r'<tr class="claim" data-id="optim.p" data-topic="optim" data-changed="0" [^>]*'
                     r'data-verdicts="partly"', page), "the row carries its verdicts for the filter"
    assert ".v-partly{background-color:" in page
    assert "<b>partly</b>" in page
    assert "right for x; wrong for y" in detail(page, "optim.p")
    assert [s.get("partly") for s in matrix.summary(m)] == [1]


def test_diff_prints_the_claims_whose_verdict_differs_between_two_columns(proj, capsys):
    proj.claim("optim.a", [("holds", None, "2.6", None), ("refuted", "2.6", None, "since 2.6 it does y")])
    proj.claim("optim.b")
    proj.claim("optim.c", "refuted", correction="always z")
    passed = {"optim.a": "passed", "optim.b": "passed", "optim.c": "passed"}
    proj.build(proj.report("torch-2.5.1.json", "2.5.1", passed), proj.report("torch-2.6.0.json", "2.6.0", passed))
    evidence = proj.root / "docs" / "matrix" / "reports"

    def diff(*args):
        capsys.readouterr()
        rc = matrix.main(["diff", *args, *map(str, sorted(evidence.glob("*.json"))), "--evidence", str(evidence)],
                         inv=proj.inv, rootdir=proj.root)
        out = capsys.readouterr()
        return rc, out.out.splitlines(), out.err

    assert diff("2.5.1", "2.6.0") == (0, [
        "2.5.1 \u2192 2.6.0: 1 claim differs", "",
        "optim.a: holds \u2192 refuted", "  claim: text of optim.a", "  2.6.0: correction: since 2.6 it does y",
        "", "What this comparison cannot tell:", "  decided in 2.5.1 only: 0 claims",
        "  decided in 2.6.0 only: 0 claims", "  decided in neither: 0 claims"], "")
    rc, lines, _ = diff("2.6.0", "2.5.1")
    assert lines[2] == "optim.a: refuted \u2192 holds", "a downgrade reads the other way"
    assert diff("2.5.1", "2.5.1")[1][0] == "2.5.1 \u2192 2.5.1: no claim's verdict differs"
    rc, lines, err = diff("2.5.1", "2.7.0")
    assert (rc, lines) == (2, [])
    assert "no column is '2.7.0'; the columns are: 2.5.1, 2.6.0" in err


def test_the_diff_names_the_upstream_cause_of_a_boundary_and_a_correction_both_sides_share_once(proj):
    proj.claim("optim.a", [("holds", None, "2.6", None), ("refuted", "2.6", None, "since 2.6 it does y")])
    passed = {"optim.a": "passed"}
    m, _, _ = proj.build(proj.report("torch-2.5.1.json", "2.5.1", passed),
                         proj.report("torch-2.6.0.json", "2.6.0", passed))
    old, new, found = matrix.diff(m, "2.5.1", "2.6.0")
    assert "  cause:" not in "\n".join(matrix.diff_lines(old, new, found)), "no cause named: none printed"
    row(m, "optim.a").transitions[0].cause = "pytorch/pytorch#1: the default changed"
    old, new, found = matrix.diff(m, "2.5.1", "2.6.0")
    assert found[0].causes == ["pytorch/pytorch#1: the default changed"]
    assert "  cause: pytorch/pytorch#1: the default changed" in matrix.diff_lines(old, new, found)
    same = model.Difference("optim.c", "text of optim.c", model.Cell("refuted", {"correction": "always z"}),
                             model.Cell("partly", {"correction": "always z"}))
    assert matrix.diff_lines(old, new, [same])[2:] == [
        "optim.c: refuted \u2192 partly", "  claim: text of optim.c", "  both: correction: always z"]


def test_a_rebuild_beside_the_same_local_reports_writes_the_same_bytes(proj):
    """The first build merges local reports into the committed evidence; the next reads that
    evidence back beside the same local reports. A column lists its runs in the order they
    finished, whichever file brought them first, so the two builds agree (red where the runs keep
    the order in which the files were read: the later run first, then the earlier)."""
    proj.claim("optim.a", "refuted", correction="c")
    proj.claim("optim.b", "refuted", correction="c")
    earlier = proj.report("torch-2.6.0-a.json", "2.6.0", {"optim.a": "passed"})
    later = proj.report("torch-2.6.0-b.json", "2.6.0", {"optim.b": "passed"})
    _, md, page = proj.build(later, earlier)
    evidence = {p.name: p.read_bytes() for p in (proj.root / "docs" / "matrix" / "reports").iterdir()}
    _, md2, page2 = proj.build(later, earlier)
    assert (md2, page2) == (md, page), "a rebuild beside the same local reports wrote other bytes"
    assert {p.name: p.read_bytes() for p in (proj.root / "docs" / "matrix" / "reports").iterdir()} == evidence
    runs = json.loads(evidence["2.6.0.json"])["runs"]
    assert [r["finished"] for r in runs] == sorted(r["finished"] for r in runs), runs


def test_two_builds_from_the_same_evidence_are_byte_identical(proj):
    proj.claim("optim.a", [("holds", None, "2.6", None), ("refuted", "2.6", None, "since 2.6 it does y")])
    proj.claim("optim.b", "refuted", correction="the same in every column")
    outcomes = {"optim.a": "passed", "optim.b": "passed"}
    on_gpu_machine = {c: {"outcome": "passed", "kind": {"gpus": 0}} for c in outcomes}  # its run's CPU tests
    paths = [proj.report("torch-2.5.1.json", "2.5.1", outcomes), proj.report("torch-2.6.0.json", "2.6.0", outcomes),
             proj.report("torch-2.6.0-gpu.json", "2.6.0", on_gpu_machine, device=H100)]
    _, md, page = proj.build(*paths)
    _, md2, page2 = proj.build(*paths)
    assert (md2, page2) == (md, page), "the same evidence, the same bytes"
    assert "Built " not in md.split("## Versions")[0].replace("Built from the evidence of runs up to 2026-01-01", "")
    head, details = md.split("<details>", 1)
    for key in ("| torch |", "| device |", "| python |", "| **refuted** |"):
        assert key in head, f"the header keeps torch, device, Python and the counts: {key}"
    for key in ("| run at |", "| selection |", "| report |"):
        assert key in details, f"run stamps and selections are in the details section: {key}"
        assert key not in head, key
    b = next(ln for ln in md.splitlines() if ln.startswith("| `optim.b`"))
    assert b.count("the same in every column") == 1, f"a correction the same in several columns is written once: {b}"
    assert "refuted on 2.5.1\u20132.6.0, 2.6.0 (NVIDIA H100 80GB HBM3): the same in every column" in b


def test_the_pages_changes_list_has_the_markdowns_rows_with_their_cause(proj):
    proj.claim("optim.a", [("holds", None, "2.6", None), ("refuted", "2.6", None, "since 2.6 it does y")])
    proj.claim("optim.b")
    outcomes = {"optim.a": "passed", "optim.b": "passed"}
    m, md, page = proj.build(proj.report("torch-2.5.1.json", "2.5.1", outcomes),
                             proj.report("torch-2.6.0.json", "2.6.0", outcomes))

    def changes(text):
        return text.split('<details id="changes">', 1)[1].split("</details>", 1)[0]

    listed = re.findall(r'<li data-id="([^"]+)">', changes(page))
    assert listed == [r.id for r in m.rows if r.transitions] == ["optim.a"]
    assert "holds \u2192 refuted: changed between 2.5.1 and 2.6.0" in changes(page)
    assert "| `optim.a` | holds \u2192 refuted: changed between 2.5.1 and 2.6.0 |" in md
    assert "cause:" not in changes(page), "no cause named: none shown"
    row(m, "optim.a").transitions[0].cause = "pytorch/pytorch#1: the default changed"
    page = matrix.render_html(m)
    assert '<div class="cause">cause: pytorch/pytorch#1: the default changed</div>' in changes(page)
    data = json.loads(page.split('<script type="application/json" id="diff-data">', 1)[1].split("</script>", 1)[0])
    assert next(r for r in data["rows"] if r["id"] == "optim.a")["causes"] == [
        [0, 1, "pytorch/pytorch#1: the default changed"]], "the diff view shows the cause too"


def test_a_run_whose_evidence_a_later_run_replaced_is_not_named_so_the_committed_evidence_rebuilds_the_same_bytes(
        proj):
    """Issue 41, fault 6: a local report's run whose every record a later run replaced is not kept in
    the committed evidence (evidence_doc()), so the column must not name it either ("run at",
    "selection"): else a fresh clone, which has only the committed evidence, rebuilds other bytes
    (red where the column lists every run of its inputs)."""
    proj.claim("optim.a", "refuted", correction="c")
    earlier = proj.report("torch-2.6.0-a.json", "2.6.0", {"optim.a": "passed"}, args=("-m", "cpu", "-k", "first"))
    later = proj.report("torch-2.6.0-b.json", "2.6.0", {"optim.a": "passed"}, args=("-m", "cpu", "-k", "second"))
    _, md, page = proj.build(earlier, later)
    assert "-k first" not in md, "the column names a run none of whose evidence stands"
    for p in (earlier, later):
        p.unlink()
    _, md2, page2 = proj.build()  # a fresh clone: the committed evidence alone
    assert (md2, page2) == (md, page), "the committed evidence alone rebuilds other bytes"


def test_the_committed_evidence_rebuilds_the_committed_page_byte_for_byte(tmp_path):
    """Issue 41, fault 6: what a fresh clone builds (`python -m harness.matrix` with no local report)
    from docs/matrix/reports/ is the committed Markdown and HTML, byte for byte. Built into a scratch
    folder from a copy of the evidence, so nothing in the checkout is written."""
    import shutil

    committed = ROOT / "docs" / "matrix"
    evidence = tmp_path / "reports"
    shutil.copytree(committed / "reports", evidence)
    shutil.copy(committed / "claims-matrix.md", tmp_path / "claims-matrix.md")
    matrix.build([], tmp_path, evidence_dir=evidence, rootdir=ROOT, known=ROOT / "docs" / "known-failures.toml")
    for name in ("claims-matrix.md", "claims-matrix.html"):
        assert (tmp_path / name).read_bytes() == (committed / name).read_bytes(), (
            f"{name}: a rebuild from the committed evidence differs from the committed file "
            "(rebuild it: python -m harness.matrix)")
    for p in evidence.iterdir():
        assert p.read_bytes() == (committed / "reports" / p.name).read_bytes(), f"{p.name} was rewritten"


def test_a_gpu_column_says_how_old_it_is_and_shows_the_cpu_verdict_of_what_the_cpu_decides(proj):
    """A GPU column run before tests changed: its header says when and on which torch it was
    measured and how many of its tests changed since; a stale cell and a claim it never ran read
    "rerun" (never "untested"); a CPU-decided claim its run did not decide shows the CPU column's
    verdict of the same torch, muted and marked "decided on CPU"; one its run decided keeps its own."""
    proj.claim("optim.edited", "refuted", correction="the truth")
    proj.claim("optim.same")
    proj.claim("cuda.x", decided_by="gpu")
    cuda = {"nodeid": "tests/test_x.py::test_cuda_x", "outcome": "passed", "kind": {"gpus": 1}}
    on_cpu = {"outcome": "passed", "kind": {"gpus": 0}}  # the GPU run's own CPU tests
    gpu = proj.report("torch-2.6.0-gpu.json", "2.6.0+cu124", {"optim.edited": on_cpu, "optim.same": on_cpu,
                                                              "cuda.x": cuda}, device=H100)
    proj.bodies["optim.edited"] = "assert 1 == 1"  # the test changed after the GPU run
    proj.claim("cuda.new", "refuted", correction="the new truth", decided_by="gpu")  # no GPU run had its test
    cpu = proj.report("torch-2.6.0.json", "2.6.0", {
        "optim.edited": "passed", "optim.same": "passed",
        "cuda.new": {"outcome": "skipped", "reason": "needs a CUDA GPU (found 0)", "kind": {"gpus": 1}},
        "cuda.x": {**cuda, "outcome": "skipped", "reason": "needs a CUDA GPU (found 0)"}})
    m, md, page = proj.build(cpu, gpu, evidence=False)
    assert cells(m, "optim.edited") == {"2.6.0": "refuted", f"2.6.0 \u00b7 {H100}": "not-run"}
    edited, same, new = (row(m, c).cells[1] for c in ("optim.edited", "optim.same", "cuda.new"))
    assert (edited.rerun, edited.cpu is row(m, "optim.edited").cells[0], edited.shown) == (True, True, "refuted")
    assert (same.verdict, same.cpu, same.shown) == ("holds", None, "holds"), "the GPU run decided it itself"
    assert (new.verdict, new.rerun, new.cpu, new.shown) == ("untested", True, None, "rerun")
    assert (texts.cell_word(edited), texts.cell_word(new)) == ("refuted (decided on CPU)", "rerun")
    ranges = page.split('id="ranges"', 1)[1]
    head = ranges.split("</thead>", 1)[0]
    age = (r'<th class="ver gpu"[^>]*>2\.6\.0<small class="age">measured <span class="nw">2026-01-01</span> '
           r'on torch 2\.6\.0\+cu124; 1 test changed since, 1 claim new: rerun \.ci/gpu</small></th>')
    assert re.search(age, head), head
    seg = re.search(r'<td class="seg ([^"]*)"[^>]*data-claim="optim\.edited"[^>]*data-device="' + re.escape(H100)
                    + r'"[^>]*>(.*?)</td>', ranges).groups()
    assert seg == ("v-refuted oncpu", '<span class="sym" aria-hidden="true">\u2717</span> refuted'
                                      '<small class="mark">decided on CPU</small>'), seg
    seg = re.search(r'<td class="seg ([^"]*)"[^>]*data-claim="cuda\.new"[^>]*data-device="' + re.escape(H100)
                    + r'"[^>]*data-shown="rerun">(.*?)</td>', ranges).groups()
    assert seg == ("v-rerun rerun", '<span class="sym" aria-hidden="true">\u21bb</span> rerun'), seg
    legend = page.split('<ul class="legend"', 1)[1].split("<details", 1)[0]
    for words in ("<b>rerun</b>", "never &ldquo;untested&rdquo;", "<b>decided on CPU</b>", ".ci/gpu",
                  "how many of its tests changed since"):
        assert words in legend, words
    # a claim refuted by the inventory that no column decided: its detail opens with the correction
    correction = detail(page, "cuda.new").split("<h3>Correction</h3>", 1)[1].split("<h3>", 1)[0]
    assert correction.startswith("<ul><li>the new truth</li></ul>"), correction
    assert "none" not in correction, correction


def test_an_upgrade_answer_says_what_it_cannot_know_and_keeps_the_library_rows_apart(proj, capsys):
    """After the differing claims, `diff` and the page's compare view count the claims decided in
    only one of the two columns and in neither, by reason (GPU, several GPUs, launcher, library,
    network); lib.* claims, decided where the optional-library reports joined a column, come apart
    from torch's; causes are links in the Changes list and the compare view."""
    proj.claim("optim.a", [("holds", None, "2.6", None), ("refuted", "2.6", None, "since 2.6 it does y")])
    proj.claim("cuda.x", decided_by="gpu")
    proj.claim("cuda.y", decided_by="gpu")
    proj.claim("lib.einops-rearrange", decided_by="external-lib")
    from test_matrix_causes import CAUSE, PR, _with_cause
    _with_cause(proj, "2.6", CAUSE)
    libs = {"kind": {"gpus": 0, "libs": ["einops"]}}
    skip = {"outcome": "skipped", "reason": "needs a CUDA GPU (found 0)", "kind": {"gpus": 1}}
    old = proj.report("torch-2.5.1.json", "2.5.1", {"optim.a": "passed", "cuda.x": skip, "cuda.y": skip,
                                                     "lib.einops-rearrange": {**libs, "outcome": "skipped"}})
    new = proj.report("torch-2.6.0.json", "2.6.0", {"optim.a": "passed", "cuda.x": skip, "cuda.y": skip,
                                                     "lib.einops-rearrange": {**libs, "outcome": "passed"}})
    m, _, page = proj.build(old, new)
    lim = model.limits(m, "2.5.1", "2.6.0")
    assert (lim.only_old, lim.only_new, lim.neither) == ({}, {"library": 1}, {"GPU": 2})
    _, _, found = matrix.diff(m, "2.5.1", "2.6.0")
    assert [(d.id, d.lib) for d in found] == [("optim.a", False), ("lib.einops-rearrange", True)]
    capsys.readouterr()
    evidence = proj.root / "docs" / "matrix" / "reports"
    assert matrix.main(["diff", "2.5.1", "2.6.0", "--evidence", str(evidence)], inv=proj.inv, rootdir=proj.root) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "2.5.1 \u2192 2.6.0: 1 claim differs, and 1 claim of the optional libraries (lib.*, below)"
    at = lines.index("lib.einops-rearrange: not-run \u2192 holds")
    assert lines.index("optim.a: holds \u2192 refuted") < at
    assert lines[at - 2].startswith("lib.* claims (1): decided by the optional-library reports"), lines
    assert lines[-4:] == ["What this comparison cannot tell:", "  decided in 2.5.1 only: 0 claims",
                          "  decided in 2.6.0 only: 1 claim (why not in 2.5.1: library 1)",
                          "  decided in neither: 2 claims (GPU 2)"], lines
    changes = page.split('<details id="changes">', 1)[1].split("</details>", 1)[0]
    assert f'<div class="cause">cause: <a href="{PR}" rel="noreferrer">{PR}</a> ' in changes, changes
    data = json.loads(page.split('<script type="application/json" id="diff-data">', 1)[1].split("</script>", 1)[0])
    assert [r["id"] for r in data["rows"]][-1] == "lib.einops-rearrange", "the page lists lib.* claims last too"
    assert data["reasons"] == list(model.REASONS)


def test_every_cited_note_has_a_short_english_title_of_its_content():
    """harness/matrix/templates/note_titles.json names each note the inventory cites by a short
    title in English (the by-note headers show it beside the file name, a hash to a reader)."""
    from harness.matrix.html import note_titles

    titles = note_titles()
    cited = {s.split(" \u203a ")[0].strip() for c in inventory.load().claims.values() for s in c.source}
    assert cited <= set(titles), f"notes without a title: {sorted(cited - set(titles))}"
    for note, title in titles.items():
        assert 20 <= len(title) <= 200, (note, title)
        assert not re.search("[\u3400-\u9fff]", title), f"{note}: the title is for a reader of English"


def test_the_pages_hints_print_commands_that_work_from_readmes_setup(proj):
    """Every command the page and the Markdown print runs from the quick start's .venv or tox's
    .venv-tox by its path, as README names them (a bare `python -m ...` or `tox ...` fails outside
    the virtualenv); and README runs each of them that way."""
    proj.claim("optim.a")
    _, md, page = proj.build(proj.report("torch-2.6.0.json", "2.6.0", {"optim.a": "passed"}))
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    shown = re.findall(r"<code>([^<]*)</code>|`([^`]+)`", page + md)
    commands = [c for pair in shown for c in pair if re.match(r"(\S*/)?(python3?|tox|pytest)\b", c)]
    assert commands, "the page prints its commands"
    for command in commands:
        assert command.startswith((".venv/bin/", ".venv-tox/bin/")), f"a bare command: {command!r}"
        assert command.split(" A B")[0] in readme, f"README does not run {command!r} that way"


def test_a_test_that_became_parametrized_leaves_no_stale_record_of_its_old_shape():
    """pytest collects one function either bare or parametrized, never both: where a column holds
    both shapes (a test that took the `device` fixture after the column was first measured), the
    shape laid down last is the test as it is and the other's records are dropped, instead of
    reading stale for good (red where both shapes stay)."""
    from harness.matrix.column_evidence import superseded_shapes

    laid = {"t.py::test_a": "1", "t.py::test_b[cpu]": "1", "t.py::test_a[cpu]": "2", "t.py::test_a[cuda]": "2",
            "t.py::test_b": "3", "t.py::test_c[x]": "1", "t.py::test_d": "2", "t.py::test_d[cpu]": "2"}
    # test_d: both shapes from one run (only a report edited by hand holds that): neither is older
    assert sorted(superseded_shapes(laid)) == ["t.py::test_a", "t.py::test_b[cpu]"]
