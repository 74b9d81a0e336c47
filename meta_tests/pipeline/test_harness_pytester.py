"""End-to-end tests of the harness plugins on a small throw-away project (pytester)."""
import json

import pytest

# pytester's in-process runs drop from sys.modules whatever was first imported inside them. Once
# imported, torch._dynamo wraps torch.manual_seed, and its import registers C++ operator libraries
# that cannot be registered twice: a later re-import after such a drop fails ("Only a single
# TORCH_LIBRARY ..."). Importing it here, at collection, before any in-process run (this module's,
# test_harness_partly.py's, which imports it too, and test_claim_option.py's), keeps it out of them.
import torch
import torch._dynamo  # noqa: F401

from spec_runner import MINI_PROJECT_INI as INI
from spec_runner import ROOT, write_mini_project

INVENTORY = """
topic = "x"
title = "Mini"

[[claim]]
id = "x.holds"
source = ["n › s"]
claim = "holds"
checklist_needs = ["cpu"]
decided_by = "cpu"
standing = "holds"

[[claim]]
id = "x.refuted"
source = ["n › s"]
claim = "refuted"
at = ["003:7-9"]
says = ["the note states it so"]
checklist_needs = ["cpu"]
decided_by = "cpu"
standing = "refuted"
correction = "the truth is otherwise"

[[claim]]
id = "x.both"
source = ["n › s"]
claim = "cpu and cuda"
checklist_needs = ["cpu"]
decided_by = "cpu"
standing = "holds"

[[claim]]
id = "x.gpuonly"
source = ["n › s"]
claim = "needs many GPUs"
checklist_needs = ["multi-gpu"]
decided_by = "multi-gpu"
standing = "holds"

[[claim]]
id = "x.broken"
source = ["n › s"]
claim = "broken"
checklist_needs = ["cpu"]
decided_by = "cpu"
standing = "holds"

[[claim]]
id = "x.untested"
source = ["n › s"]
claim = "no test"
checklist_needs = ["cpu"]
decided_by = "cpu"

[[claim]]
id = "x.cudaclaim"
source = ["n › s"]
claim = "about CUDA"
checklist_needs = ["gpu"]
decided_by = "gpu"
standing = "refuted"
correction = "CUDA does otherwise"
"""

TESTS = """
import pytest

@pytest.mark.claim("x.holds")
def test_holds():
    pass

@pytest.mark.claim("x.refuted", decides="wrong")
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

@pytest.mark.claim("x.cudaclaim")
def test_cudaclaim_cpu_side():
    pass

@pytest.mark.claim("x.cudaclaim")
@pytest.mark.needs(gpus=1)
def test_cudaclaim_on_a_gpu():
    pass
"""


@pytest.fixture
def project(pytester, monkeypatch):
    # the expectations are those of a machine without GPUs, also on a GPU machine: the mini project
    # (in this process and in its xdist workers) sees none. NVML's count honours the variable until
    # CUDA starts in this process; the CUDA runtime would read it once per process.
    assert not torch.cuda.is_initialized(), "CUDA started in this process: the mini project cannot hide the GPUs"
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    monkeypatch.setenv("PYTORCH_NVML_BASED_CUDA_CHECK", "1")
    return write_mini_project(pytester, INVENTORY, TESTS)


def verdicts(pytester, name="reports/claims.json"):
    doc = json.loads((pytester.path / name).read_text())
    return doc, {c["id"]: c for c in doc["claims"]}


def test_verdicts_report_and_summary_line(project):
    result = project.runpytest()
    result.assert_outcomes(passed=5, failed=1, skipped=3)
    doc, claims = verdicts(project)
    assert {cid: c["verdict"] for cid, c in claims.items()} == {
        "x.holds": "failed",  # one of its two tests failed
        "x.refuted": "refuted",
        "x.both": "holds",
        "x.gpuonly": "not-run",
        "x.broken": "failed",
        "x.untested": "untested",
        "x.cudaclaim": "not-run",  # its CPU test passed, but only a GPU test decides it
    }
    assert claims["x.refuted"]["correction"] == "the truth is otherwise"
    assert "actual 1, expected 2" in claims["x.broken"]["reason"]
    assert claims["x.gpuonly"]["reason"] == "needs 8 CUDA GPUs (found 0: no GPU)"
    assert claims["x.both"]["reason"] == (
        "decided on CPU by test_both[cpu]; "
        "test_both[cuda] (supporting) did not run: needs a CUDA GPU (found 0: no GPU)")
    assert {(t["outcome"], t["role"], t["device"]) for t in claims["x.both"]["tests"]} == {
        ("passed", "deciding", "cpu"), ("skipped", "supporting", "cuda")}
    assert claims["x.cudaclaim"]["reason"] == "needs a CUDA GPU (found 0: no GPU)"
    assert claims["x.cudaclaim"]["supporting"] == "supporting evidence ran: test_cudaclaim_cpu_side passed"
    assert set(doc["environment"]) >= {"torch", "torchvision", "python", "platform", "cuda_available", "gpu_count",
                                       "device", "machine", "fingerprint", "cuda_status"}
    for c in doc["claims"]:
        assert set(c) >= {"id", "verdict", "tests", "reason", "correction", "decided_by", "supporting"}
    result.stdout.fnmatch_lines([
        "claims: 2 decided (1 holds, 0 partly, 1 refuted), 2 not run, 2 failed, 1 untested*",
        "  not run (1): needs 8 CUDA GPUs (found 0: no GPU)",
    ])
    md = (project.path / "reports" / "claims.md").read_text()
    assert "## Mini (`x.*`)" in md
    assert "| `x.refuted` | Note 003, lines 7\u20139: \u201cthe note states it so\u201d | refuted | **refuted** " \
           "| the truth is otherwise" in md, "the note's lines, then the claim tested, then the verdict"
    assert "| `x.cudaclaim` |  | about CUDA | **not-run** | needs a CUDA GPU (found 0: no GPU) | " \
           "supporting passed: test_cudaclaim_cpu_side (decided by gpu) |" in md
    assert "deciding passed: test_both[cpu] (decided by cpu)" in md, "evidence by test name"


def test_xdist_run_gives_the_same_verdicts_and_outcomes(project):
    project.runpytest("--claims-report=serial.json")
    result = project.runpytest("-n", "2", "--claims-report=parallel.json")
    result.assert_outcomes(passed=5, failed=1, skipped=3)
    _, serial = verdicts(project, "serial.json")
    _, parallel = verdicts(project, "parallel.json")
    for cid in serial:
        assert parallel[cid]["verdict"] == serial[cid]["verdict"], cid
        assert parallel[cid]["tests"] == serial[cid]["tests"], cid
    assert verdicts(project, "parallel.json")[0]["environment"]["torch"]


EDITS_ITSELF = """
import os
import pathlib

import pytest

EXPECTED = 1


@pytest.mark.claim("x.holds")
def test_edits_its_own_file():
    path = pathlib.Path(__file__)
    path.write_text(path.read_text().replace("EXPECTED = 1", "EXPECTED = 2"))
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))  # a later mtime, whatever the clock
    assert EXPECTED == 1
"""


def test_evidence_is_stamped_with_the_source_that_ran_not_a_later_edit(project):
    """A test file edited while the run runs: the test's evidence carries the hash of the version
    that ran, so it reads stale against the edited file (rerun) instead of deciding for code that
    never ran. Red in a world where the stamp is taken from the file as it is when the report is
    written: the edited constant's hash, and the claim holds."""
    from harness import provenance

    project.path.joinpath("test_mini.py").unlink()
    project.makepyfile(test_edit=EDITS_ITSELF)
    nodeid = "test_edit.py::test_edits_its_own_file"
    ran = provenance.test_hash(project.path, nodeid)
    project.runpytest("-p", "no:xdist").assert_outcomes(passed=1)
    doc, claims = verdicts(project)
    now = provenance.test_hash(project.path, nodeid)
    assert (doc["tests"][nodeid]["source_hash"], claims["x.holds"]["verdict"]) == (ran, "not-run"), (
        f"stamped {doc['tests'][nodeid]['source_hash']} (as ran {ran}, as edited {now}); "
        f"x.holds reads {claims['x.holds']['verdict']}: expected the hash as ran and not-run (stale)")
    assert ran != now


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
    result.assert_outcomes(passed=1, skipped=1, deselected=7)
    _, claims = verdicts(project)
    assert claims["x.refuted"]["verdict"] == "refuted"
    assert claims["x.holds"]["verdict"] == "not-run"
    assert claims["x.holds"]["reason"] == "not selected by the run in this report (--claim x.refuted,x.gpuonly)"
    # the answer first: the claims asked for, the note's lines and one line each, before the report's summary
    result.stdout.fnmatch_lines([
        "*= claims =*", "the claims of this run:",
        "  x.refuted \u00b7 Note 003, lines 7\u20139: \u201cthe note states it so\u201d",
        "  x.refuted: REFUTED \u2014 correction: the truth is otherwise \u2014 decided on CPU by test_refuted",
        "  x.gpuonly: NOT-RUN \u2014 needs 8 CUDA GPUs (found 0: no GPU)",
        "claims: *",
    ])
    project.runpytest("--claim", "x.both", "--claim", "x.holds").assert_outcomes(passed=2, failed=1, skipped=1)
    _, claims = verdicts(project)
    assert claims["x.gpuonly"]["verdict"] == "not-run"
    # the reason is the same whichever run came last: every run's selection, sorted
    assert claims["x.untested"]["verdict"] == "untested"


def test_a_run_of_a_handful_of_claims_prints_a_line_per_claim_and_a_big_run_does_not(project):
    result = project.runpytest("-k", "holds or refuted")
    result.stdout.fnmatch_lines(["the claims of this run:",
                                 "  x.holds: HOLDS \u2014 decided on CPU by test_holds; "
                                 "test_broken (deciding) did not run: "
                                 "not selected by the run in this report (-k 'holds or refuted')",
                                 "  x.refuted: REFUTED \u2014 correction: the truth is otherwise*"])
    project.makepyfile(test_more="\n".join(
        f'import pytest\n@pytest.mark.claim("x.{c}")\ndef test_{c}_again():\n    pass\n'
        for c in ("holds", "refuted", "both", "broken", "cudaclaim", "gpuonly")))
    result = project.runpytest()
    assert "the claims of this run:" not in result.stdout.str()


def test_unknown_claim_option_is_a_usage_error(project):
    result = project.runpytest("--claim", "x.holds,x.zzz")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--claim: unknown claim ID 'x.zzz' (did you mean *?)*"])


def test_cpu_and_gpu_markers_partition_the_suite(project):
    cpu = project.runpytest("-m", "cpu", "--collect-only", "-q").outlines
    gpu = project.runpytest("-m", "gpu", "--collect-only", "-q").outlines
    everything = project.runpytest("--collect-only", "-q").outlines

    def ids(lines):
        return {ln for ln in lines if "::" in ln}

    assert ids(cpu) & ids(gpu) == set()
    assert ids(cpu) | ids(gpu) == ids(everything)
    assert ids(gpu) == {"test_mini.py::test_both[cuda]", "test_mini.py::test_gpuonly",
                        "test_mini.py::test_cudaclaim_on_a_gpu"}


def test_gpu_run_without_cuda_exits_zero_with_every_test_skipped_for_a_reason(project):
    result = project.runpytest("-m", "gpu", "-rs")
    assert result.ret == pytest.ExitCode.OK
    result.assert_outcomes(skipped=3, deselected=6)
    result.stdout.fnmatch_lines(["*needs a CUDA GPU (found 0: no GPU)*", "*needs 8 CUDA GPUs (found 0: no GPU)*"])


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


# --- one report per environment --------------------------------------------------------------


def test_runs_in_one_environment_add_up_in_one_report(project):
    project.runpytest("-m", "cpu", "-n", "2")
    _, after_cpu = verdicts(project)
    assert after_cpu["x.both"]["verdict"] == "holds"
    assert {t["outcome"] for t in after_cpu["x.cudaclaim"]["tests"]} == {"passed", "deselected"}
    before = (project.path / "reports" / "claims.json").read_bytes()
    project.runpytest("-m", "gpu")  # no GPU here: every selected test skips, nothing is executed
    assert (project.path / "reports" / "claims.json").read_bytes() == before, "a skip-only run rewrote the report"
    project.runpytest("-m", "gpu or cpu", "-k", "both")  # a run that executes tests adds them to the report
    doc, claims = verdicts(project)
    assert [r["markexpr"] for r in doc["runs"]] == ["cpu", "gpu or cpu"]
    # the CPU run's evidence is still there, and the second run added its skips with their reasons
    assert claims["x.both"]["verdict"] == "holds"
    assert {(t["nodeid"].split("::")[1], t["outcome"]) for t in claims["x.both"]["tests"]} == {
        ("test_both[cpu]", "passed"), ("test_both[cuda]", "skipped")}
    # rerunning one test replaces only its evidence
    project.makepyfile(test_mini=TESTS.replace('def test_refuted():\n    pass', 'def test_refuted():\n    assert 0'))
    project.runpytest("--claim", "x.refuted")
    doc, claims = verdicts(project)
    assert claims["x.refuted"]["verdict"] == "failed"
    assert claims["x.both"]["verdict"] == "holds"
    assert len(doc["runs"]) == 3


def test_a_run_that_drops_the_evidence_of_a_renamed_test_says_so(project):
    """The merge drops the evidence of a test that no longer exists (renamed, removed): the run says
    so and names the command that keeps a renamed test's evidence. Red in a world where it is dropped
    silently."""
    project.runpytest("-m", "cpu")
    project.makepyfile(test_mini=TESTS.replace("def test_refuted():", "def test_refuted_renamed():"))
    result = project.runpytest("-m", "cpu")
    result.stdout.fnmatch_lines(["the earlier evidence of 1 test(s) that no longer exist was dropped, e.g. "
                                 "test_mini.py::test_refuted (*python -m harness.evidence_files rename*"])
    assert "test_mini.py::test_refuted" not in verdicts(project)[0]["tests"]


def test_a_run_that_executes_no_test_leaves_the_report_untouched(project):
    project.runpytest()
    before = (project.path / "reports" / "claims.json").read_text()
    project.runpytest("--collect-only")
    project.runpytest("-m", "nothing_has_this_marker")
    assert (project.path / "reports" / "claims.json").read_text() == before


def test_a_report_of_another_environment_is_moved_aside_not_merged(project):
    project.runpytest("-m", "cpu")
    path = project.path / "reports" / "claims.json"
    doc = json.loads(path.read_text())
    doc["environment"]["fingerprint"] = "another-machine"
    doc["environment"]["machine"] = "elsewhere"
    path.write_text(json.dumps(doc))
    result = project.runpytest("--claim", "x.refuted")
    result.stdout.fnmatch_lines(["*the earlier report was moved aside to *claims.*.aside.json: "
                                 "it belongs to another environment (torch * on elsewhere, *)*"])
    (aside,) = path.parent.glob("claims.*.aside.json")
    assert json.loads(aside.read_text()) == doc
    doc, claims = verdicts(project)
    assert len(doc["runs"]) == 1
    assert claims["x.both"]["verdict"] == "not-run"

HANGING_GPU_TEST = """
import time
import pytest

@pytest.mark.gpu
def test_waits_forever():
    time.sleep(60)

@pytest.mark.gpu
def test_quick():
    pass
"""


def test_a_gpu_test_past_gpu_test_timeout_fails_with_the_stacks(pytester):
    """The per-test limit of GPU tests (fixtures/gpu.py): a tiny gpu_test_timeout fires, the test
    fails naming the limit, the stacks (the test's own frame among them) are its captured stderr, and the
    next test runs."""
    pytester.makeini(INI + "gpu_test_timeout = 1\n")
    pytester.makeconftest(f"import sys\nsys.path.insert(0, {str(ROOT)!r})\npytest_plugins = ['fixtures.gpu']\n")
    pytester.makepyfile(test_hang=HANGING_GPU_TEST)
    result = pytester.runpytest_subprocess(timeout=60)
    result.assert_outcomes(passed=1, failed=1)
    # the stacks are the failing test's captured stderr, in the report
    result.stdout.fnmatch_lines(["*GpuTestTimeout: test_hang.py::test_waits_forever ran past gpu_test_timeout = 1 s*",
                                 "*Captured stderr call*", "*ran past gpu_test_timeout = 1 s; the stacks:*",
                                 "*test_hang.py*in test_waits_forever*"])


def test_a_run_that_executes_no_claim_linked_test_leaves_the_report_byte_for_byte(project):
    """Every selected test skipped (the GPU spec on a machine without a GPU): the report is not
    rewritten, and the run says so (red where a skip-only run rewrites it)."""
    project.runpytest("-k", "holds or refuted").assert_outcomes(passed=2, deselected=7)
    report = project.path / "reports" / "claims.json"
    before = report.read_bytes()
    result = project.runpytest("-k", "gpuonly")
    result.assert_outcomes(skipped=1, deselected=8)
    assert report.read_bytes() == before, "a run that executed no claim-linked test rewrote the report"
    result.stdout.fnmatch_lines(["claims report not written: no claim-linked test executed (1 skipped): *"])


def test_a_gpu_run_without_a_usable_gpu_says_so_in_its_header(project):
    result = project.runpytest("-m", "gpu")
    header = result.stdout.lines[:6]
    assert any(line.startswith("no usable CUDA GPU here (no GPU): every GPU test will skip") for line in header), header
    assert not any("no usable CUDA GPU" in line for line in project.runpytest("-m", "cpu").stdout.lines)
