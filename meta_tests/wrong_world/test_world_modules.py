"""The world modules (worlds/) and the hook that switches them on (world_hook.py): each world says
what it breaks (its docstring names every claim that a check running it alone asserts on), has a
part to switch on, is used by a check, and a world that reaches child processes leaves a torch-free
child torch-free until it imports its TARGET."""
import ast
import functools
import os
import pathlib
import subprocess
import sys

import pytest

import world_hook
from harness import inventory
from spec_runner import ROOT

HERE = pathlib.Path(__file__).resolve().parent
CHECKS = "".join(p.read_text(encoding="utf-8") for p in sorted(HERE.glob("*.py")))


@functools.cache
def claim_ids() -> tuple[str, ...]:
    return tuple(inventory.load().claims)


def module_tree(name: str) -> ast.Module:
    return ast.parse((world_hook.WORLDS_DIR / f"{name}.py").read_text(encoding="utf-8"))


def defined(tree: ast.Module) -> set[str]:
    return ({n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
            | {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)})


@pytest.mark.parametrize("name", world_hook.names())
def test_a_world_names_the_claims_it_makes_wrong_and_has_a_part_to_switch_on(name):
    tree = module_tree(name)
    doc = ast.get_docstring(tree) or ""
    named = [cid for cid in claim_ids() if cid in doc]
    assert named, f"worlds/{name}.py: its docstring names no claim ID of the inventory: {doc!r}"
    parts = defined(tree)
    assert parts & {"apply", "patch", "start_child"}, f"worlds/{name}.py defines none of apply, patch, start_child"
    assert ("patch" in parts) == ("TARGET" in parts), f"worlds/{name}.py: patch(module) and TARGET go together"
    assert f'"{name}"' in CHECKS, f"worlds/{name}.py: no wrong-world check runs it"


def strings(node: ast.AST) -> set[str]:
    return {n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def checks_of_one_world() -> list[tuple[str, str, set[str]]]:
    """(check, world, claim IDs) for each wrong-world check that runs one world: a test function of
    test_wrong_world_*.py that names one world (with the module-level dicts and lists it reads),
    or one pytest.param of a case list (file, claim, world, fragment)."""
    found = []
    for path in sorted(HERE.glob("test_wrong_world_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        assigned = {t.id: stmt.value for stmt in tree.body if isinstance(stmt, ast.Assign)
                    for t in stmt.targets if isinstance(t, ast.Name)}
        for node in tree.body:
            if not (isinstance(node, ast.FunctionDef) and node.name.startswith("test_")):
                continue
            read = [assigned[n.id] for n in ast.walk(node) if isinstance(n, ast.Name) and n.id in assigned]
            cases = [c for value in read for c in ast.walk(value)
                     if isinstance(c, ast.Call) and getattr(c.func, "attr", "") == "param"]
            units = [(f"{path.name}::{node.name}[{i}]", c) for i, c in enumerate(cases)]
            if not cases:
                units = [(f"{path.name}::{node.name}", ast.Module(body=[node, *map(ast.Expr, read)], type_ignores=[]))]
            for check, unit in units:
                worlds = strings(unit) & set(world_hook.names())
                if len(worlds) == 1:
                    found.append((check, worlds.pop(), strings(unit) & set(claim_ids())))
    return found


@pytest.mark.parametrize("check, world, claims", [pytest.param(*c, id=c[0]) for c in checks_of_one_world()])
def test_a_world_names_every_claim_its_check_asserts_on(check, world, claims):
    doc = ast.get_docstring(module_tree(world)) or ""
    unnamed = sorted(cid for cid in claims if cid not in doc)
    assert not unnamed, f"{check} runs worlds/{world}.py on {unnamed}, which its docstring does not name"


@pytest.mark.parametrize("name", [n for n in world_hook.names()
                                  if defined(module_tree(n)) & {"patch", "start_child"}])
def test_a_world_that_reaches_children_imports_no_torch_at_its_top(name):
    imported = [alias.name for n in module_tree(name).body if isinstance(n, ast.Import) for alias in n.names]
    imported += [n.module for n in module_tree(name).body if isinstance(n, ast.ImportFrom)]
    heavy = [m for m in imported if m.split(".")[0] in ("torch", "torchvision")]
    assert not heavy, f"worlds/{name}.py imports {heavy} at start-up of every child, torch-free workers included"


def test_a_child_stays_torch_free_until_it_imports_the_target_and_is_patched_then():
    target = "workers_without_local_rank"  # TARGET: torchelastic's subprocess handler
    code = ("import sys; print('torch' in sys.modules)\n"
            "from wrong_world.worlds import WORKER_POPEN\n"
            "import importlib; module = importlib.import_module(WORKER_POPEN)\n"
            "print(module.SubprocessHandler._popen.__qualname__)\n")
    env = {**os.environ, world_hook.CHILD_WORLDS_VAR: target,
           "PYTHONPATH": os.pathsep.join([str(world_hook.SITE_DIR), str(world_hook.IMPORT_ROOT)])}
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["False", "edit_worker_env.<locals>._popen"], (proc.stdout, proc.stderr)


def test_an_unknown_world_is_refused_by_name():
    with pytest.raises(ValueError, match="no such world \\['sgd_that_climb'\\]"):
        world_hook.settings(["sgd_that_climb"])
    # a harness world's module path with a misspelt package
    with pytest.raises(ValueError, match="no such world \\['pipeline.harness_world.stuck_run'\\]"):
        world_hook.settings(["pipeline.harness_world.stuck_run"])



def test_every_world_switches_on_without_an_error():
    """All worlds at once, in a fresh Python (python -m wrong_world.world_hook): a world whose parts
    raise (a name its code lost, a TARGET that moved) shows here even on a machine that cannot run
    its check (the GPU worlds)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(world_hook.IMPORT_ROOT), str(ROOT)])}
    proc = subprocess.run([sys.executable, "-m", "wrong_world.world_hook"], env=env, capture_output=True, text=True,
                          timeout=300, cwd=ROOT)
    assert proc.returncode == 0, f"worlds that failed to switch on:\n{proc.stdout}{proc.stderr}"
