"""What a deciding test decides about its claim (docs/verdict-rules.md, rule 1). No torch import.

A claim's test declares its role on the marker, `@pytest.mark.claim("ID", decides="...")`:

    holds     the case the note states holds (a true statement, or the true part of one)
    left-out  a condition the note leaves out, where its statement fails (the second half of partly)
    wrong     the case the note states is wrong: the test asserts the true behaviour instead
    by-version  the test asserts each side of the claim's version boundary: what the range of the
              torch it ran on states (`holds` under a holds or a partly range, `wrong` under a
              refuted one)

`half="holding"` / `half="failing"` on a partly claim's tests mean `holds` / `left-out`; the report
lists each half's tests under either spelling (session.claim_halves).
A test that declares nothing confirms: under a holds standing it decides holds, and it never
decides refuted or partly (a test that only confirms the case where the note is right must not
refute it, run alone or in a column where the refuting test was skipped). Every refuted claim
needs a test that declares `wrong` (or `by-version`), every partly one a `holds` and a `left-out`
test.

The verdict follows from the roles of the deciding tests that passed (harness/verdicts.py):
holds needs a passed `holds` test, refuted a passed `wrong` test, partly a passed `holds` and a
passed `left-out` test. A test that only confirms a true part (`holds`) never makes a refuted
claim refuted.

`declared()` reads the roles from the test files with `ast` (nothing is imported), so evidence
recorded before a role was declared is judged under the role its unchanged test declares now;
`disagreements()` lists every claim whose standing its tests' declared roles cannot produce.
"""
from __future__ import annotations

import ast
import functools
import pathlib

ROLES = ("holds", "left-out", "wrong", "by-version")
HALF_ROLE = {"holding": "holds", "failing": "left-out"}  # claim(..., half=...) -> role
# decides= on a partly claim's test -> its half (a by-version test shows the holding half of a partly range)
ROLE_HALF = {**{role: half for half, role in HALF_ROLE.items()}, "by-version": "holding"}
NEEDED = {"holds": ("holds",), "refuted": ("wrong",), "partly": ("holds", "left-out")}  # standing -> passed roles
DEFAULT = {"holds": "holds"}  # standing -> role of a test that declares none: it only ever confirms
# decides="by-version", per range: the test asserts what the range states; under a partly range that
# is the stated case still working (its failing half is a left-out test's)
BY_VERSION = {"holds": "holds", "refuted": "wrong", "partly": "holds"}
SAYS = {"holds": "the stated case (or a true part of it) holds", "left-out": "a condition the note leaves out fails",
        "wrong": "the stated case is wrong"}


def marker_role(kwargs: dict) -> str | None:
    """The role a claim marker's keywords declare (decides= or half=), or None."""
    if "decides" in kwargs:
        return kwargs["decides"]
    half = kwargs.get("half")
    return HALF_ROLE.get(half) if isinstance(half, str) else None


def role_for(record: dict, standing_verdict: str | None) -> str | None:
    """A record's role under the standing of the torch it is judged for."""
    half = record.get("half")
    declared = record.get("decides") or (HALF_ROLE.get(half) if isinstance(half, str) else None)
    if declared == "by-version":
        return BY_VERSION.get(standing_verdict or "")
    return declared or (DEFAULT.get(standing_verdict) if standing_verdict is not None else None)


def _markers(tree: ast.Module):
    """(qualified test name, claim ID, role or None) for each claim marker on a function or class."""
    def walk(body, prefix, inherited):
        for node in body:
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            marks = list(inherited)
            for dec in node.decorator_list:
                if isinstance(dec, ast.Call) and ast.unparse(dec.func) == "pytest.mark.claim":
                    kwargs = {}
                    for k in dec.keywords:
                        try:
                            kwargs[k.arg] = ast.literal_eval(k.value)
                        except ValueError:
                            continue
                    for arg in dec.args:
                        try:
                            marks.append((ast.literal_eval(arg), marker_role(kwargs)))
                        except ValueError:
                            continue
            name = prefix + node.name
            if isinstance(node, ast.ClassDef):
                yield from walk(node.body, name + "::", marks)
            else:
                for cid, role in marks:
                    yield name, cid, role
    yield from walk(tree.body, "", [])


@functools.lru_cache(maxsize=256)
def _file_roles(path: str, mtime_ns: int) -> tuple[tuple[str, str, str | None], ...]:
    try:
        tree = ast.parse(pathlib.Path(path).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return ()
    return tuple(_markers(tree))


def declared_role(rootdir, nodeid: str, claim_id: str) -> str | None:
    """The role the test of `nodeid` declares now for `claim_id` (None: none declared, or gone)."""
    path_part, _, rest = nodeid.partition("::")
    path = pathlib.Path(rootdir) / path_part
    try:
        mtime_ns = path.stat().st_mtime_ns
    except OSError:
        return None
    name = rest.split("[", 1)[0]
    return next((role for test, cid, role in _file_roles(str(path), mtime_ns)
                 if test == name and cid == claim_id), None)


def declared(tests_dir) -> dict[str, list[tuple[str, str | None]]]:
    """{claim ID: [(file::test, declared role or None), ...]} over tests_dir/test_*.py."""
    out: dict[str, list[tuple[str, str | None]]] = {}
    for path in sorted(pathlib.Path(tests_dir).glob("test_*.py")):
        for test, cid, role in _file_roles(str(path), path.stat().st_mtime_ns):
            out.setdefault(cid, []).append((f"{path.name}::{test}", role))
    return out


def disagreements(inv, tests: dict[str, list[tuple[str, str | None]]]) -> list[str]:
    """Every claim whose standing (in some version range) its tests' declared roles cannot produce:
    a role the standing does not use (left-out on a claim that is never partly, wrong on one that
    is never refuted), or a standing range whose needed roles no test can supply."""
    problems = []
    for cid, claim in sorted(inv.claims.items()):
        linked = tests.get(cid, [])
        if not linked or not claim.standings:
            continue
        verdicts_ = {s.verdict for s in claim.standings}
        for test, role in linked:
            if role is not None and role not in ROLES:
                problems.append(f"{cid}: {test} declares decides={role!r}, not one of {ROLES}")
            elif role == "left-out" and "partly" not in verdicts_:
                problems.append(f"{cid}: {test} decides that a left-out condition fails, "
                                f"but no standing of the claim is partly ({claim.history})")
            elif role == "by-version" and len(claim.standings) < 2:
                problems.append(f"{cid}: {test} decides by-version, but the claim has no version boundary "
                                f"({claim.history}): declare what it decides")
            elif role == "wrong" and "refuted" not in verdicts_:
                problems.append(f"{cid}: {test} decides that the stated case is wrong, "
                                f"but no standing of the claim is refuted ({claim.history})")
        for s in claim.standings:
            supplied = {role_for({"decides": role}, s.verdict) for _, role in linked}
            lacking = [r for r in NEEDED[s.verdict] if r not in supplied]
            if lacking:
                where = s.describe()
                problems.append(f"{cid}: stands {where}, which needs a test that decides "
                                f"{' and '.join(SAYS[r] for r in lacking)}; its tests declare "
                                f"{sorted({str(r) for _, r in linked})}")
    return problems
