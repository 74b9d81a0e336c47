"""The index of wrong-world checks: which claims a meta test turns red (or keeps from holding) in a
world where the claim's stated behaviour is different, read from meta_tests/wrong_world/test_wrong_world_*.py.

    python meta_tests/wrong_world/wrong_world_index.py > docs/wrong-worlds.md

A claim counts as checked when a test function of those files that runs the spec (it takes a
fixture: run_spec, or a spec run that several checks share) names its ID in a string (the claim it
runs and asserts on). A test that takes none runs no world: a list of claims it only reads (the
partly claims that must have a world) checks none of them. meta_tests/wrong_world/test_wrong_worlds_index.py
keeps the committed page equal to what this prints.

Coverage by standing (the standing for the pinned torch of requirements.txt): a partly claim's check
counts for its holding half where the test calls assert_holding_half_goes_red on it, for its failing
half where it calls assert_failing_half_goes_red (spec_runner.py); a call whose claim is a literal ID
counts for that claim, one whose claim is a variable (or a helper the test names without calling it
directly) for the claims the test names that no literal call takes.
"""
from __future__ import annotations

import ast
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from harness import inventory  # noqa: E402  (after the path: run as a script from anywhere)


def world_tests(folder: pathlib.Path, ids: set[str]):
    """(file, test function, the statements it reads, the claim IDs they name) for every wrong-world
    test that runs a spec (it takes a fixture): the function (decorators included) and the
    module-level lists it reads (parametrize cases)."""
    for path in sorted(folder.rglob("test_wrong_world_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        assigned = {t.id: stmt for stmt in tree.body if isinstance(stmt, ast.Assign)
                    for t in stmt.targets if isinstance(t, ast.Name)}
        for node in tree.body:
            if not isinstance(node, ast.FunctionDef) or not node.name.startswith("test_") or not node.args.args:
                continue
            parts = [node] + [assigned[n.id] for n in ast.walk(node) if isinstance(n, ast.Name) and n.id in assigned]
            named = {n.value for part in parts for n in ast.walk(part)
                     if isinstance(n, ast.Constant) and n.value in ids}
            yield path, node, parts, named


def checks(folder: pathlib.Path = ROOT / "meta_tests") -> dict[str, list[str]]:
    """{claim ID: ["file.py::test_name", ...]} for every wrong-world test that names the claim."""
    found: dict[str, list[str]] = {}
    for path, node, parts, named in world_tests(folder, set(inventory.load().claims)):
        for cid in named:
            found.setdefault(cid, []).append(f"{path.name}::{node.name}{case_ids(parts, cid)}")
    return found


ASSERTS = ("assert_goes_red", "assert_holding_half_goes_red", "assert_failing_half_goes_red", "assert_not_holding")


def check_kinds(folder: pathlib.Path = ROOT / "meta_tests") -> dict[str, set[str]]:
    """{claim ID: the assert_* helpers (ASSERTS) that wrong-world tests call on it}."""
    ids = set(inventory.load().claims)
    kinds: dict[str, set[str]] = {}
    for _path, node, _parts, named in world_tests(folder, ids):
        # one test: the assert_* helpers it calls, and on which claims
        calls = [(c.func.id, c.args[1].value if len(c.args) > 1 and isinstance(c.args[1], ast.Constant) else None)
                 for c in ast.walk(node) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)
                 and c.func.id in ASSERTS]
        # a helper named but not called here (check = assert_x if ... else assert_y; check(run, cid))
        called = {id(c.func) for c in ast.walk(node) if isinstance(c, ast.Call)}
        calls += [(n.id, None) for n in ast.walk(node)
                  if isinstance(n, ast.Name) and n.id in ASSERTS and id(n) not in called]
        literal = {cid for _, cid in calls if cid in ids}
        for helper, cid in calls:
            for target in ([cid] if cid in ids else sorted(named - literal)):
                kinds.setdefault(target, set()).add(helper)
    return kinds


def pinned_torch() -> str | None:
    """The torch release requirements.txt pins (torch==X), or None."""
    req = ROOT / "requirements.txt"
    for line in req.read_text(encoding="utf-8").splitlines() if req.exists() else []:
        if line.strip().startswith("torch=="):
            return line.split("==", 1)[1].split(";")[0].strip()
    return None


def coverage_lines(inv, found: dict[str, list[str]], kinds: dict[str, set[str]]) -> list[str]:
    """The table of coverage by standing, and the refuted and partly claims still without their check."""
    torch = pinned_torch()
    standing = {}
    for cid, claim in inv.claims.items():
        st = claim.standing_for(torch) if torch else None
        standing[cid] = st.verdict if st is not None else "/".join(sorted({s.verdict for s in claim.standings}))
    rows = []
    for verdict in ("refuted", "partly", "holds"):
        cids = [cid for cid in inv.claims if standing[cid] == verdict]
        checked = sum(cid in found for cid in cids)
        if verdict == "partly":
            holding = sum("assert_holding_half_goes_red" in kinds.get(cid, ()) for cid in cids)
            failing = sum("assert_failing_half_goes_red" in kinds.get(cid, ()) for cid in cids)
            rows.append(f"| partly | {len(cids)} | {checked} | {holding} | {failing} |")
        else:
            rows.append(f"| {verdict} | {len(cids)} | {checked} | — | — |")
    lines = ["", f"## Coverage by standing (torch {torch})", "",
             "A refuted claim's check runs it where the note is right; a partly claim's holding-half check",
             "breaks the half that holds (`assert_holding_half_goes_red`), its failing-half check makes the note",
             "right where it fails (`assert_failing_half_goes_red`); a holds claim's check makes the note wrong.",
             "A check may skip on a machine without what its tests need (a GPU, an optional library, another torch).",
             "", "| standing | claims | with a check | with a holding-half check | with a failing-half check |",
             "|---|---|---|---|---|", *rows]
    no_check = [cid for cid in inv.claims if standing[cid] == "refuted" and cid not in found]
    no_failing = [cid for cid in inv.claims if standing[cid] == "partly"
                  and "assert_failing_half_goes_red" not in kinds.get(cid, ())]
    no_holding = [cid for cid in inv.claims if standing[cid] == "partly"
                  and "assert_holding_half_goes_red" not in kinds.get(cid, ())]
    for title, cids in (("Refuted claims without a check", no_check),
                        ("Partly claims without a failing-half check", no_failing),
                        ("Partly claims without a holding-half check", no_holding)):
        listed = ", ".join(f"`{cid}` ({inv[cid].decided_by})" for cid in cids) or "none"
        lines += ["", f"{title} ({len(cids)}): {listed}."]
    return lines


def case_ids(parts: list[ast.AST], cid: str) -> str:
    """The "[id]" of the pytest.param(..., id=...) cases among `parts` that name claim `cid` (the node
    ID pytest gives that case); "" where no such case names it."""
    cases = [c for part in parts for c in ast.walk(part)
             if isinstance(c, ast.Call) and getattr(c.func, "attr", "") == "param"
             and any(isinstance(n, ast.Constant) and n.value == cid for n in ast.walk(c))]
    labels = [k.value.value for c in cases for k in c.keywords if k.arg == "id" and isinstance(k.value, ast.Constant)]
    return f"[{','.join(labels)}]" if labels else ""


def render() -> str:
    inv = inventory.load()
    found = checks()
    lines = ["# Wrong-world checks, by claim", "",
             "<!-- Generated by `python meta_tests/wrong_world/wrong_world_index.py > docs/wrong-worlds.md`; "
             "do not edit. -->", "",
             "A wrong-world check runs a claim's real tests against a torch patched to behave as the claim",
             "would in a different world (for a refuted claim: the world where the note is right) and asserts",
             "that the claim then reads failed (or, for a timing claim, never holds): proof that its tests",
             "check something. README, \"Wrong-world checks\".", ""]
    by_topic: dict[str, list[str]] = {}
    for cid, claim in inv.claims.items():
        by_topic.setdefault(claim.topic, []).append(cid)
    checked = sum(1 for cid in inv.claims if cid in found)
    lines += [f"{checked} of {len(inv.claims)} claims have a wrong-world check.", "",
              "| topic | claims | with a check |", "|---|---|---|"]
    lines += [f"| {topic} | {len(cids)} | {sum(c in found for c in cids)} |" for topic, cids in by_topic.items()]
    lines += coverage_lines(inv, found, check_kinds())
    for topic, cids in by_topic.items():
        lines += ["", f"## {inv.titles.get(topic, topic)} (`{topic}.*`)", "",
                  "| claim | standing | checked by |", "|---|---|---|"]
        for cid in cids:
            standings = "/".join(sorted({s.verdict for s in inv[cid].standings}))
            tests = "<br>".join(f"`{t}`" for t in sorted(found.get(cid, []))) or "—"
            lines.append(f"| `{cid}` | {standings} | {tests} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(render())
