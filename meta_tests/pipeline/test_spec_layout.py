"""The spec's layout, read with `ast` (nothing is imported): a test file's name gives the topic of
the claims it holds (tests/test_<topic>.py or tests/test_<topic>_<part>.py, the topic being the
claim ID's prefix and the inventory file tests/claims/<topic>.toml), so a reader guesses the file
from the claim ID.

The serial benchmark files are named for the step that runs them instead
(tests/test_benchmarks_cpu.py, tests/test_benchmarks_gpu.py: README's and .ci/run's serial
`-p no:xdist` steps run each file by path): each holds only benchmark tests (its `pytestmark`
marks them `benchmark`) of claims decided by benchmarks (decided_by benchmark-cpu or
benchmark-gpu), whatever their topic.

Within a file, tests keep the inventory's order: a test's place is the earliest inventory
position among its claims of the file's topic (all its claims in a benchmark step's file), and
no test comes after a test of a later claim. A test with no claim marker decides nothing and
has no place: it is not checked (no spec test lacks one; a helper test of that kind would
sit beside the tests it serves). Where the inventory's order is itself wrong (it does not follow
the note), the claim is listed in NOT_FORCED with the reason, its tests keep their place, and
the entry must keep being needed.

A test's claims are the IDs of the `pytest.mark.claim(...)` calls in its decorators, and in the
module-level definitions its decorators use (a parametrize list whose `pytest.param`s carry the
marks, the function that builds it).
"""
from __future__ import annotations

import ast
import pathlib
import textwrap

import pytest

from harness import inventory

ROOT = pathlib.Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
BENCHMARK_FILES = ("test_benchmarks_cpu.py", "test_benchmarks_gpu.py")
# claims whose inventory position does not follow their notes: their tests keep the notes' place
NOT_FORCED: dict[str, str] = {}


def _claim_ids(node: ast.AST) -> list[str]:
    out = []
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "claim":
            out += [a.value for a in n.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    return out


def _module_defs(tree: ast.Module) -> dict[str, ast.stmt]:
    defs: dict[str, ast.stmt] = {}
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defs[stmt.name] = stmt
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            defs.update({n.id: stmt for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)})
    return defs


def spec_tests(path: pathlib.Path) -> list[tuple[str, list[str]]]:
    """The module-level test functions of `path` in file order, each with its claim IDs."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    defs = _module_defs(tree)
    out = []
    for stmt in tree.body:
        if not (isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name.startswith("test")):
            continue
        ids, todo, seen = [], list(stmt.decorator_list), set()
        while todo:
            node = todo.pop(0)
            ids += _claim_ids(node)
            for n in ast.walk(node):
                if isinstance(n, ast.Name) and n.id in defs and n.id not in seen:
                    seen.add(n.id)
                    todo.append(defs[n.id])
        out.append((stmt.name, list(dict.fromkeys(ids))))
    return out


def _pytestmark_names(path: pathlib.Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    marks = set()
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in stmt.targets):
            marks |= {n.attr for n in ast.walk(stmt.value) if isinstance(n, ast.Attribute)}
    return marks


def file_topic(path: pathlib.Path, inv) -> str | None:
    """The inventory topic the file's name gives (test_<topic>.py, test_<topic>_<part>.py), or None."""
    stem = path.stem
    found = [t for t in inv.titles if stem == f"test_{t}" or stem.startswith(f"test_{t}_")]
    return max(found, key=len) if found else None


def name_problems(path: pathlib.Path, inv) -> list[str]:
    """Why the name of `path` does not predict the claims its tests hold (empty: it does)."""
    tests = spec_tests(path)
    if path.name in BENCHMARK_FILES:
        problems = [] if "benchmark" in _pytestmark_names(path) else [
            f"{path.name}: a benchmark step's file must mark its tests benchmark in pytestmark"]
        return problems + [f"{path.name}::{name}: {cid} is decided by {inv[cid].decided_by}, not by a benchmark step"
                           for name, ids in tests for cid in ids
                           if cid in inv and not inv[cid].decided_by.startswith("benchmark")]
    topic = file_topic(path, inv)
    if topic is None:
        held = sorted({cid.split(".")[0] for _, ids in tests for cid in ids})
        return [f"{path.name}: its name gives no topic of the inventory (its claims' topics: {', '.join(held)}): "
                f"name it test_<topic>.py or test_<topic>_<part>.py"]
    return [f"{path.name}::{name}: none of its claims ({', '.join(ids)}) is of the topic {topic!r} its file's name "
            f"gives: move it to a tests/test_{ids[0].split('.')[0]}*.py file"
            for name, ids in tests if ids and not any(cid.split(".")[0] == topic for cid in ids)]


def order_problems(path: pathlib.Path, inv, not_forced=NOT_FORCED) -> list[str]:
    """Tests of `path` that come after a test of a later claim in the inventory (empty: none)."""
    position = {cid: i for i, cid in enumerate(inv.claims)}
    topic = None if path.name in BENCHMARK_FILES else file_topic(path, inv)
    problems, last = [], None
    for name, ids in spec_tests(path):
        placed = [c for c in ids if c in position and c not in not_forced]
        own = [c for c in placed if topic is None or c.split(".")[0] == topic]
        if not own:
            continue
        first = min(own, key=position.get)
        if last is not None and position[first] < position[last[1]]:
            problems.append(f"{path.name}::{name} ({first}, inventory position {position[first]}) comes after "
                            f"{last[0]} ({last[1]}, position {position[last[1]]}): move it above")
        else:
            last = (name, first)
    return problems


@pytest.fixture(scope="module")
def inv():
    return inventory.load()


def test_every_spec_file_is_named_for_the_topic_of_its_claims(inv):
    files = sorted(TESTS.glob("test_*.py"))
    assert len(files) > 40, f"only {len(files)} spec files under {TESTS}"
    problems = [p for f in files for p in name_problems(f, inv)]
    assert not problems, "spec files whose name does not give their claims' topic:\n  " + "\n  ".join(problems)


SEEDS = '''
    import pytest


    @pytest.mark.claim("cuda.seed-reproducible")
    def test_seed():
        pass


    @pytest.mark.claim("cudnn.deterministic-repro")
    def test_flags():
        pass
'''


@pytest.mark.parametrize(
    "name, source, expected",
    [
        pytest.param("test_seeds.py", SEEDS, "its name gives no topic", id="no-topic-in-the-name"),
        pytest.param("test_serialization.py", SEEDS.replace("cuda.", "serial.").replace("cudnn.", "serial."),
                     "its name gives no topic", id="topic-spelled-otherwise"),
        pytest.param("test_cuda_seeds.py", SEEDS, "test_flags: none of its claims", id="a-test-of-another-topic"),
        pytest.param("test_benchmarks_cpu.py", SEEDS + "    pytestmark = [pytest.mark.benchmark]\n",
                     "is decided by gpu, not by a benchmark step", id="benchmark-file-with-a-gpu-claim"),
        pytest.param("test_benchmarks_gpu.py", "import pytest\n\n@pytest.mark.claim('cudnn.benchmark-speedup')\n"
                     "def test_b():\n    pass\n", "must mark its tests benchmark", id="benchmark-file-unmarked"),
    ],
)
def test_a_misnamed_spec_file_is_named_with_the_fix(tmp_path, inv, name, source, expected):
    """Red worlds of the name rule: each scratch file breaks it once."""
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    problems = name_problems(path, inv)
    assert any(expected in p for p in problems), f"{name}: expected a problem with {expected!r}, got {problems}"
    fixed = tmp_path / "test_cuda_seeds.py"
    fixed.write_text(textwrap.dedent(SEEDS).replace("cudnn.deterministic-repro", "cuda.numpy-seed-separate"))
    assert name_problems(fixed, inv) == []


def test_every_spec_file_keeps_its_tests_in_inventory_order(inv):
    problems = [p for f in sorted(TESTS.glob("test_*.py")) for p in order_problems(f, inv)]
    assert not problems, "tests out of the inventory's order:\n  " + "\n  ".join(problems)


def test_each_claim_whose_order_is_not_forced_still_needs_it(inv):
    """An entry of NOT_FORCED that no longer changes anything (the inventory was put in the notes'
    order, or the tests moved) is dropped, so the list says only what is true."""
    for cid in NOT_FORCED:
        assert cid in inv, f"NOT_FORCED names {cid}, which the inventory does not have"
        others = {c: r for c, r in NOT_FORCED.items() if c != cid}
        needed = [p for f in sorted(TESTS.glob("test_*.py")) for p in order_problems(f, inv, not_forced=others)]
        assert needed, f"NOT_FORCED[{cid!r}] changes nothing: drop it"


ORDERED = '''
    import pytest


    @pytest.mark.claim("cuda.seed-reproducible")
    def test_seed():
        pass


    @pytest.mark.claim("cuda.numpy-seed-separate")
    def test_numpy_seed():
        pass


    @pytest.mark.claim("cuda.numpy-seed-separate", "cuda.seed-reproducible")
    def test_both():
        pass


    @pytest.mark.parametrize("x", [pytest.param(1, marks=pytest.mark.claim("cuda.version-info"))])
    def test_version(x):
        pass
'''


def test_a_test_out_of_inventory_order_is_named_with_its_place(tmp_path, inv):
    """Red worlds of the order rule in a scratch file: a test of an earlier claim after a later one
    (by its decorator, by a pytest.param's marks), and its fix. A test with two claims takes the
    earlier one's place, so test_both may follow test_seed but not test_numpy_seed."""
    path = tmp_path / "test_cuda_scratch.py"
    path.write_text(textwrap.dedent(ORDERED))
    problems = order_problems(path, inv)
    assert [p.split(" ")[0] for p in problems] == ["test_cuda_scratch.py::test_both"], problems
    assert "(cuda.seed-reproducible" in problems[0], problems
    assert "after test_numpy_seed (cuda.numpy-seed-separate" in problems[0], problems
    swapped = ORDERED.replace("cuda.version-info", "cuda.visible-devices-code")
    path.write_text(textwrap.dedent(swapped))
    assert any("test_version (cuda.visible-devices-code" in p for p in order_problems(path, inv)), (
        "a claim carried by a pytest.param's marks must be placed too")
    fixed = textwrap.dedent(ORDERED).replace('"cuda.numpy-seed-separate", "cuda.seed-reproducible"',
                                             '"cuda.numpy-seed-separate", "cuda.version-info"')
    path.write_text(fixed)
    assert order_problems(path, inv) == []
