"""Deprecations seen by the run (docs/verdict-rules.md, rule 3 and its scope).

Every claim-linked test's record carries the warnings it raised and did not assert with
pytest.warns (`warnings`: category and message, harness/session.py). A claim that reads holds in a
column while one of its deciding tests met a DeprecationWarning or FutureWarning there either
relies on a deprecated API (rule 3: partly in that range) or its inventory entry says why the
warning leaves it holds (`deprecation`: a coming default that does not change what it states, a
warning of another library than the one it states). Red in a world where a holds claim's test meets
a deprecation and nobody wrote why.
"""
from __future__ import annotations

import json

from harness import inventory, verdicts
from spec_runner import ROOT, write_mini_project

DEPRECATIONS = ("DeprecationWarning", "FutureWarning")
COLUMNS = ROOT / "docs" / "matrix" / "reports"


def unexplained(inv, evidence: dict, release: str) -> list[str]:
    """Holds claims of `release` whose passed deciding tests met a deprecation and whose entry has
    no `deprecation` line: "claim: test: Category: message"."""
    out = []
    for nodeid, rec in evidence.get("tests", {}).items():
        warned = [w for w in rec.get("warnings") or [] if w.get("category") in DEPRECATIONS]
        if not warned or rec.get("outcome") != "passed":
            continue
        for cid in rec.get("claims", []):
            claim = inv.claims.get(cid)
            standing = claim.standing_for(release) if claim else None
            if (standing is None or standing.verdict != "holds" or claim.deprecation
                    or verdicts.role_of(claim, rec.get("kind")) != "deciding"):
                continue
            out += [f"{cid}: {nodeid.rsplit('::', 1)[-1]}: {w['category']}: {w['message'][:120]}" for w in warned]
    return out


def test_no_holds_claim_meets_a_deprecation_its_entry_does_not_explain():
    inv = inventory.load()
    found = []
    for path in sorted(COLUMNS.glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        release = path.stem.split("-", 1)[0]
        found += [f"{path.name}: {line}" for line in unexplained(inv, doc, release)]
    assert not found, ("holds claims whose deciding tests met a deprecation, with no `deprecation` line in "
                       "their inventory entry saying why they still hold (rule 3):\n" + "\n".join(found))


MINI_INVENTORY = """topic = "x"
title = "Mini"

[[claim]]
id = "x.warns"
source = ["n › s"]
claim = "old_api() works"
checklist_needs = ["cpu"]
decided_by = "cpu"
standing = "holds"

[[claim]]
id = "x.explained"
source = ["n › s"]
claim = "load() works"
checklist_needs = ["cpu"]
decided_by = "cpu"
standing = "holds"
deprecation = "the warning announces a coming default under which what the claim states still holds"
"""

MINI_TESTS = """import warnings

import pytest


def old_api():
    warnings.warn("old_api is deprecated, use new_api", FutureWarning, stacklevel=2)
    return 1


@pytest.mark.claim("x.warns")
def test_old_api_works():
    assert old_api() == 1


@pytest.mark.claim("x.explained")
def test_load_works():
    warnings.warn("the default will change", FutureWarning, stacklevel=1)


@pytest.mark.claim("x.warns")
def test_a_warning_the_test_asserts_is_not_recorded():
    with pytest.warns(FutureWarning):
        old_api()
"""


def test_a_run_records_each_tests_warnings_and_an_unexplained_deprecation_is_listed(pytester):
    write_mini_project(pytester, MINI_INVENTORY, MINI_TESTS)
    report = pytester.path / "r.json"
    pytester.runpytest("-p", "no:cacheprovider", f"--claims-report={report}").assert_outcomes(passed=3)
    doc = json.loads(report.read_text())
    warned = {n.rsplit("::", 1)[-1]: [w["category"] for w in t.get("warnings", [])] for n, t in doc["tests"].items()}
    assert warned == {"test_old_api_works": ["FutureWarning"], "test_load_works": ["FutureWarning"],
                      "test_a_warning_the_test_asserts_is_not_recorded": []}, warned
    inv = inventory.load(pytester.path / "claims")
    assert unexplained(inv, doc, "2.14.1") == [
        "x.warns: test_old_api_works: FutureWarning: old_api is deprecated, use new_api"]
