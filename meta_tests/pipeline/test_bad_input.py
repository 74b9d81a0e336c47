"""Bad input the fault-injection run of issue 41 fed the harness, each answered by one clean line
naming what is wrong and where: `--claim ,,`; `provenance rekey` (and `rename`) on a missing or
truncated file; a matrix evidence record without an outcome. Real pytest processes on a mini
project, as test_harness_report_safety.py; the inventory's faults: test_inventory_errors.py."""
import json
import subprocess
import sys

import pytest

from harness.matrix import model
from spec_runner import MINI_CLAIM, MINI_HOLDS, MINI_TESTS, ROOT, plain_mini_project, run_plain

CLAIM, HOLDS, TESTS = MINI_CLAIM, MINI_HOLDS, MINI_TESTS
mini, run = plain_mini_project, run_plain


@pytest.mark.parametrize("value", [",,", " , "])
def test_claim_with_no_ids_is_a_usage_error(tmp_path, value):
    """Fault 6: red where `--claim ,,` selects nothing and so runs every test."""
    result = run(mini(tmp_path, CLAIM + HOLDS), f"--claim={value}")
    assert result.returncode == pytest.ExitCode.USAGE_ERROR, result.stdout[-2000:] + result.stderr[-2000:]
    assert f"--claim {value!r}: names no claim ID" in result.stderr, result.stderr
    assert "passed" not in result.stdout


@pytest.mark.parametrize("damage", ["missing", "truncated", "not-a-report"])
@pytest.mark.parametrize("command", ["rekey", "rename"])
def test_provenance_on_a_missing_or_truncated_file_is_one_line_exit_2(tmp_path, damage, command):
    """Fault 6: red where `python -m harness.evidence_files rekey` on such a file ends in a traceback
    (or, for a missing file, makes its folder and a .lock file)."""
    path = tmp_path / "gone" / "claims.json" if damage == "missing" else tmp_path / "claims.json"
    if damage == "truncated":
        path.write_text('{"schema": 3, "tests": {"tests/test_a.py::test_a": {"outc')
    elif damage == "not-a-report":
        path.write_text("[1, 2]")
    args = ["rekey", str(path)] if command == "rekey" else ["rename", "tests/a.py", "tests/b.py", str(path)]
    proc = subprocess.run([sys.executable, "-m", "harness.evidence_files", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert "Traceback" not in proc.stderr, proc.stderr
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith(f"python -m harness.evidence_files {command}: {path}: "), lines
    assert not (tmp_path / "gone").exists(), "a missing file's folder was made"


def test_a_matrix_evidence_record_without_an_outcome_is_refused_naming_file_and_test(tmp_path):
    """Fault 6: red where the matrix accepts the record (and writes it back as evidence)."""
    doc = json.loads((ROOT / "docs" / "matrix" / "reports" / "2.15.0.json").read_text(encoding="utf-8"))
    nodeid = sorted(doc["tests"])[0]
    del doc["tests"][nodeid]["outcome"]
    path = tmp_path / "2.15.0.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(model.MatrixError) as err:
        model.load(path, committed=True)
    assert str(err.value).startswith(f"{path}: test {nodeid}: its evidence record has no `outcome`"), err.value
