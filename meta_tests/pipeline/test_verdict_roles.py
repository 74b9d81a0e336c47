"""Declared roles (harness/roles.py, docs/verdict-rules.md rule 1): each deciding test says what it
decides, the verdict follows from which roles passed, and every standing in the inventory agrees
with the roles its tests declare (red in a world where one standing disagrees)."""
from __future__ import annotations

import dataclasses
import json

import pytest

from harness import inventory, roles, verdicts
from spec_runner import ROOT, write_mini_project

INV = inventory.load()
DECLARED = roles.declared(ROOT / "tests")


def rec(outcome, decides=None, half=None, name="t"):
    return {"nodeid": f"t.py::test_{name}", "outcome": outcome, "reason": None if outcome == "passed" else "r",
            "inconclusive": None, "role": "deciding", "device": "cpu", "half": half, "decides": decides}


def claim(standing, correction="c"):
    return inventory.Claim(id="x.c", topic="x", source=("n › s",), text="t", checklist_needs=("cpu",),
                           decided_by="cpu",
                           standings=(inventory.Standing(standing, None if standing == "holds" else correction),))


@pytest.mark.parametrize(
    "standing, records, verdict, reason_part",
    [
        pytest.param("refuted", [rec("passed", "wrong", name="w")], "refuted", None, id="refuted-by-a-wrong-test"),
        pytest.param("refuted", [rec("passed", name="d")], "not-run",
                     "the tests that passed declare no role: they only confirm", id="an-undeclared-test-never-refutes"),
        pytest.param("refuted", [rec("passed", "by-version", name="v")], "refuted", None,
                     id="refuted-by-a-by-version-test-in-its-refuted-range"),
        pytest.param("holds", [rec("passed", "by-version", name="v")], "holds", None,
                     id="holds-by-a-by-version-test-in-its-holding-range"),
        pytest.param("refuted", [rec("passed", "holds", name="true_part"), rec("skipped", name="w")], "not-run",
                     "refuted needs a passed deciding test that shows the stated case is wrong",
                     id="a-true-part-alone-never-refutes"),
        pytest.param("holds", [rec("passed", name="h")], "holds", None, id="holds-by-default-role"),
        pytest.param("partly", [rec("passed", "holds"), rec("passed", "left-out", name="l")], "partly", None,
                     id="partly-by-declared-roles"),
        pytest.param("partly", [rec("passed", half="holding"), rec("passed", half="failing", name="f")], "partly",
                     None, id="partly-by-halves"),
        pytest.param("partly", [rec("passed", "holds")], "not-run", "none of the failing half passed",
                     id="partly-without-left-out"),
        pytest.param("partly", [rec("passed")], "not-run", "none of the holding or failing half passed",
                     id="partly-undeclared"),
    ],
)
def test_the_verdict_follows_from_the_roles_that_passed(standing, records, verdict, reason_part):
    got, _, reason, _ = verdicts.verdict_for(claim(standing), records, "2.14.1")
    assert got == verdict, f"{standing} with {records}: got {got!r} ({reason}), expected {verdict!r}"
    if reason_part:
        assert reason_part in reason, f"reason {reason!r} lacks {reason_part!r}"


def test_a_true_part_selected_alone_names_the_missing_role():
    """The run of one test that only confirms what the note gets right (data.timeout's default)."""
    cl = INV["data.timeout"]
    records = [{**rec("passed", name="timeout_defaults_to_zero_and_must_be_non_negative"),
                "decides": roles.declared_role(ROOT, nodeid, "data.timeout")}
               for nodeid in ["tests/test_data_loader.py::test_timeout_defaults_to_zero_and_must_be_non_negative"]]
    assert records[0]["decides"] == "holds", records
    verdict, _, reason, _ = verdicts.verdict_for(cl, records, "2.14.1")
    assert verdict == "not-run", (verdict, reason)
    assert "shows the stated case is wrong" in reason, reason


def test_the_confirming_tests_of_a_refuted_claim_run_alone_never_read_refuted():
    """Every test of every claim that stands refuted for the pinned torch, taken alone and passed
    under the role it declares now: only a test that declares `wrong` (or `by-version`) refutes."""
    read_refuted = []
    for cid, cl in INV.claims.items():
        standing = cl.standing_for("2.14.1")
        if standing is None or standing.verdict != "refuted":
            continue
        for test, role in DECLARED.get(cid, []):
            verdict, *_ = verdicts.verdict_for(cl, [rec("passed", role, name=test.split("::")[-1])], "2.14.1")
            if verdict == "refuted" and role not in ("wrong", "by-version"):
                read_refuted.append(f"{cid}: {test} (declares {role!r})")
    assert not read_refuted, "confirming tests that decide a refutation alone:\n" + "\n".join(read_refuted)


def test_every_standing_agrees_with_its_tests_declared_roles():
    problems = roles.disagreements(INV, DECLARED)
    assert not problems, "\n".join(problems)


def _with(cid, *standings):
    claims = dict(INV.claims)
    claims[cid] = dataclasses.replace(INV[cid], standings=tuple(standings))
    return inventory.Inventory(claims=claims, titles=INV.titles)


@pytest.mark.parametrize(
    "cid, standing, message",
    [
        # a partly claim read as refuted: its left-out test declares a role no standing uses
        pytest.param("tensor.vstack-hstack", inventory.Standing("refuted", "c"),
                     "no standing of the claim is partly", id="partly-claim-standing-refuted"),
        # a refuted claim whose only true-part test could decide it is never refuted by it
        pytest.param("data.timeout", inventory.Standing("holds"),
                     "decides that the stated case is wrong", id="refuted-claim-standing-holds"),
        # a holds claim read as partly: no test declares a left-out condition
        pytest.param("nn.dropout-train-eval", inventory.Standing("partly", "c"),
                     "a condition the note leaves out fails", id="holds-claim-standing-partly"),
    ],
)
def test_the_agreement_check_goes_red_when_one_standing_disagrees(cid, standing, message):
    problems = roles.disagreements(_with(cid, standing), DECLARED)
    assert any(p.startswith(cid + ":") and message in p for p in problems), problems


def test_declared_roles_are_read_from_the_markers(tmp_path):
    (tmp_path / "test_x.py").write_text(
        "import pytest\n"
        "@pytest.mark.claim('x.a', decides='holds')\n@pytest.mark.claim('x.b')\ndef test_one(): pass\n"
        "@pytest.mark.claim('x.p', half='failing')\nclass TestK:\n    def test_two(self): pass\n",
        encoding="utf-8")
    assert roles.declared(tmp_path) == {"x.a": [("test_x.py::test_one", "holds")],
                                        "x.b": [("test_x.py::test_one", None)],
                                        "x.p": [("test_x.py::TestK::test_two", "left-out")]}


MINI_INVENTORY = """topic = "x"
title = "Mini"

[[claim]]
id = "x.refuted"
source = ["n › s"]
claim = "the note's statement"
checklist_needs = ["cpu"]
decided_by = "cpu"
standing = "refuted"
correction = "the truth is otherwise"
"""

MINI_TESTS = """import pytest

@pytest.mark.claim("x.refuted")
def test_the_case_where_the_note_is_right():
    pass

@pytest.mark.claim("x.refuted", decides="wrong")
def test_the_stated_case_is_wrong():
    pass
"""


def test_a_refuted_claims_confirming_test_run_alone_reads_not_run_and_its_refuting_test_refutes(pytester):
    """A real pytest run of a refuted claim's tests, one at a time: the undeclared (confirming)
    test alone leaves the claim not-run, naming the missing role; the `wrong` test refutes it."""
    write_mini_project(pytester, MINI_INVENTORY, MINI_TESTS)
    for selected, verdict in (("right", "not-run"), ("wrong", "refuted")):
        report = pytester.path / f"{selected}.json"
        pytester.runpytest("-p", "no:cacheprovider", "-k", selected, f"--claims-report={report}").assert_outcomes(
            passed=1, deselected=1)
        (entry,) = json.loads(report.read_text())["claims"]
        assert entry["verdict"] == verdict, (selected, entry["verdict"], entry["reason"])
        if verdict == "not-run":
            assert "they only confirm" in entry["reason"], entry["reason"]
