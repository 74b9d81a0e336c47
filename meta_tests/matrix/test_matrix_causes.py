"""Why a claim changed between versions: the inventory's `cause` of the range that begins at the
boundary, on the matrix's transitions, in the Markdown Changes table (its Why column), in claims.md
and in the HTML claim detail (a link); a failure that docs/known-failures.toml explains as this
machine's result is no change of torch. Built in the miniature checkout of test_matrix.py; the
detail's link also in a real browser (skips, naming what is missing, without Playwright or Chromium).
"""
from __future__ import annotations

import json
import re

from test_matrix import Project, row  # the miniature checkout (meta_tests/matrix is on sys.path)

PR = "https://github.com/pytorch/pytorch/pull/92731"
CAUSE = f"{PR} ([nn] zero_grad() set_to_none default True)"


def _with_cause(proj: Project, since: str, cause: str) -> None:
    """Give every range of the miniature inventory that begins at `since` the cause `cause` (the
    Project helper writes standings without one; a cause is not hashed, so reports stay fresh)."""
    for path in (proj.root / "tests" / "claims").glob("*.toml"):
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace(f'since = "{since}"\n', f'since = "{since}"\ncause = "{cause}"\n'),
                        encoding="utf-8")


def _zero_grad_project(tmp_path):
    proj = Project(tmp_path / "proj")
    proj.claim("optim.zero", [("holds", None, "2.0", None), ("refuted", "2.0", None, "grads are None")])
    proj.claim("optim.same")
    _with_cause(proj, "2.0", CAUSE)
    paths = [proj.report(f"r{v}.json", v, {"optim.zero": "passed", "optim.same": "passed"})
             for v in ("1.13.1", "2.0.1", "2.3.1")]
    return proj, paths


def test_a_transition_carries_the_cause_of_the_range_that_begins_there(tmp_path):
    proj, paths = _zero_grad_project(tmp_path)
    m, md, page_html = proj.build(*paths, evidence=False)
    (t,) = row(m, "optim.zero").transitions
    assert (t.before, t.after, t.cause) == ("1.13.1", "2.0.1", CAUSE), t
    assert row(m, "optim.same").transitions == []
    changes = md.split("## Changes between versions", 1)[1].split("\n## ", 1)[0]
    assert "| Claim | Change (last version with the old behaviour, first with the new) | Why |" in changes
    assert f"| `optim.zero` | holds \u2192 refuted: changed between 1.13.1 and 2.0.1 | {CAUSE} |" in changes, changes
    assert f"(why: {CAUSE})" in md.split("## Optimizers", 1)[1], "the topic table's changes name the cause too"


def test_a_change_without_a_recorded_cause_says_so():
    from harness.inventory import Standing
    from harness.matrix.model import boundary_cause

    standings = (Standing("holds", before="2.0"), Standing("refuted", "x", since="2.0", cause=CAUSE))
    assert boundary_cause(standings, "1.13.1", "2.0.1") == CAUSE
    assert boundary_cause(standings, "2.0.1", "2.3.1") is None, "no range begins after 2.0.1"
    assert boundary_cause(standings, "1.12.1", "1.13.1") is None, "2.0 is not in (1.12.1, 1.13.1]"
    assert boundary_cause(standings, "1.13.1", "2.0.0") == CAUSE, "the boundary's own release is in the range"


def test_a_known_machine_failure_is_no_change_between_versions(tmp_path):
    proj = Project(tmp_path / "proj")
    proj.claim("optim.speed")
    paths = [proj.report("r1.json", "1.13.1", {"optim.speed": {"outcome": "failed", "reason": "call: slower"}}),
             proj.report("r2.json", "2.0.1", {"optim.speed": "passed"}),
             proj.report("r3.json", "2.1.2", {"optim.speed": "passed"})]
    m, md, _ = proj.build(*paths, evidence=False)
    assert [t.describe() for t in row(m, "optim.speed").transitions] == [
        "failed \u2192 holds: changed between 1.13.1 and 2.0.1"], "without the entry a failure is a change to look at"
    known = proj.root / "known-failures.toml"
    known.write_text('[[failure]]\nclaim = "optim.speed"\nrelease = "1.13.1"\nnote = "slow float32 GEMM on this CPU"\n')
    m, md, _ = proj.build(*paths, evidence=False, known=known)
    assert row(m, "optim.speed").transitions == []
    assert "No claim changed its measured behaviour between these versions." in md
    assert "known failure: slow float32 GEMM on this CPU" in md, "the failure itself is still listed, explained"


def test_the_committed_matrix_has_no_transition_for_the_known_float_gemm_failure():
    """The committed evidence (docs/matrix/reports) with docs/known-failures.toml: the 1.13.1 float32
    GEMM failure of dtype.float-faster-than-double is this machine's, not a change of torch."""
    import pathlib

    from harness.matrix import model, texts
    from spec_runner import ROOT

    reports = [model.load(p, committed=True) for p in sorted((ROOT / model.EVIDENCE_DIR).glob("*.json"))]
    m = model.merge(reports, rootdir=None)  # stale or not: the cells as measured
    texts.apply_known(m, texts.load_known(pathlib.Path(ROOT / "docs" / "known-failures.toml")))
    assert row(m, "dtype.float-faster-than-double").transitions == []


def test_claims_md_names_the_cause_next_to_the_range(tmp_path):
    proj, paths = _zero_grad_project(tmp_path)
    md = paths[1].with_suffix(".md").read_text(encoding="utf-8")
    line = next(ln for ln in md.splitlines() if ln.startswith("| `optim.zero`"))
    assert f"refuted from torch 2.0, why: {CAUSE}" in line, line
    doc = json.loads(paths[1].read_text(encoding="utf-8"))
    entry = next(c for c in doc["claims"] if c["id"] == "optim.zero")
    assert entry["causes"] == [{"range": "refuted from torch 2.0", "cause": CAUSE}]
    assert next(c for c in doc["claims"] if c["id"] == "optim.same")["causes"] == []


def test_the_html_detail_links_the_cause(tmp_path):
    proj, paths = _zero_grad_project(tmp_path)
    _, _, page_html = proj.build(*paths, evidence=False)
    detail = re.search(r'<template id="detail-optim\.zero">(.*?)</template>', page_html, re.S).group(1)
    assert "<h3>Why it changed</h3>" in detail
    assert (f'<li><b>refuted from torch 2.0:</b> <a href="{PR}" rel="noreferrer">{PR}</a> '
            "([nn] zero_grad() set_to_none default True)</li>") in detail, detail
    other = re.search(r'<template id="detail-optim\.same">(.*?)</template>', page_html, re.S).group(1)
    assert "Why it changed" not in other


def test_the_detail_link_opens_in_a_browser(tmp_path, page):  # noqa: F811
    proj, paths = _zero_grad_project(tmp_path)
    proj.build(*paths, evidence=False)
    page.goto((proj.root / "docs" / "matrix" / "claims-matrix.html").as_uri())
    page.click('#ranges button.open[data-claim="optim.zero"]')
    dialog = page.locator("dialog#detail")
    assert dialog.is_visible()
    link = dialog.locator("ul.causes a")
    assert link.count() == 1
    assert link.get_attribute("href") == PR
    assert link.is_visible()
    assert "refuted from torch 2.0:" in dialog.locator("ul.causes li").inner_text()
    assert page.errors == []
