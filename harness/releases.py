"""The torch releases of the matrix: one list, and a check for newer releases on the package index.

The one list is tox.ini's `matrix` label: its torch environments, in version order, each with the
torch and torchvision it promises (its `EXPECT_TORCH` / `EXPECT_TV` lines). The workflow's job
matrix reads it (`--envs`), README's list is written from it (`--write-readme`), and meta tests
hold tox.ini's other mentions of the torch environments to it (meta_tests/ci/).

    python -m harness.releases            torch / torchvision releases on the index newer than the
                                          matrix's newest column; exit 0 when there are none, 1 when
                                          there are (add a column), 2 when the index cannot be read
    python -m harness.releases --envs     the torch environments of the list as JSON (the workflow)
    python -m harness.releases --write-readme   README's list of releases, rewritten from the list
    python -m harness.releases --listing FILE   the same check against a recorded index listing
                                          ({"torch": [versions], "torchvision": [versions]})

The index is read with the JSON form of the simple repository API (PEP 691), PyPI by default.
Torch-free: the workflow runs it before any torch is installed.
"""
from __future__ import annotations

import argparse
import configparser
import json
import pathlib
import re
import sys
import textwrap
import urllib.request
from dataclasses import dataclass
from fnmatch import fnmatchcase

from harness.versions import parse

ROOT = pathlib.Path(__file__).resolve().parent.parent
TOX_INI = ROOT / "tox.ini"
README = ROOT / "README.md"
REQUIREMENTS = ROOT / "requirements.txt"
README_START = "<!-- releases: tox.ini's matrix label (python -m harness.releases --write-readme) -->\n"
README_END = "<!-- /releases -->\n"
INDEX_URL = "https://pypi.org/simple"
PACKAGES = ("torch", "torchvision")
TORCH_ENV = re.compile(r"^torch\d+\.\d+$")
# a final release: numbers only (no pre-, post-, dev release, no local version)
_FINAL = re.compile(r"^\d+(\.\d+)*$")


@dataclass(frozen=True)
class Release:
    """One column of the matrix: the tox environment and the torch / torchvision it promises."""

    env: str
    torch: str
    torchvision: str


def _split(value: str) -> list[str]:
    return [v.strip() for v in re.split(r"[,\n]", value) if v.strip()]


def tox_config(text: str | None = None) -> tuple[configparser.ConfigParser, dict[str, list[str]]]:
    """tox.ini (its text, or the project's file) parsed, and its labels."""
    ini = configparser.ConfigParser(interpolation=None)
    ini.read_string(TOX_INI.read_text(encoding="utf-8") if text is None else text)
    labels = {}
    for line in ini["tox"]["labels"].splitlines():
        if "=" in line:
            name, envs = line.split("=", 1)
            labels[name.strip()] = _split(envs)
    return ini, labels


def _factor_values(ini: configparser.ConfigParser, key: str) -> dict[str, str]:
    """{torch env: value} of the `torchX.Y: KEY = value` lines of [testenv] set_env."""
    pattern = rf"^\s*(torch\d+\.\d+):\s*{key}\s*=\s*(\S+)\s*$"
    return dict(re.findall(pattern, ini["testenv"]["set_env"], re.M))


def releases(text: str | None = None) -> list[Release]:
    """The one list: the torch environments of tox.ini's `matrix` label, in its (version) order."""
    ini, labels = tox_config(text)
    torch, tv = _factor_values(ini, "EXPECT_TORCH"), _factor_values(ini, "EXPECT_TV")
    envs = [e for e in labels["matrix"] if TORCH_ENV.match(e)]
    missing = [e for e in envs if e not in torch or e not in tv]
    if missing:
        raise ValueError(f"tox.ini: torch environments without EXPECT_TORCH / EXPECT_TV lines: {missing}")
    out = [Release(e, torch[e], tv[e]) for e in envs]
    order = sorted(out, key=lambda r: parse(r.torch))
    if out != order:
        raise ValueError(f"tox.ini: the matrix label is not in version order: {[r.env for r in out]}")
    return out


def tox_torch_envs(text: str | None = None) -> dict[str, list[str]]:
    """The torch environments tox.ini names, by where it names them: the `matrix` label (the one
    list), the `[testenv:matrix]` depends, and the `torchX.Y:` factors of `[testenv]` deps and
    set_env; every one must equal the label (meta_tests/ci/test_workflow.py)."""
    ini, labels = tox_config(text)
    factors: list[str] = []
    for key in ("deps", "set_env"):
        for line in ini["testenv"][key].splitlines():
            m = re.match(r"\s*(torch\d+\.\d+):", line)
            if m and m.group(1) not in factors:
                factors.append(m.group(1))
    return {
        "label matrix": [e for e in labels["matrix"] if TORCH_ENV.match(e)],
        "[testenv:matrix] depends (patterns)": [e for e in labels["matrix"] if TORCH_ENV.match(e) and any(
            fnmatchcase(e, pattern) for pattern in _split(ini["testenv:matrix"]["depends"]))],
        "[testenv] deps/set_env factors": factors,
        "labels versions + boundaries": labels["versions"] + labels["boundaries"],
    }


def tox_torch_releases(text: str | None = None) -> dict[str, str]:
    """{torch environment: the torch release it promises}, in the one list's order."""
    return {r.env: r.torch for r in releases(text)}


# --- README's list


def _older_python(ini: configparser.ConfigParser) -> dict[str, str]:
    """{torch env: Python X.Y} for the envs whose base_python line names a Python before 3.11."""
    found = re.findall(r"^\s*(torch\d+\.\d+):\s*python(\d+\.\d+)\s*$", ini["testenv"]["base_python"], re.M)
    return {env: py for env, py in found if parse(py) < parse("3.11")}


def _pinned_torch() -> str | None:
    m = re.search(r"^torch==(\S+)\s*$", REQUIREMENTS.read_text(encoding="utf-8"), re.M)
    return m.group(1) if m else None


def readme_list(text: str | None = None, pinned: str | None = None) -> str:
    """The releases as README lists them, e.g. "1.13.1 (on Python 3.10), 2.0.1, ..., the pinned
    2.14.1 and the newest, 2.15.0 (torchvision 0.29.2).", wrapped at 100 columns."""
    ini, _ = tox_config(text)
    older = _older_python(ini)
    pinned = _pinned_torch() if pinned is None else pinned
    rel = releases(text)
    words = []
    for r in rel:
        word = f"the pinned {r.torch}" if r.torch == pinned else r.torch
        words.append(word + (f" (on Python {older[r.env]})" if r.env in older else ""))
    newest = rel[-1]
    if newest.torch != pinned:
        words[-1] = f"the newest, {words[-1]} (torchvision {newest.torchvision})"
    body = ", ".join(words[:-1]) + " and " + words[-1] + "."
    return textwrap.fill(body, width=100, break_on_hyphens=False) + "\n"


def readme_with_list(readme: str, text: str | None = None) -> str:
    """README's text with the part between its release markers replaced by readme_list()."""
    start, end = readme.index(README_START) + len(README_START), readme.index(README_END)
    return readme[:start] + readme_list(text) + readme[end:]


# --- the package index


def index_versions(package: str, index_url: str = INDEX_URL, timeout: float = 20) -> list[str]:
    """Every version of `package` that the index lists (PEP 691 JSON; raises OSError when unreachable)."""
    request = urllib.request.Request(f"{index_url.rstrip('/')}/{package}/",
                                     headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 (an index URL)
        return list(json.load(response)["versions"])


def newer(versions: list[str], than: str) -> list[str]:
    """The final releases among `versions` newer than `than`, oldest first."""
    return sorted((v for v in set(versions) if _FINAL.match(v) and parse(v) > parse(than)), key=parse)


def newer_than_matrix(listing: dict[str, list[str]], newest: Release) -> dict[str, list[str]]:
    """{package: its releases in `listing` newer than the matrix's newest column}."""
    have = {"torch": newest.torch, "torchvision": newest.torchvision}
    return {p: newer(listing.get(p, []), have[p]) for p in PACKAGES}


def render(found: dict[str, list[str]], newest: Release, source: str) -> str:
    have = {"torch": newest.torch, "torchvision": newest.torchvision}
    lines = [f"the matrix's newest column: torch {newest.torch} / torchvision {newest.torchvision} "
             f"(tox env {newest.env}); index: {source}"]
    for p in PACKAGES:
        what = ", ".join(found[p]) if found[p] else "none"
        lines.append(f"  {p} newer than {have[p]}: {what}")
    if any(found.values()):
        lines.append("the matrix is behind: add the release to tox.ini (docs/versions.md, "
                     "\"Adding a torch version\") and run its env")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m harness.releases", description=__doc__.split("\n\n")[0])
    ap.add_argument("--envs", action="store_true", help="print the torch environments of the one list as JSON")
    ap.add_argument("--write-readme", action="store_true", help="rewrite README's list of releases from the list")
    ap.add_argument("--index-url", default=INDEX_URL, help=f"simple repository API root (default {INDEX_URL})")
    ap.add_argument("--listing", type=pathlib.Path,
                    help='a recorded index listing instead of the index: {"torch": [...], "torchvision": [...]}')
    args = ap.parse_args(argv)
    if args.envs:
        print(json.dumps([r.env for r in releases()]))
        return 0
    if args.write_readme:
        README.write_text(readme_with_list(README.read_text(encoding="utf-8")), encoding="utf-8")
        return 0
    newest = releases()[-1]
    if args.listing:
        listing, source = json.loads(args.listing.read_text(encoding="utf-8")), str(args.listing)
    else:
        try:
            listing = {p: index_versions(p, args.index_url) for p in PACKAGES}
        except (OSError, ValueError, KeyError) as exc:  # URLError is an OSError; a bad JSON answer
            print(f"cannot read the package index {args.index_url}: {type(exc).__name__}: {exc}", file=sys.stderr)
            return 2
        source = args.index_url
    found = newer_than_matrix(listing, newest)
    print(render(found, newest, source))
    return 1 if any(found.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
