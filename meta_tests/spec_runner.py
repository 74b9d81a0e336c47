"""Helpers for the harness's own tests.

`run_spec` runs the real spec in a Python process of its own (a child of fork_server.py, which
has torch imported already, or a fresh one on GPU machines) and returns what it reported;
with `patch=...` the process first executes that code as a plugin, to put torch into a
"wrong world" where a claim's stated behaviour is different. A wrong-world check asserts
that the claim's tests go red there: a test that stays green in the wrong world checks
nothing.

Without a test path among the arguments, the run collects only the spec files that mention
one of the `--claim` IDs: it imports only what it needs and is not disturbed by other files.

Patches that must reach the Python processes the spec starts (launchers, spawn workers, the
benchmark workers) are built with `site_wide` (code run at start-up in every child) or
`wrong_world` (a torch module patched right after a child first imports it). World code that
more than one meta test file uses lives in worlds.py.

Also here, for the meta tests that read the project rather than run it: ROOT, and the torch
environments of tox.ini with the release each promises (`tox_torch_envs`, `tox_torch_releases`,
from harness/releases.py, which reads the one list of releases).
"""
from __future__ import annotations

import json
import os
import pathlib
import textwrap
from dataclasses import dataclass

import fork_server
from harness.releases import tox_torch_envs, tox_torch_releases  # noqa: F401 (the meta tests' names)

ROOT = pathlib.Path(__file__).resolve().parent.parent
TOX_INI = ROOT / "tox.ini"


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


def claim_args(*ids: str) -> list[str]:
    """`--claim ID` for each ID, as run_spec takes them."""
    return [arg for cid in ids for arg in ("--claim", cid)]


# pytest.ini of the miniature projects the harness tests build (their own claims inventory and the
# spec's markers), for pytester and for real pytest processes alike
MINI_PROJECT_INI = """
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

def make_runner(tmp_path: pathlib.Path):
    """run(*pytest_args, patch=None, timeout=120) -> SpecRun, run from the project root: a child of
    the fork server (fork_server.py) where it is usable, else a fresh Python."""

    def run(*args: str, patch: str | None = None, timeout: float = 120) -> SpecRun:
        report = tmp_path / "claims.json"
        report.unlink(missing_ok=True)  # each run reports alone (runs of one environment would add up)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "HYPOTHESIS_"))}
        # derandomized: the outcome of a run depends neither on the luck of the draw nor on the
        # examples that earlier runs saved in the project's hypothesis database (a fresh clone has none)
        env["HYPOTHESIS_PROFILE"] = "ci"
        cmd = ["-q", "-p", "no:cacheprovider", f"--claims-report={report}"]
        if patch is not None:
            (tmp_path / "wrong_world_patch.py").write_text(textwrap.dedent(patch))
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tmp_path), env.get("PYTHONPATH")]))
            cmd += ["-p", "wrong_world_patch"]
        proc = fork_server.run_pytest(cmd + list(args) + claim_files(args), cwd=ROOT, env=env, timeout=timeout,
                                      scratch=tmp_path, path=[str(tmp_path)] if patch is not None else [])
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


def figure_verdicts(run: SpecRun, cid: str) -> list:
    """The verdicts of the claim's timing comparisons (its figures with a `ratio_of`)."""
    return [f.get("verdict") for f in run.claim(cid).get("figures", []) if "ratio_of" in f]


def assert_not_holding(run: SpecRun, cid: str, *allowed: str) -> None:
    """A benchmark claim's verdict in the wrong world is one of `allowed`, and none of its timing
    comparisons held: where the stated speed-up is absent, its benchmark must not find one."""
    __tracebackhide__ = True
    claim = run.claim(cid)
    assert claim["verdict"] in allowed, (
        f"{cid} is {claim['verdict']!r} in the wrong world, expected one of {allowed}: its benchmark checks "
        f"nothing.\n{claim.get('reason')}\n{run.output[-2000:]}"
    )
    assert "holds" not in figure_verdicts(run, cid), f"{cid}: a timing comparison held in the wrong world: {claim}"


# --- patches that reach every Python process the spec starts
#
# Launches and spawn worlds run in child processes, so patching torch in the pytest process is not
# enough: the patch plugin also writes a sitecustomize.py (under the runner's tmp_path, beside the
# plugin) that every child Python imports at start-up: PYTHONPATH is inherited through the
# launchers.

PLUGIN = '''
import os
import pathlib

_site = pathlib.Path(__file__).resolve().parent / "site"
_site.mkdir(exist_ok=True)
(_site / "sitecustomize.py").write_text({site!r})
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(_site), os.environ.get("PYTHONPATH")]))
{in_process}
'''

# Installs an import hook that patches one torch module right after that module is first imported
# (torch itself is not imported early: the torch-free workers stay torch-free).
SITE_HOOK = '''
import importlib.abc
import importlib.util
import sys

TARGET = {target!r}


def patch(module):
{body}


class _AfterImport(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name != TARGET:
            return None
        sys.meta_path.remove(self)
        try:
            spec = importlib.util.find_spec(name)
        finally:
            sys.meta_path.insert(0, self)
        exec_module = spec.loader.exec_module

        def exec_and_patch(module):
            exec_module(module)
            patch(module)

        spec.loader.exec_module = exec_and_patch
        return spec


sys.meta_path.insert(0, _AfterImport())
'''


def site_wide(site: str, in_process: str = "") -> str:
    """Plugin code: `site` runs at start-up in every Python process the spec starts (and
    in_process runs here, in the pytest process)."""
    return PLUGIN.format(site=textwrap.dedent(site), in_process=textwrap.dedent(in_process))


def wrong_world(target: str, body: str, in_process: str = "") -> str:
    """Plugin code: patch `target` in every child process (and run in_process here too). `body`
    is the body of patch(module), which runs right after `target` is first imported there."""
    indented = "\n".join("    " + line for line in body.strip().splitlines())
    return site_wide(SITE_HOOK.format(target=target, body=indented), in_process)
