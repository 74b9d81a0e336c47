"""Every version boundary names its upstream cause, offline.

A boundary is stated once, in fixtures/boundaries.py, with what changed and the cause (a pull
request, release notes or a documentation page, as a well-formed link), or the explicit marker
"measured here; no upstream record found" with how it was measured. Every range of the inventory
that begins at a version (`since`) names its cause the same way, and the boundary constant that
the claim's tests branch on names the same links. A version compared in tests/ or fixtures/
anywhere else (a literal in torch_at_least / needs(min_torch=, max_torch=) / parse / in_range, or
a module-level version constant) is a boundary without a cause: red.
"""
from __future__ import annotations

import ast
import pathlib
import re

import pytest

from fixtures import boundaries
from harness import inventory

ROOT = pathlib.Path(__file__).resolve().parents[2]
LINK = re.compile(r"https?://[^\s()<>,;'\"]+[^\s()<>,;'\".:]")
WELL_FORMED = [
    re.compile(r"https://github\.com/pytorch/(pytorch|vision)/(pull|issues)/[1-9]\d*"),
    re.compile(r"https://github\.com/pytorch/(pytorch|vision)/releases/tag/v\d+\.\d+\.\d+"),
    re.compile(r"https://docs\.pytorch\.org/docs/(stable|main|\d+\.\d+)/[\w./-]+\.html(#[\w.-]+)?"),
]
VERSION = re.compile(r"^\d+\.\d+(\.\d+)?$")
COMPARERS = {"torch_at_least", "transformers_at_least", "parse", "in_range"}
# Claims exempt from the cause rules while their standings are rewritten (in the note's polarity,
# with their version facts and causes): remove an entry once its cause is there.
PENDING: set[str] = set()


def cause_problems(cause: str | None) -> list[str]:
    """What is wrong with a cause's text: missing, no link and no marker, or a malformed link."""
    if not cause or not cause.strip():
        return ["no cause"]
    links = LINK.findall(cause)
    out = [f"malformed link {u!r} (a pytorch/pytorch or pytorch/vision pull, issue or release page, or a "
           "docs.pytorch.org page)" for u in links if not any(p.fullmatch(u) for p in WELL_FORMED)]
    if not links and inventory.NO_RECORD not in cause:
        out.append(f"neither a link nor the marker {inventory.NO_RECORD!r}")
    if inventory.NO_RECORD in cause and not re.search(r"measured", cause.replace(inventory.NO_RECORD, "")):
        out.append("the no-record marker without saying how the boundary was measured")
    return out


def stray_boundaries(source: str, filename: str) -> list[str]:
    """Version literals compared outside fixtures/boundaries.py: a boundary stated without its cause."""
    out = []
    tree = ast.parse(source, filename)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            args = list(node.args) if name in COMPARERS else []
            args += [k.value for k in node.keywords if k.arg in ("min_torch", "max_torch")]
            out += [f"{filename}:{a.lineno}: {name}(... {a.value!r} ...)" for a in args
                    if isinstance(a, ast.Constant) and isinstance(a.value, str) and VERSION.match(a.value)]
    for stmt in tree.body:
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and isinstance(stmt.value, ast.Constant) \
                and isinstance(stmt.value.value, str) and VERSION.match(stmt.value.value):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            names = [t.id for t in targets if isinstance(t, ast.Name)]
            if any(n.isupper() for n in names):
                out.append(f"{filename}:{stmt.lineno}: {', '.join(names)} = {stmt.value.value!r}")
    return out


def _links(text: str | None) -> set[str]:
    return set(LINK.findall(text or ""))


# --- the rules, on made-up inputs (the check goes red where it should) ---------------------------


@pytest.mark.parametrize(
    "cause, problem",
    [
        pytest.param(None, "no cause", id="missing"),
        pytest.param("changed in 2.0", "neither a link nor the marker", id="prose-only"),
        pytest.param("https://github.com/pytorch/pytorch/pull/abc", "malformed link", id="pull-not-a-number"),
        pytest.param("https://github.com/pytorch/pytorch/pulls/123", "malformed link", id="pulls"),
        pytest.param("http://github.com/pytorch/pytorch/pull/123", "malformed link", id="http"),
        pytest.param("https://example.com/torch-2.0", "malformed link", id="elsewhere"),
        pytest.param("https://github.com/pytorch/pytorch/releases/tag/2.6.0", "malformed link", id="tag-without-v"),
        pytest.param(inventory.NO_RECORD, "without saying how", id="marker-alone"),
    ],
)
def test_a_bad_cause_is_named(cause, problem):
    problems = cause_problems(cause)
    assert any(problem in p for p in problems), f"{cause!r}: {problems}, expected one with {problem!r}"


@pytest.mark.parametrize(
    "cause",
    [
        "https://github.com/pytorch/pytorch/pull/92731 (zero_grad set_to_none default True)",
        "https://github.com/pytorch/pytorch/issues/175024",
        "torch 2.6.0 release notes: https://github.com/pytorch/pytorch/releases/tag/v2.6.0",
        "https://github.com/pytorch/vision/releases/tag/v0.13.0",
        "the docs: https://docs.pytorch.org/docs/2.9/notes/cuda.html#tensorfloat-32-tf32-on-ampere-and-later-devices",
        f"{inventory.NO_RECORD} (measured: ValueError on 1.13.1, RuntimeError on 2.0.1)",
    ],
)
def test_a_good_cause_passes(cause):
    assert cause_problems(cause) == []


def test_a_version_compared_outside_the_boundaries_module_is_found():
    source = '\n'.join([
        'import pytest',
        'from fixtures.versions import torch_at_least',
        'NEW_THING_SINCE = "2.15"',
        'LR = 0.1',
        'name = "1.0"',
        '@pytest.mark.needs(min_torch="2.3")',
        'def test_x():',
        '    assert torch_at_least("2.5") or versions.parse("1.2.3")',
    ])
    found = stray_boundaries(source, "t.py")
    assert [f.split(": ", 1)[1] for f in found] == [
        "needs(... '2.3' ...)", "torch_at_least(... '2.5' ...)", "parse(... '1.2.3' ...)",
        "NEW_THING_SINCE = '2.15'"], found


# --- the rules, on this checkout -----------------------------------------------------------------


def test_every_boundary_constant_names_what_changed_and_a_well_formed_cause():
    found = boundaries.all_boundaries()
    assert len(found) >= 29, sorted(found)
    bad = {name: cause_problems(b.cause) for name, b in found.items() if cause_problems(b.cause)}
    assert bad == {}, bad
    assert [n for n, b in found.items() if len(b.what) < 20] == [], "each boundary says what changed there"
    assert [n for n, b in found.items() if not VERSION.match(str(b))] == []


def test_every_versioned_standing_names_a_well_formed_cause():
    inv = inventory.load()
    bad = {f"{c.id} since {s.since}": cause_problems(s.cause) for c in inv.claims.values() for s in c.standings
           if s.since and c.id not in PENDING and cause_problems(s.cause)}
    assert bad == {}, bad
    assert PENDING <= set(inv.claims), "a pending claim was renamed: update PENDING"


def test_each_versioned_standing_has_its_boundary_constant_with_the_same_links():
    inv = inventory.load()
    by_claim = {(cid, str(b)): (name, b) for name, b in boundaries.all_boundaries().items() for cid in b.claims}
    missing, differ = [], []
    for c in inv.claims.values():
        for s in c.standings:
            if not s.since or c.id in PENDING:
                continue
            hit = by_claim.get((c.id, s.since))
            if hit is None:
                missing.append(f"{c.id} since {s.since}")
            elif _links(hit[1].cause) != _links(s.cause) or \
                    (inventory.NO_RECORD in hit[1].cause) != (inventory.NO_RECORD in s.cause):
                differ.append(f"{c.id} since {s.since}: {hit[0]} names {sorted(_links(hit[1].cause))}, "
                              f"the standing {sorted(_links(s.cause))}")
    assert missing == [], f"versioned standings that no boundary of fixtures/boundaries.py lists: {missing}"
    assert differ == [], differ
    for (cid, version), (name, _) in by_claim.items():
        assert cid in inv, f"{name} lists an unknown claim {cid}"
        if cid in PENDING:
            continue
        assert any(s.since == version for s in inv[cid].standings), f"{name}: {cid} has no range since {version}"


def test_no_version_is_compared_outside_the_boundaries_module():
    files = sorted([*ROOT.glob("tests/*.py"), *ROOT.glob("fixtures/**/*.py")])
    assert len(files) > 40
    stray = [hit for f in files if f.name != "boundaries.py"
             for hit in stray_boundaries(f.read_text(encoding="utf-8"), str(f.relative_to(ROOT)))]
    assert stray == [], "state these boundaries in fixtures/boundaries.py with their cause: " + "; ".join(stray)
