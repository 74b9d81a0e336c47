"""Unit tests of the harness's pure parts: inventory validation, version ranges, verdicts."""
import pathlib
import re

import pytest

from fixtures import inventory, report, versions
from fixtures.needs import missing

CHECKLIST = pathlib.Path(__file__).resolve().parents[2] / "shared" / "claims-checklist.md"


def write_inventory(tmp_path, body, topic="t"):
    (tmp_path / f"{topic}.toml").write_text(f'topic = "{topic}"\ntitle = "T"\n' + body)
    return tmp_path


CLAIM = '[[claim]]\nid = "t.a"\nsource = ["n › s"]\nclaim = "c"\nneeds = ["cpu"]\n'


def test_versions_compare_release_numbers_not_strings():
    assert versions.parse("2.14.1+cu130") == (2, 14, 1)
    assert versions.parse("2.0") == (2, 0, 0) == versions.parse("2.0.0a0")
    assert versions.in_range("2.10.0", since="2.9") and not versions.in_range("2.10.0", before="2.9")
    assert versions.in_range("1.13.1", before="2.0") and not versions.in_range("2.0.1", before="2.0")


def test_real_inventory_loads_and_holds_every_checklist_id():
    inv = inventory.load()
    if not CHECKLIST.exists():
        pytest.skip(f"needs the claims checklist at {CHECKLIST}")
    ids = set(re.findall(r"^\| `([a-z]+\.[a-z0-9-]+)` \|", CHECKLIST.read_text(), flags=re.M))
    assert len(ids) == 331
    assert ids <= set(inv.claims), f"missing from the inventory: {sorted(ids - set(inv.claims))}"
    extra = {cid for cid in inv.claims if cid not in ids}
    assert all(inv[cid].added for cid in extra), f"claims not in the checklist must say added = true: {extra}"


@pytest.mark.parametrize(
    "body, message",
    [
        pytest.param(CLAIM + CLAIM, "duplicate claim ID", id="duplicate"),
        pytest.param(CLAIM + 'standing = "refuted"\n', "needs a one-sentence correction", id="refuted-no-correction"),
        pytest.param(CLAIM + 'standing = "maybe"\n', "standing verdict must be one of", id="bad-verdict"),
        pytest.param(CLAIM + 'colour = "red"\n', "unknown keys", id="unknown-key"),
        pytest.param(CLAIM.replace('["cpu"]', '["tpu"]'), "unknown need", id="unknown-need"),
        pytest.param(CLAIM.replace("t.a", "x.a"), "must start with", id="wrong-prefix"),
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


def ranged_claim(tmp_path):
    body = CLAIM + (
        '[[claim.standing]]\nbefore = "2.0"\nverdict = "holds"\n'
        '[[claim.standing]]\nsince = "2.0"\nverdict = "refuted"\ncorrection = "now None"\n'
    )
    return inventory.load(write_inventory(tmp_path, body))["t.a"]


def run(outcome, reason=None, inconclusive=None, nodeid="t.py::test_x"):
    return {"nodeid": nodeid, "outcome": outcome, "reason": reason, "inconclusive": inconclusive}


@pytest.mark.parametrize(
    "runs, version, verdict, reason_part",
    [
        pytest.param([], "2.14.1", "untested", None, id="no-test"),
        pytest.param([run("passed")], "1.13.1", "holds", None, id="passed-old-torch"),
        pytest.param([run("passed")], "2.14.1", "refuted", None, id="passed-new-torch"),
        pytest.param([run("passed"), run("skipped", "needs a CUDA GPU (found 0)")], "2.14.1", "refuted",
                     "not run here: needs a CUDA GPU", id="passed-and-skipped"),
        pytest.param([run("skipped", "needs a CUDA GPU (found 0)"), run("deselected", "needs a CUDA GPU (found 0)")],
                     "2.14.1", "not-run", "needs a CUDA GPU (found 0)", id="all-skipped"),
        pytest.param([run("passed"), run("failed", "call: assert 1 == 2")], "2.14.1", "failed", "assert 1 == 2",
                     id="one-failed"),
        pytest.param([run("error", "setup: leaked global torch state")], "2.14.1", "failed", "leaked", id="error"),
        pytest.param([run("xfailed", "xfail: known")], "2.14.1", "failed", "xfail", id="xfail-is-not-a-pass"),
        pytest.param([run("passed", inconclusive="ratio 1.02 within noise")], "2.14.1", "inconclusive", "noise",
                     id="inconclusive-benchmark"),
    ],
)
def test_verdict_for_every_outcome_mix(tmp_path, runs, version, verdict, reason_part):
    got, _, reason = report.verdict_for(ranged_claim(tmp_path), runs, version)
    assert got == verdict
    if reason_part:
        assert reason_part in reason
    else:
        assert reason is None


def test_report_build_counts_every_claim_and_carries_corrections(tmp_path):
    inv = inventory.load(write_inventory(tmp_path, CLAIM.replace("t.a", "t.b") + CLAIM.replace(
        '["cpu"]\n', '["cpu"]\nstanding = "refuted"\ncorrection = "the truth"\n')))
    doc = report.build(
        inv,
        tests={"t.py::test_a": {"claims": ["t.a"], "outcome": "passed", "reason": None, "figures": [
            {"name": "speedup", "value": 2.5, "unit": "x"}], "inconclusive": None}},
        deselected={},
        environment={"torch": "2.14.1"},
        run={"args": []},
    )
    by_id = {c["id"]: c for c in doc["claims"]}
    assert by_id["t.a"]["verdict"] == "refuted" and by_id["t.a"]["correction"] == "the truth"
    assert by_id["t.a"]["figures"][0]["value"] == 2.5
    assert by_id["t.b"]["verdict"] == "untested"
    assert doc["summary"]["refuted"] == 1 and doc["summary"]["untested"] == 1
    md = report.render_markdown(doc)
    assert "| `t.a` |" in md and "the truth" in md and "speedup = 2.5x" in md


def test_needs_reasons_list_everything_missing(monkeypatch):
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    needs = {"gpus": 2, "min_torch": "99.0", "max_torch": "1.0", "libs": ["no_such_lib_xyz"], "network": True,
             "processes": False, "serial": True}
    reasons = missing(needs, found_gpus=1, torch_version="2.14.1")
    assert reasons == [
        "needs 2 CUDA GPUs (found 1)",
        "needs torch >= 99.0 (found 2.14.1)",
        "needs torch < 1.0 (found 2.14.1)",
        "needs optional library no_such_lib_xyz (not installed)",
        "needs network access (the spec runs offline)",
        "needs a serial run (-p no:xdist), not an xdist worker",
    ]
    monkeypatch.delenv("PYTEST_XDIST_WORKER")
    met = {"gpus": 0, "min_torch": "1.0", "max_torch": None, "libs": ["json"], "network": False, "processes": True,
           "serial": True}
    assert missing(met, found_gpus=0, torch_version="2.14.1") == []
