"""The spec's layout, read with `ast` (nothing is imported): a test file's name gives the topic of
the claims it holds (tests/test_<topic>.py or tests/test_<topic>_<part>.py, the topic being the
claim ID's prefix and the inventory file tests/claims/<topic>.toml), so a reader guesses the file
from the claim ID.

The serial benchmark files are named for the step that runs them instead
(tests/test_benchmarks_cpu.py, tests/test_benchmarks_gpu.py: README's and .ci/run's serial
`-p no:xdist` steps run each file by path): each holds only benchmark tests (its `pytestmark`
marks them `benchmark`) of claims decided by benchmarks (decided_by benchmark-cpu or
benchmark-gpu), whatever their topic.

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
