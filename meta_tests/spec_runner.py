"""The runner of the harness's own tests: run the real spec in a Python process of its own and
read what it reported.

`run_spec` (the fixture, made by make_runner) runs pytest from the project root in a child of
fork_server.py, which has torch imported already (or a fresh Python on GPU machines), and returns
a SpecRun. With `world=...` the run is in one or more wrong worlds (modules in
meta_tests/wrong_world/worlds/, switched on by meta_tests/wrong_world/world_hook.py), where a
claim's stated behaviour is different. A wrong-world check asserts that the claim's tests go red
there (assert_goes_red; for a partly claim, assert_holding_half_goes_red where the world breaks
the half that holds and assert_failing_half_goes_red where it makes the note right; assert_not_holding
for a timing claim): a test that stays green in the
wrong world checks nothing.

Without a test path among the arguments, the run collects only the spec files that mention one of
the `--claim` IDs: it imports only what it needs and is not disturbed by other files.

Also here: ROOT, and MINI_PROJECT_INI and write_mini_project for the miniature projects the harness
tests build. The tox
environments and their releases are in tox_reader.py.
"""
from __future__ import annotations

import json
import os
import pathlib
from dataclasses import dataclass

import fork_server
from wrong_world import world_hook

ROOT = pathlib.Path(__file__).resolve().parent.parent

# the arguments of a spec run of benchmarks: serial, as pytest-benchmark needs
SERIAL = ("-p", "no:xdist")


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
# the plugins of a mini project's conftest: the spec's own, less those its tests do not need
MINI_PROJECT_PLUGINS = ("fixtures.needs", "harness.claims_plugin", "fixtures.state_guard")


def write_mini_project(pytester, inventory: str, tests: str | None = None, *,
                       plugins: tuple[str, ...] = MINI_PROJECT_PLUGINS):
    """A miniature project in pytester's folder: MINI_PROJECT_INI, a conftest loading `plugins`,
    the inventory claims/x.toml and, if given, the spec file test_mini.py. The conftest puts this
    repository on sys.path itself: the mini project's xdist workers start from the sys.path frozen
    when the outer pytest started (PYTHONPATH does not reach them). Returns pytester."""
    pytester.makeini(MINI_PROJECT_INI)
    pytester.makeconftest(f"import sys\nsys.path.insert(0, {str(ROOT)!r})\npytest_plugins = {list(plugins)!r}\n")
    (pytester.path / "claims").mkdir()
    (pytester.path / "claims" / "x.toml").write_text(inventory, encoding="utf-8")
    if tests is not None:
        pytester.makepyfile(test_mini=tests)
    return pytester


def make_runner(tmp_path: pathlib.Path):
    """run(*pytest_args, world=None, timeout=120) -> SpecRun, run from the project root: a child of
    the fork server (fork_server.py) where it is usable, else a fresh Python. `world`: the name of
    a module in meta_tests/wrong_world/worlds/, or a tuple of them, to run the spec in."""

    def run(*args: str, world: str | tuple[str, ...] | None = None, timeout: float = 120) -> SpecRun:
        report = tmp_path / "claims.json"
        report.unlink(missing_ok=True)  # each run reports alone (runs of one environment would add up)
        # CI and BUILD_NUMBER make pytest print full assertion diffs (its running_on_ci()), which
        # changes the one-line failure reasons a check reads: a spec run reads the same everywhere
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("PYTEST_", "HYPOTHESIS_")) and k not in ("CI", "BUILD_NUMBER")}
        # derandomized: the outcome of a run depends neither on the luck of the draw nor on the
        # examples that earlier runs saved in the project's hypothesis database (a fresh clone has none)
        env["HYPOTHESIS_PROFILE"] = "ci"
        cmd = ["-q", "-p", "no:cacheprovider", f"--claims-report={report}"]
        path: list[str] = []
        if world is not None:
            plugin, world_env, path = world_hook.settings([world] if isinstance(world, str) else list(world))
            env.update(world_env)
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [*path, env.get("PYTHONPATH")]))
            cmd += plugin
        proc = fork_server.run_pytest(cmd + list(args) + claim_files(args), cwd=ROOT, env=env, timeout=timeout,
                                      scratch=tmp_path, path=path)
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


def assert_holding_half_goes_red(run: SpecRun, cid: str, *fragments: str) -> None:
    """A partly claim failed in the wrong world, a test of its holding half among the red ones: with
    the half that holds broken, it reads failed, never partly on its failing half alone."""
    __tracebackhide__ = True
    assert_goes_red(run, cid, *fragments)
    red = [t for t in run.claim(cid)["tests"] if t["outcome"] in ("failed", "error")]
    assert any(t.get("half") == "holding" for t in red), f"{cid}: no holding-half test went red: {red}"


def assert_failing_half_goes_red(run: SpecRun, cid: str, *fragments: str) -> None:
    """A partly claim failed in the world where the note is right, a test of its failing half (its
    left-out tests: where the note fails) among the red ones: that half checks something."""
    __tracebackhide__ = True
    assert_goes_red(run, cid, *fragments)
    red = [t for t in run.claim(cid)["tests"] if t["outcome"] in ("failed", "error")]
    assert any(t.get("half") == "failing" or t.get("decides") == "left-out" for t in red), (
        f"{cid}: no failing-half (left-out) test went red: {red}"
    )


def red_tests(run: SpecRun, cid: str) -> list[str]:
    """The claim's tests that went red (failed or error), by name and parameters (the node ID after
    its last '::'), sorted: a check that a world turns only the case it targets red compares them."""
    return sorted(t["nodeid"].rsplit("::", 1)[-1] for t in run.claim(cid)["tests"]
                  if t["outcome"] in ("failed", "error"))


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


# --- a plain mini project (no pytester): a real pytest process on one claim file and one test --------

MINI_CLAIM = """
[[claim]]
id = "x.a"
source = ["n › s"]
claim = "a"
checklist_needs = ["cpu"]
decided_by = "cpu"
"""
MINI_HOLDS = 'standing = "holds"\n'

MINI_TESTS = """
import pytest

@pytest.mark.claim("x.a")
def test_a():
    pass
"""


def plain_mini_project(folder: pathlib.Path, claims: str) -> pathlib.Path:
    """A miniature project in `folder` without pytester: MINI_PROJECT_INI, a conftest loading the
    claims plugin, the inventory claims/x.toml (`claims` after its topic and title) and MINI_TESTS."""
    (folder / "pytest.ini").write_text(MINI_PROJECT_INI)
    (folder / "conftest.py").write_text(f"import sys\nsys.path.insert(0, {str(ROOT)!r})\n"
                                        "pytest_plugins = ['fixtures.needs', 'harness.claims_plugin']\n")
    (folder / "claims").mkdir()
    (folder / "claims" / "x.toml").write_text('topic = "x"\ntitle = "Mini"\n' + claims)
    (folder / "test_mini.py").write_text(MINI_TESTS)
    return folder


def run_plain(project: pathlib.Path, *args: str):
    """pytest `args` in `project`, a child of the fork server where it can be (no GPU visible)."""
    scratch = project.parent / f"{project.name}-runs"
    scratch.mkdir(exist_ok=True)
    return fork_server.run_pytest(list(args), cwd=project, timeout=120, scratch=scratch,
                                  env={**os.environ, "CUDA_VISIBLE_DEVICES": ""})
