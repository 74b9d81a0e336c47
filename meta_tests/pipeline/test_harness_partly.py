"""The verdict partly: the inventory's standing, the claim(..., half=...) marker, the verdict that
needs a passed deciding test of each half, and the report that records the halves (schema 3)."""
import json

import pytest
import torch._dynamo  # noqa: F401  (see test_harness_pytester.py: keep it out of in-process runs)

from harness import inventory, rendering, report, verdicts
from spec_runner import write_mini_project

CLAIM = '[[claim]]\nid = "t.a"\nsource = ["n › s"]\nclaim = "c"\nchecklist_needs = ["cpu"]\ndecided_by = "cpu"\n'
PARTLY = CLAIM + 'standing = "partly"\ncorrection = "right for x; wrong for y"\n'


def load(tmp_path, body):
    (tmp_path / "t.toml").write_text('topic = "t"\ntitle = "T"\n' + body)
    return inventory.load(tmp_path)


def rec(outcome, half=None, role="deciding"):
    return {"nodeid": f"t.py::test_{half}", "outcome": outcome, "reason": "r" if outcome != "passed" else None,
            "inconclusive": None, "role": role, "device": "cpu", "half": half}


def test_vocabulary_is_spelt_once():
    assert verdicts.STANDINGS == ("holds", "partly", "refuted")
    assert inventory.STANDINGS is verdicts.STANDINGS
    assert verdicts.VERDICT_ORDER[:3] == verdicts.STANDINGS
    assert "partly" in verdicts.DECIDED
    assert report.VERDICT_ORDER is verdicts.VERDICT_ORDER  # the report's name for the one tuple, not a copy
    assert report.SCHEMA == 3
    assert set(report.MERGEABLE_SCHEMAS) == {2, 3}


def test_a_partly_standing_needs_a_correction_and_signature_is_a_boolean(tmp_path):
    with pytest.raises(inventory.InventoryError, match="a partly standing needs a one-sentence correction"):
        load(tmp_path, CLAIM + 'standing = "partly"\n')
    with pytest.raises(inventory.InventoryError, match="signature must be true or false"):
        load(tmp_path, PARTLY + 'signature = "yes"\n')
    claim = load(tmp_path, PARTLY + "signature = true\n")["t.a"]
    assert claim.ever_partly
    assert claim.signature
    assert claim.standing_for("2.14.1").correction


@pytest.mark.parametrize(
    "records, verdict, reason_part",
    [
        pytest.param([rec("passed", "holding"), rec("passed", "failing")], "partly", "decided on CPU",
                     id="both-halves"),
        pytest.param([rec("passed", "holding")], "not-run", "none of the failing half passed",
                     id="failing-half-missing"),
        pytest.param([rec("passed", "failing"), rec("skipped", "holding")], "not-run", "holding half",
                     id="holding-half-skipped"),
        pytest.param([rec("passed", "failing"), rec("failed", "holding")], "failed", "r", id="holding-half-red"),
        pytest.param([rec("passed", "holding"), rec("passed", "failing", role="supporting")], "not-run",
                     "failing half", id="a-supporting-half-decides-nothing"),
    ],
)
def test_partly_needs_a_passed_deciding_test_of_each_half(tmp_path, records, verdict, reason_part):
    got, standing, reason, _ = verdicts.verdict_for(load(tmp_path, PARTLY)["t.a"], records, "2.14.1")
    assert got == verdict, reason
    assert standing == (verdict if verdict == "partly" else None)
    assert reason_part in reason


def test_build_records_the_halves_counts_partly_and_renders_the_correction(tmp_path):
    inv = load(tmp_path, PARTLY)
    tests = {f"t.py::test_{h}": {"claims": ["t.a"], "halves": {"t.a": h}, "outcome": "passed", "reason": None,
                                 "figures": [], "inconclusive": None, "kind": {"gpus": 0}} for h in verdicts.HALVES}
    doc = report.build(inv, tests=tests, environment={"torch": "2.14.1"}, runs=[{"args": []}])
    (claim,) = doc["claims"]
    assert claim["verdict"] == "partly"
    assert claim["correction"] == "right for x; wrong for y"
    assert sorted(t["half"] for t in claim["tests"]) == ["failing", "holding"]
    assert doc["summary"]["partly"] == 1
    assert doc["summary"]["decided"] == 1
    assert doc["schema"] == 3
    doc["runs"], doc["environment"] = [], {"torch": "2.14.1"}
    assert rendering.summary_lines(doc)[0].startswith("claims: 1 decided (0 holds, 1 partly, 0 refuted)")
    row = "| **partly** | right for x; wrong for y (decided on CPU by test_failing, test_holding) |"
    assert row in rendering.render_markdown(doc)


INVENTORY = 'topic = "x"\ntitle = "Mini"\n' + PARTLY.replace("t.a", "x.p") + CLAIM.replace("t.a", "x.h") + \
    'standing = "holds"\n'
TESTS = """
import pytest

@pytest.mark.claim("x.p", half="holding")
def test_holding():
    pass

@pytest.mark.claim("x.p", half="failing")
def test_failing():
    pass
"""


@pytest.fixture
def project(pytester):
    return write_mini_project(pytester, INVENTORY, plugins=("fixtures.needs", "harness.claims_plugin"))


@pytest.mark.parametrize("xdist", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_a_run_records_each_tests_half_and_decides_partly(project, xdist):
    project.makepyfile(test_mini=TESTS)
    project.runpytest(*xdist).assert_outcomes(passed=2)
    doc = json.loads((project.path / "reports" / "claims.json").read_text())
    assert doc["tests"]["test_mini.py::test_holding"]["halves"] == {"x.p": "holding"}
    assert {c["id"]: c["verdict"] for c in doc["claims"]}["x.p"] == "partly"


def test_a_partly_claims_halves_may_be_spelt_as_roles(project):
    """decides="holds" / "left-out" on a partly claim's tests are its halves, as half= is: the
    report records them, lists each half's tests, and decides partly; on a claim that is never
    partly, decides="holds" is a role and no half."""
    roles_spelt = TESTS.replace('half="holding"', 'decides="holds"').replace('half="failing"', 'decides="left-out"')
    roles_spelt += '\n@pytest.mark.claim("x.h", decides="holds")\ndef test_holds():\n    pass\n'
    project.makepyfile(test_mini=roles_spelt)
    result = project.runpytest("--claim", "x.p")
    result.assert_outcomes(passed=2)
    doc = json.loads((project.path / "reports" / "claims.json").read_text())
    assert doc["tests"]["test_mini.py::test_holding"]["halves"] == {"x.p": "holding"}
    assert doc["tests"]["test_mini.py::test_failing"]["halves"] == {"x.p": "failing"}
    assert {c["id"]: c["verdict"] for c in doc["claims"]}["x.p"] == "partly"
    result.stdout.fnmatch_lines(["*holding half (the case the note states): test_holding passed",
                                 "*failing half (where the note fails): test_failing passed"])
    project.runpytest("--claim", "x.h").assert_outcomes(passed=1)
    doc = json.loads((project.path / "reports" / "claims.json").read_text())
    assert "halves" not in doc["tests"]["test_mini.py::test_holds"], doc["tests"]["test_mini.py::test_holds"]


@pytest.mark.parametrize(
    "marker, message",
    [
        pytest.param('claim("x.h", half="holding")',
                     "claim 'x.h' is marked with a half but no standing of it is partly",
                     id="half-on-a-claim-never-partly"),
        pytest.param('claim("x.p", half="both")', "must be one of ('holding', 'failing')", id="unknown-half"),
        pytest.param('claim("x.p", part="holding")', "optionally half=", id="unknown-keyword"),
    ],
)
def test_a_bad_half_is_a_collection_error(project, marker, message):
    project.makepyfile(test_bad=f"import pytest\n@pytest.mark.{marker}\ndef test_x():\n    pass\n")
    result = project.runpytest()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines([f"*{message}*"])
