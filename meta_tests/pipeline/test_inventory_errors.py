"""A broken claim inventory is one usage error naming the file, the claim and the key, never an
INTERNALERROR (issue 41's fault-injection run: a TOML syntax error, a version that is no version, an
ID that is no string), and a standing must cover every release of the matrix from the oldest on
(`since = "3.0"` alone was accepted: the claim read failed and pytest exited 0). Real pytest
processes on a mini project, as test_harness_report_safety.py."""

import pytest

from harness import inventory, releases
from spec_runner import MINI_CLAIM, MINI_HOLDS, MINI_TESTS, plain_mini_project, run_plain

CLAIM, HOLDS, TESTS = MINI_CLAIM, MINI_HOLDS, MINI_TESTS
mini, run = plain_mini_project, run_plain


OLDEST = releases.releases()[0].torch


@pytest.mark.parametrize(
    "claims, where",
    [
        pytest.param(CLAIM + 'standing = "holds\n', "x.toml: not valid TOML: ", id="toml-syntax"),
        pytest.param(CLAIM + '[[claim.standing]]\nbefore = "two"\nverdict = "holds"\n'
                     '[[claim.standing]]\nsince = "two"\nverdict = "refuted"\ncorrection = "c"\n',
                     "x.toml: x.a: standing before = 'two' is not a version", id="bad-version"),
        pytest.param(CLAIM.replace('id = "x.a"', "id = 7") + HOLDS,
                     "x.toml: claim 7: id must be a string", id="non-string-id"),
        pytest.param(CLAIM + '[[claim.standing]]\nsince = "3.0"\nverdict = "holds"\n',
                     "x.toml: x.a: standing: the first version range must be open below (no 'since') or begin at "
                     f"or before the oldest release of the matrix ({OLDEST}): since = '3.0'", id="since-alone"),
        pytest.param(CLAIM + '[[claim.standing]]\nbefore = "2.0"\nverdict = "holds"\n',
                     "x.toml: x.a: the last version range must be open above", id="before-alone"),
    ],
)
def test_a_bad_inventory_is_one_usage_error_naming_file_claim_and_key(tmp_path, claims, where):
    """Faults 3 and 4: red where a TOML syntax error, a bad version or a non-string ID end in an
    INTERNALERROR that names no file, and where a standing that covers no release of the matrix
    (`since = "3.0"` alone) is accepted (the claim then reads failed and pytest exits 0)."""
    project = mini(tmp_path, claims)
    result = run(project)
    assert result.returncode == pytest.ExitCode.USAGE_ERROR, result.stdout[-2000:] + result.stderr[-2000:]
    assert "INTERNALERROR" not in result.stdout + result.stderr, result.stdout[-2000:] + result.stderr[-2000:]
    assert f"claim inventory is invalid: {project / 'claims'}/{where}" in result.stderr, result.stderr
    assert "passed" not in result.stdout


def test_a_standing_that_begins_at_or_before_the_oldest_release_covers_the_matrix(tmp_path):
    path = mini(tmp_path, CLAIM + f'[[claim.standing]]\nsince = "{OLDEST}"\nverdict = "holds"\n') / "claims"
    assert inventory.load(path)["x.a"].standing_for(OLDEST).verdict == "holds"
