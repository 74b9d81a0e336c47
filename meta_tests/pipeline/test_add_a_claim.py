"""README's "How to add a claim", followed literally on a scratch copy of the project.

The three steps' snippets are read out of README's section (so README and this test cannot
drift). README's example is a claim of the inventory: the files the steps name hold exactly its
entry and its test, wherever they stand. The scratch copy takes them out, then follows the steps: the
TOML entry is appended to the inventory file the first step names, the test to the test file the
second step names, and the third step's command runs in the copy (one pytest
process, forked from the meta tests' fork server where it can be). The new claim must get the
standing its entry states as its verdict in the claims report, the run must print the lines
README shows, and the test as pasted must pass the lint. Red when README's snippets stop
working: a field the inventory rejects, a marker or a command that changed, a verdict or an
output line README no longer predicts.
"""
from __future__ import annotations

import json
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys
import textwrap

import fork_server
from harness import inventory
from spec_runner import ROOT

SECTION = "### How to add a claim"
# what the scratch copy holds: the spec, its helpers, the machinery, and the files that configure them
COPIED = ["tests", "fixtures", "harness", "conftest.py", "pytest.ini", "ruff.toml"]


def readme_steps() -> list[dict]:
    """The section's numbered steps: each step's text and its code blocks (language, dedented code)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert SECTION in text, f"README has no section {SECTION!r}"
    section = re.split(r"\n#{2,3} ", text.split(SECTION, 1)[1], maxsplit=1)[0]
    steps = re.split(r"\n(?=\d\. )", section)[1:]
    out = []
    for step in steps:
        blocks = [(lang, textwrap.dedent(code)) for lang, code in
                  re.findall(r"^ *```(\w*)\n(.*?)^ *```$", step, flags=re.M | re.S)]
        prose = re.sub(r"^ *```.*?^ *```$", "", step, flags=re.M | re.S)
        out.append({"text": step, "prose": prose, "blocks": blocks})
    return out


def block(step: dict, lang: str) -> str:
    __tracebackhide__ = True
    found = [code for lg, code in step["blocks"] if lg == lang]
    assert len(found) == 1, f"expected one ```{lang} block in README's step:\n{step['text']}"
    return found[0]


def named_file(step: dict, pattern: str) -> str:
    """The first file in backticks in the step's prose that matches `pattern`."""
    __tracebackhide__ = True
    found = [p for p in re.findall(r"`([^`]+)`", step["prose"]) if re.fullmatch(pattern, p)]
    assert found, f"README's step names no file matching {pattern!r}:\n{step['text']}"
    return found[0]


def scratch_copy(folder):
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, folder / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(source, folder / name)


def remove_example(path, code: str) -> None:
    """Take README's example (`code`, as the repository holds it) out of the file at `path`,
    wherever it stands: claims added after it do not break README's steps."""
    text = path.read_text(encoding="utf-8")
    tail = code.strip("\n")
    assert text.count(tail) == 1, (
        f"{path.name} holds README's example as the section gives it {text.count(tail)} times, not once: "
        f"README and the repository differ\n--- README\n{tail}")
    before, _, after = text.partition(tail)
    path.write_text(before.rstrip("\n") + ("\n\n" + after.lstrip("\n") if after.strip() else "\n"),
                    encoding="utf-8")


def append(path, code: str, separator: str) -> None:
    assert path.is_file(), f"README's step appends to {path.name}, which the project does not have"
    text = path.read_text(encoding="utf-8").rstrip("\n")
    path.write_text(text + separator + code, encoding="utf-8")


def test_readme_adds_a_claim_in_three_steps_and_the_claim_gets_its_verdict(tmp_path):
    entry_step, test_step, run_step = readme_steps()
    entry = block(entry_step, "toml")
    (claim,) = inventory.tomllib.loads(entry)["claim"]  # tomllib, or tomli on Python 3.10
    cid = claim["id"]
    assert cid in inventory.load(), f"README's example claim {cid} is not in the inventory"

    project = tmp_path / "project"
    project.mkdir()
    scratch_copy(project)
    toml_file = named_file(entry_step, r"tests/claims/\w+\.toml")
    test_file = named_file(test_step, r"tests/test_\w+\.py")
    remove_example(project / toml_file, entry)
    remove_example(project / test_file, block(test_step, "python"))
    assert cid not in inventory.load(project / "tests" / "claims"), f"{cid} is still in the scratch copy's inventory"
    append(project / toml_file, entry, "\n\n")
    append(project / test_file, block(test_step, "python"), "\n\n\n")

    ruff = pathlib.Path(sys.executable).with_name("ruff")  # requirements-matrix.txt, as the lint step's
    lint = subprocess.run([str(ruff), "check", "--no-cache", test_file], cwd=project, capture_output=True, text=True)
    assert lint.returncode == 0, f"the test as README gives it fails the lint:\n{lint.stdout}{lint.stderr}"

    command = shlex.split(block(run_step, "sh"))
    assert command[0] == ".venv/bin/pytest", f"README's step 3 runs {command[0]!r}, expected .venv/bin/pytest"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "HYPOTHESIS_"))}
    proc = fork_server.run_pytest(command[1:] + ["-p", "no:cacheprovider"], cwd=project, env=env, timeout=180,
                                  scratch=tmp_path)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"README's command exited {proc.returncode}:\n{output[-3000:]}"

    report = json.loads((project / "reports" / "claims.json").read_text(encoding="utf-8"))
    (recorded,) = [c for c in report["claims"] if c["id"] == cid]
    assert recorded["verdict"] == claim["standing"], (
        f"{cid}: verdict {recorded['verdict']!r}, expected its standing {claim['standing']!r}; "
        f"reason: {recorded.get('reason')}")
    shown = [line for line in block(run_step, "").splitlines() if line.strip()]
    printed = [line.rstrip() for line in proc.stdout.splitlines()]
    missing = [line for line in shown if line.rstrip() not in printed]
    assert not missing, f"README shows lines the run did not print: {missing}\n{proc.stdout[-3000:]}"
