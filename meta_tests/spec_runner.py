"""Helpers for the harness's own tests.

`run_spec` runs the real spec in a fresh Python process and returns what it reported;
with `patch=...` the process first executes that code as a plugin, to put torch into a
"wrong world" where a claim's stated behaviour is different. A wrong-world check asserts
that the claim's tests go red there: a test that stays green in the wrong world checks
nothing.

Without a test path among the arguments, the run collects only the spec files that mention
one of the `--claim` IDs: it imports only what it needs and is not disturbed by other files.
"""
from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import textwrap
from dataclasses import dataclass

ROOT = pathlib.Path(__file__).resolve().parent.parent


@dataclass
class SpecRun:
    returncode: int
    output: str
    report: dict | None

    def claim(self, cid: str) -> dict:
        __tracebackhide__ = True
        assert self.report is not None, f"the spec wrote no claims report; output:\n{self.output[-3000:]}"
        for c in self.report["claims"]:
            if c["id"] == cid:
                return c
        raise AssertionError(f"{cid} is not in the report")

    def verdict(self, cid: str) -> str:
        return self.claim(cid)["verdict"]


def claim_files(args) -> list[str]:
    """The spec files linked to the --claim IDs in args, unless args already name a path."""
    if any(a.startswith("tests") or a.endswith(".py") for a in args):
        return []
    ids = [c.strip() for i, a in enumerate(args) if i and args[i - 1] == "--claim" for c in a.split(",")]
    ids += [c.strip() for a in args if a.startswith("--claim=") for c in a[len("--claim="):].split(",")]
    files = sorted(
        str(path.relative_to(ROOT))
        for path in (ROOT / "tests").glob("test_*.py")
        if any(f'"{cid}"' in path.read_text(encoding="utf-8") for cid in ids)
    )
    return files


def make_runner(tmp_path: pathlib.Path):
    """run(*pytest_args, patch=None, timeout=120) -> SpecRun, run from the project root."""

    def run(*args: str, patch: str | None = None, timeout: float = 120) -> SpecRun:
        report = tmp_path / "claims.json"
        report.unlink(missing_ok=True)  # each run reports alone (runs of one environment would add up)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "HYPOTHESIS_"))}
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--claims-report={report}"]
        if patch is not None:
            (tmp_path / "wrong_world_patch.py").write_text(textwrap.dedent(patch))
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tmp_path), env.get("PYTHONPATH")]))
            cmd += ["-p", "wrong_world_patch"]
        proc = subprocess.run(
            cmd + list(args) + claim_files(args), cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout
        )
        doc = json.loads(report.read_text()) if report.exists() else None
        return SpecRun(proc.returncode, proc.stdout + proc.stderr, doc)

    return run


def assert_goes_red(run: SpecRun, cid: str, *fragments: str) -> None:
    """The claim's tests failed in the wrong world, for the reason its assertions give."""
    __tracebackhide__ = True
    claim = run.claim(cid)
    assert claim["verdict"] == "failed", (
        f"{cid} stayed {claim['verdict']!r} in the wrong world: its tests check nothing.\n{run.output[-2000:]}"
    )
    assert run.returncode == 1, f"pytest exit status {run.returncode}, expected 1 (tests failed)"
    for fragment in fragments:
        assert fragment in (claim["reason"] or ""), f"{cid} failed for another reason: {claim['reason']}"
