"""`pytest --claim ID` answers every verdict: a partly claim prints both halves of its correction
and the tests that decided each half; a mistyped ID gets the three nearest IDs of the inventory
(difflib). On a small throw-away project (pytester), as test_harness_pytester.py."""
from __future__ import annotations

import pytest

from spec_runner import write_mini_project

INVENTORY = """
topic = "x"
title = "Mini"

[[claim]]
id = "x.half-right"
source = ["n \u203a s"]
claim = "adding 1 keeps the dtype"
checklist_needs = ["cpu"]
decided_by = "cpu"
standing = "partly"
correction = "Holds for float tensors (float + 1 stays float); but an integer tensor plus 1.5 becomes float."

[[claim]]
id = "x.half-left"
source = ["n \u203a s"]
claim = "other"
checklist_needs = ["cpu"]
decided_by = "cpu"
standing = "holds"

[[claim]]
id = "x.unrelated"
source = ["n \u203a s"]
claim = "other"
checklist_needs = ["cpu"]
decided_by = "cpu"
standing = "holds"
"""

TESTS = """
import pytest

@pytest.mark.claim("x.half-right", half="holding")
def test_float_plus_one_stays_float():
    pass

@pytest.mark.claim("x.half-right", half="failing")
def test_int_plus_a_float_becomes_float():
    pass

@pytest.mark.claim("x.half-left")
def test_left():
    pass

@pytest.mark.claim("x.unrelated")
def test_unrelated():
    pass
"""


@pytest.fixture
def project(pytester, monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    monkeypatch.setenv("PYTORCH_NVML_BASED_CUDA_CHECK", "1")
    return write_mini_project(pytester, INVENTORY, TESTS)


def test_claim_on_a_partly_claim_prints_both_halves_of_its_correction(project):
    result = project.runpytest("--claim", "x.half-right", "-p", "no:xdist")
    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines([
        "the claim of this run:",
        "  x.half-right: PARTLY \u2014 right in one case, wrong in another; the correction names both halves: "
        "Holds for float tensors (float + 1 stays float); but an integer tensor plus 1.5 becomes float. \u2014 "
        "decided on CPU by *",
        "    holding half (the case the note states): test_float_plus_one_stays_float passed",
        "    failing half (where the note fails): test_int_plus_a_float_becomes_float passed",
    ])


def test_a_mistyped_claim_id_gets_the_three_nearest_ids(project):
    result = project.runpytest("--claim", "x.half-rigth")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--claim: unknown claim ID 'x.half-rigth' "
                                 "(did you mean x.half-right, x.half-left, x.unrelated?)*"])
