"""The evidence model (harness/evidence.py): the one rule by which later evidence of a test
replaces earlier evidence, the one description of what a run selected, and notes as values."""
import pathlib

import pytest

from harness import evidence, report
from harness.matrix import column_evidence, model

OUTCOMES = ("passed", "failed", "error", "xfailed", "skipped", "deselected")
# what later evidence may replace: an executed result anything, a skip a skip or a deselection,
# a deselection only a deselection (it fills a gap)
REPLACES = {
    "executed": {"passed", "failed", "error", "xfailed", "skipped", "deselected"},
    "skipped": {"skipped", "deselected"},
    "deselected": {"deselected"},
}


def _kind(outcome: str) -> str:
    return outcome if outcome in ("skipped", "deselected") else "executed"


@pytest.mark.parametrize("old", OUTCOMES)
@pytest.mark.parametrize("new", OUTCOMES)
def test_later_evidence_replaces_earlier_evidence_by_one_rule(old, new):
    """evidence.replaces() decides, and report.merge (a run added to its report) and the matrix's
    gather (the reports of a column) both follow it: red in a world where either keeps a rule of
    its own that differs (a skip that undoes a passed benchmark, a deselection that hides a result)."""
    want = old in REPLACES[_kind(new)]
    assert evidence.replaces({"outcome": new}, {"outcome": old}) is want, f"{new} over {old}: expected {want}"
    assert evidence.replaces({"outcome": new}, None), "any evidence fills a gap"
    nodeid = "a.py::t"
    env = {"torch": "2.14.1", "fingerprint": "fp", "device": "cpu"}
    first = {"schema": report.SCHEMA, "environment": env, "runs": [{"args": [], "finished": "2026-01-01T00:00:00"}],
             "tests": {nodeid: {"claims": ["t.a"], "outcome": old, "run": 0}}}
    merged, _ = report.merge(first, {nodeid: {"claims": ["t.a"], "outcome": new}}, collected={nodeid})
    second = {**first, "runs": [{"args": ["-x"], "finished": "2026-01-02T00:00:00"}],
              "tests": {nodeid: {"claims": ["t.a"], "outcome": new, "run": 0}}}
    gathered = column_evidence.gather([model.Report(pathlib.Path("one.json"), first),
                                       model.Report(pathlib.Path("two.json"), second)])
    kept = new if want else old
    assert (merged[nodeid]["outcome"], gathered.tests[nodeid]["outcome"]) == (kept, kept), (
        f"{new} laid over {old}: report.merge kept {merged[nodeid]['outcome']}, the matrix kept "
        f"{gathered.tests[nodeid]['outcome']}; expected {kept} in both")


@pytest.mark.parametrize("run, options, partial, shown", [
    pytest.param({"args": ["-m", "cpu", "-n", "2"], "markexpr": "cpu"}, "-m 'cpu'", None, "-m cpu -n 2", id="cpu"),
    pytest.param({"args": ["--claim", "a.b", "--claims-report=out/x.json"], "claims": ["a.b"]}, "--claim a.b",
                 "--claim a.b", "--claim a.b", id="claim"),
    pytest.param({"args": ["tests/test_x.py", "-k", "y"], "keyword": "y"}, "-k 'y'", "-k, named tests",
                 "tests/test_x.py -k y", id="named-k"),
    pytest.param({"args": ["--claims-report", "r.json"]}, "pytest --claims-report r.json", None, "(all)", id="bare"),
])
def test_a_runs_selection_is_described_once(run, options, partial, shown):
    sel = evidence.Selection.of(run)
    assert (sel.options(), sel.partial(), sel.shown_args()) == (options, partial, shown)


def test_not_selected_names_every_runs_selection_once():
    runs = [{"markexpr": "cpu"}, {"markexpr": "gpu"}, {"markexpr": "cpu"}]
    assert evidence.not_selected(runs) == "not selected by the runs in this report (-m 'cpu'; -m 'gpu')"
    assert evidence.not_selected(runs[:1]) == "not selected by the run in this report (-m 'cpu')"


def test_notes_stay_values_until_they_are_rendered():
    """A note's text may hold the separator that joins notes: it is never split back."""
    notes = [evidence.Note("failure", "call: a | b"), evidence.Note(None, "supporting ran")]
    assert evidence.joined_notes(notes) == "failure: call: a | b | supporting ran"
    assert [n.text for n in notes] == ["call: a | b", "supporting ran"]
