"""Every path that README's commands create is ignored by git (.gitignore), so following README
never leaves untracked files behind: virtualenvs (`python3 -m venv X`), reports
(`--claims-report=X`, its .md and .lock, the default reports/), benchmark files
(`--benchmark-json=X`, `--benchmark-autosave` -> .benchmarks/) and tox's .tox/.

The paths are read from README's commands (its code spans and ```sh blocks), so a new command
with a new path is checked without editing this file; `git check-ignore --no-index` answers
whether .gitignore covers each (the path need not exist)."""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from spec_runner import ROOT

FIXED = ["reports/claims.json", "reports/claims.md", "reports/claims.json.lock",
         "reports/claims.2026-11-24T10-00-00.aside.json", ".benchmarks/x.json", ".tox/wheels/x.whl"]


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)```", text, flags=re.S)
    spans = re.findall(r"`([^`\n]+)`", re.sub(r"```.*?```", "", text, flags=re.S))
    return [ln for b in blocks for ln in b.splitlines() if ln.strip()] + [s for s in spans if " " in s or "=" in s]


def created_paths(commands: list[str]) -> list[str]:
    out = []
    for cmd in commands:
        for venv in re.findall(r"-m venv (\S+)", cmd):
            out.append(venv.rstrip("/") + "/bin/python")
        for report in re.findall(r"--claims-report=(\S+?\.json)", cmd):
            out += [report, report[:-5] + ".md", report + ".lock"]
        out += re.findall(r"--benchmark-json=(\S+?\.json)", cmd)
    return list(dict.fromkeys(out))


def test_readme_commands_name_the_paths_this_test_reads():
    paths = created_paths(readme_commands())
    assert any(p.startswith(".venv/") for p in paths), paths
    assert any(p.startswith(".venv-tox/") for p in paths), paths
    assert any(p.endswith(".md") for p in paths), f"no --claims-report path found in README: {paths}"


@pytest.fixture
def ignored(tmp_path):
    """ignored(path) -> bool, asked of an empty repository holding only this checkout's .gitignore:
    the rules alone decide, whatever already exists here (a .venv that is a symlink, say)."""
    git = shutil.which("git")
    if git is None:
        pytest.skip("no git on PATH")
    subprocess.run([git, "init", "-q", str(tmp_path)], check=True)
    shutil.copyfile(ROOT / ".gitignore", tmp_path / ".gitignore")
    return lambda path: subprocess.run([git, "check-ignore", "--no-index", "-q", path], cwd=tmp_path).returncode == 0


def test_every_path_readme_creates_is_ignored_by_git(ignored):
    paths = created_paths(readme_commands()) + FIXED
    not_ignored = [p for p in paths if not ignored(p)]
    assert not_ignored == [], f"README's commands create these paths, which .gitignore does not cover: {not_ignored}"


def test_the_committed_evidence_and_the_page_are_not_ignored(ignored):
    """The matrix's committed evidence (docs/matrix/reports/) shares its folder name with the local
    reports/ that .gitignore drops: only the top-level one may be ignored."""
    kept = ["docs/matrix/reports/2.14.1.json", "docs/matrix/claims-matrix.html", "docs/matrix/screenshot-800.png"]
    dropped = [p for p in kept if ignored(p)]
    assert dropped == [], f".gitignore drops these committed files: {dropped}"


BARE = re.compile(r"(?:^|&&|\|\||;|\||\(|=\s)\s*(pytest|python|ruff|tox|pip)(?=\s|$)")


def test_readme_commands_run_from_the_virtualenvs_they_name():
    """README's commands work as written after the quick start, in any new terminal: each names the
    virtualenv it runs from (`.venv/bin/pytest`, `.venv-tox/bin/tox`), never a bare `pytest`,
    `python`, `ruff`, `tox` or `pip` that only an activated virtualenv would provide (a bare
    `pytest --claim ...` fails with "No module named 'filelock'" on a system pytest)."""
    bare = [cmd for cmd in readme_commands() if BARE.search(cmd)]
    assert bare == [], f"README commands that run a bare tool, not the virtualenv's: {bare}"
    assert any(cmd.startswith(".venv/bin/pytest --claim") for cmd in readme_commands())
