"""`python -m harness.releases`: the one list of torch releases, README's list written from it, and the
torch / torchvision releases on the index newer than the matrix.

README's list of releases (between its release markers) is what `--write-readme` writes from tox.ini's
`matrix` label, and a label with one release more makes it stale.

Offline against a recorded index listing (index-listing-2026-11-26.json, the versions PyPI's simple
API listed that day): with the matrix as it is, nothing is newer; with a matrix one release behind
(tox.ini without its newest env), or a listing with a release more, the check names it and exits 1;
pre-releases and post-releases never count. Online, the same check against the real index; it
skips, with the index's answer, where the index cannot be reached.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from harness import releases
from spec_runner import ROOT
from tox_reader import TOX_INI

LISTING = ROOT / "meta_tests" / "ci" / "index-listing-2026-11-26.json"


def _listing() -> dict[str, list[str]]:
    return json.loads(LISTING.read_text(encoding="utf-8"))


def _run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "harness.releases", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)


def test_readmes_list_of_releases_is_written_from_the_one_list():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert readme.count(releases.README_START) == readme.count(releases.README_END) == 1, "README's release markers"
    assert releases.readme_with_list(readme) == readme, (
        "README's list of releases is not tox.ini's matrix label: python -m harness.releases --write-readme")
    listed = readme.split(releases.README_START)[1].split(releases.README_END)[0]
    torch_only = re.sub(r"\((on Python|torchvision) [\d.]+\)", "", listed)
    assert re.findall(r"\d+\.\d+\.\d+", torch_only) == [r.torch for r in releases.releases()], listed


def test_a_release_added_to_the_label_only_makes_readmes_list_stale():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    text = TOX_INI.read_text(encoding="utf-8")
    newest = releases.releases()[-1]
    grown = text.replace(f"{newest.env}, matrix", f"{newest.env}, torch9.9, matrix").replace(
        f"    {newest.env}: EXPECT_TORCH", f"    torch9.9: EXPECT_TORCH = 9.9.0\n    torch9.9: EXPECT_TV = 9.9.0\n"
                                         f"    {newest.env}: EXPECT_TORCH")
    assert grown != text
    assert releases.releases(grown)[-1].torch == "9.9.0"
    fresh = releases.readme_with_list(readme, grown)
    assert fresh != readme
    assert "the newest, 9.9.0 (torchvision 9.9.0)." in fresh


def test_the_matrix_has_the_newest_release_of_the_recorded_listing():
    newest = releases.releases()[-1]
    assert releases.newer_than_matrix(_listing(), newest) == {"torch": [], "torchvision": []}
    out = _run("--listing", str(LISTING))
    assert out.returncode == 0, f"rc {out.returncode}:\n{out.stdout}{out.stderr}"
    assert f"torch newer than {newest.torch}: none" in out.stdout
    assert f"torchvision newer than {newest.torchvision}: none" in out.stdout


def test_a_matrix_one_release_behind_is_named():
    """The wrong world: tox.ini's list without its newest env; the check names what it lacks."""
    text = TOX_INI.read_text(encoding="utf-8")
    *older, newest = releases.releases()
    behind = re.sub(rf",\s*{re.escape(newest.env)}\b", "", text.split("[testenv]", 1)[0])
    behind += "[testenv]" + text.split("[testenv]", 1)[1]
    assert [r.env for r in releases.releases(behind)] == [r.env for r in older]
    found = releases.newer_than_matrix(_listing(), releases.releases(behind)[-1])
    assert found["torch"] == [newest.torch], f"found {found}, expected torch {newest.torch}"
    if newest.torchvision != older[-1].torchvision:
        assert found["torchvision"] == [newest.torchvision], found


def test_a_listing_with_a_newer_release_is_named_and_pre_and_post_releases_do_not_count(tmp_path):
    newest = releases.releases()[-1]
    listing = _listing()
    major, minor, _ = (int(p) for p in newest.torch.split("."))
    nxt = f"{major}.{minor + 1}.0"
    listing["torch"] += [nxt, f"{major}.{minor + 2}.0rc1", f"{newest.torch}.post1", f"{nxt}.dev20261126"]
    listing["torchvision"] += ["0.99.0a0"]
    path = tmp_path / "listing.json"
    path.write_text(json.dumps(listing), encoding="utf-8")
    out = _run("--listing", str(path))
    assert out.returncode == 1, f"rc {out.returncode}, expected 1 (the matrix is behind):\n{out.stdout}{out.stderr}"
    assert f"torch newer than {newest.torch}: {nxt}\n" in out.stdout, out.stdout
    assert f"torchvision newer than {newest.torchvision}: none" in out.stdout, out.stdout
    assert "the matrix is behind" in out.stdout


def test_a_matrix_label_out_of_version_order_is_refused():
    text = TOX_INI.read_text(encoding="utf-8")
    swapped = text.replace("torch2.13, torch2.14, torch2.15, matrix", "torch2.13, torch2.15, torch2.14, matrix")
    assert swapped != text
    with pytest.raises(ValueError, match="not in version order"):
        releases.releases(swapped)


def test_the_real_index_has_nothing_newer_than_the_matrix_or_names_it():
    """Queries the package index (PyPI); skips with the index's answer where it cannot be reached."""
    out = _run(timeout=120)
    if out.returncode == 2:
        pytest.skip(f"the package index cannot be reached here: {out.stderr.strip()}")
    assert out.returncode in (0, 1), f"rc {out.returncode}:\n{out.stdout}{out.stderr}"
    newest = releases.releases()[-1]
    lines = out.stdout.splitlines()
    assert any(line.startswith(f"  torch newer than {newest.torch}: ") for line in lines), out.stdout
    assert (out.returncode == 1) == ("the matrix is behind" in out.stdout), out.stdout
