"""End-to-end tests of the harness plugins on a small throw-away project (pytester)."""
import json
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent

INI = """
[pytest]
claims_inventory = claims
addopts = -p no:cacheprovider
markers =
    cpu: cpu
    gpu: gpu
    multigpu: multigpu
    distributed: distributed
    claim: claim
    needs: needs
"""

INVENTORY = """
topic = "x"
title = "Mini"

[[claim]]
id = "x.holds"
source = ["n › s"]
claim = "holds"
needs = ["cpu"]
standing = "holds"

[[claim]]
id = "x.refuted"
source = ["n › s"]
claim = "refuted"
needs = ["cpu"]
standing = "refuted"
correction = "the truth is otherwise"

[[claim]]
id = "x.both"
source = ["n › s"]
claim = "cpu and cuda"
needs = ["cpu"]
standing = "holds"

[[claim]]
id = "x.gpuonly"
source = ["n › s"]
claim = "needs many GPUs"
needs = ["multi-gpu"]
standing = "holds"

[[claim]]
id = "x.broken"
source = ["n › s"]
claim = "broken"
needs = ["cpu"]
standing = "holds"

[[claim]]
id = "x.untested"
source = ["n › s"]
claim = "no test"
needs = ["cpu"]
"""

TESTS = """
import pytest

@pytest.mark.claim("x.holds")
def test_holds():
    pass

@pytest.mark.claim("x.refuted")
def test_refuted():
    pass

@pytest.mark.claim("x.both")
def test_both(device):
    assert device in ("cpu", "cuda")

@pytest.mark.claim("x.gpuonly")
@pytest.mark.needs(gpus=8)
def test_gpuonly():
    pass

@pytest.mark.claim("x.broken", "x.holds")
def test_broken():
    assert 1 == 2, "actual 1, expected 2"

def test_unlinked():
    pass
"""


@pytest.fixture
def project(pytester):
    pytester.makeini(INI)
    # the harness package must be importable in the mini project's xdist workers too, which
    # start from the sys.path frozen when the outer pytest started (PYTHONPATH does not reach them)
    pytester.makeconftest(
        f"import sys\nsys.path.insert(0, {str(ROOT)!r})\n"
        'pytest_plugins = ["fixtures.needs", "fixtures.claims_plugin", "fixtures.state_guard"]\n'
    )
    (pytester.path / "claims").mkdir()
    (pytester.path / "claims" / "x.toml").write_text(INVENTORY)
    pytester.makepyfile(test_mini=TESTS)
    return pytester


def verdicts(pytester, name="reports/claims.json"):
    doc = json.loads((pytester.path / name).read_text())
    return doc, {c["id"]: c for c in doc["claims"]}


def test_verdicts_report_and_summary_line(project):
    result = project.runpytest()
    result.assert_outcomes(passed=4, failed=1, skipped=2)
    doc, claims = verdicts(project)
    assert {cid: c["verdict"] for cid, c in claims.items()} == {
        "x.holds": "failed",  # one of its two tests failed
        "x.refuted": "refuted",
        "x.both": "holds",
        "x.gpuonly": "not-run",
        "x.broken": "failed",
        "x.untested": "untested",
    }
    assert claims["x.refuted"]["correction"] == "the truth is otherwise"
    assert "actual 1, expected 2" in claims["x.broken"]["reason"]
    assert claims["x.gpuonly"]["reason"] == "needs 8 CUDA GPUs (found 0)"
    assert "not run here" in claims["x.both"]["reason"]
    assert {t["outcome"] for t in claims["x.both"]["tests"]} == {"passed", "skipped"}
    assert set(doc["environment"]) >= {"torch", "torchvision", "python", "platform", "cuda_available", "gpu_count"}
    for c in doc["claims"]:
        assert set(c) >= {"id", "verdict", "tests", "reason", "correction"}
    result.stdout.fnmatch_lines(["claims: 1 holds, 1 refuted, 1 not run, 2 failed, 1 untested*"])
    md = (project.path / "reports" / "claims.md").read_text()
    assert "## Mini (`x.*`)" in md and "| `x.refuted` | refuted | **refuted** | the truth is otherwise |" in md


def test_xdist_run_gives_the_same_verdicts_and_outcomes(project):
    project.runpytest("--claims-report=serial.json")
    result = project.runpytest("-n", "2", "--claims-report=parallel.json")
    result.assert_outcomes(passed=4, failed=1, skipped=2)
    _, serial = verdicts(project, "serial.json")
    _, parallel = verdicts(project, "parallel.json")
    for cid in serial:
        assert parallel[cid]["verdict"] == serial[cid]["verdict"], cid
        assert parallel[cid]["tests"] == serial[cid]["tests"], cid
    assert verdicts(project, "parallel.json")[0]["environment"]["torch"]


def test_unknown_claim_id_in_a_marker_is_a_collection_error(project):
    project.makepyfile(test_bad='import pytest\n@pytest.mark.claim("x.nope")\ndef test_x():\n    pass\n')
    result = project.runpytest()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*ERROR collecting test_bad.py*", "*unknown claim ID 'x.nope'*"])


def test_a_claim_with_tests_needs_a_recorded_standing(project):
    project.makepyfile(test_bad='import pytest\n@pytest.mark.claim("x.untested")\ndef test_x():\n    pass\n')
    result = project.runpytest()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*claim 'x.untested' has tests but no standing*"])


def test_claim_option_runs_only_linked_tests_and_reports_the_rest_deselected(project):
    result = project.runpytest("--claim", "x.refuted,x.gpuonly")
    result.assert_outcomes(passed=1, skipped=1, deselected=5)
    _, claims = verdicts(project)
    assert claims["x.refuted"]["verdict"] == "refuted"
    assert claims["x.holds"]["verdict"] == "not-run"
    assert claims["x.holds"]["reason"] == "deselected in this run (--claim x.refuted,x.gpuonly)"
    project.runpytest("--claim", "x.both", "--claim", "x.holds").assert_outcomes(passed=2, failed=1, skipped=1)


def test_unknown_claim_option_is_a_usage_error(project):
    result = project.runpytest("--claim", "x.holds,x.zzz")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--claim: unknown claim ID(s): x.zzz*"])


def test_cpu_and_gpu_markers_partition_the_suite(project):
    cpu = project.runpytest("-m", "cpu", "--collect-only", "-q").outlines
    gpu = project.runpytest("-m", "gpu", "--collect-only", "-q").outlines
    everything = project.runpytest("--collect-only", "-q").outlines
    ids = lambda lines: {ln for ln in lines if "::" in ln}
    assert ids(cpu) & ids(gpu) == set()
    assert ids(cpu) | ids(gpu) == ids(everything)
    assert ids(gpu) == {"test_mini.py::test_both[cuda]", "test_mini.py::test_gpuonly"}


def test_gpu_run_without_cuda_exits_zero_with_every_test_skipped_for_a_reason(project):
    result = project.runpytest("-m", "gpu", "-rs")
    assert result.ret == pytest.ExitCode.OK
    result.assert_outcomes(skipped=2, deselected=5)
    result.stdout.fnmatch_lines(["*needs a CUDA GPU (found 0)*", "*needs 8 CUDA GPUs (found 0)*"])


def test_state_guard_fails_a_leaking_test_and_restores_the_state(project):
    project.makepyfile(
        test_leak="""
import os
import torch

def test_1_leaks():
    torch.set_default_dtype(torch.float64)
    torch.backends.cudnn.benchmark = True
    os.environ["RANK"] = "3"

def test_2_sees_clean_state():
    assert torch.get_default_dtype() == torch.float32
    assert torch.backends.cudnn.benchmark is False
    assert "RANK" not in os.environ

def test_3_restores_with_monkeypatch(monkeypatch):
    monkeypatch.setattr(torch.backends.cudnn, "benchmark", True)
    monkeypatch.setenv("WORLD_SIZE", "2")
"""
    )
    result = project.runpytest("test_leak.py")
    result.assert_outcomes(passed=3, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*test_1_leaks leaked global torch state (restored now):*",
            "*default dtype: torch.float32 -> torch.float64*",
            "*cudnn.benchmark: False -> True*",
            "*env RANK: None -> '3'*",
        ]
    )
