"""The world modules (worlds/) and the hook that switches them on (world_hook.py): each world says
what it breaks, has a part to switch on, is used by a check, and a world that reaches child
processes leaves a torch-free child torch-free until it imports its TARGET."""
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



def test_every_world_switches_on_without_an_error():
    """All worlds at once, in a fresh Python (python -m wrong_world.world_hook): a world whose parts
    raise (a name its code lost, a TARGET that moved) shows here even on a machine that cannot run
    its check (the GPU worlds)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(world_hook.IMPORT_ROOT), str(ROOT)])}
    proc = subprocess.run([sys.executable, "-m", "wrong_world.world_hook"], env=env, capture_output=True, text=True,
                          timeout=300, cwd=ROOT)
    assert proc.returncode == 0, f"worlds that failed to switch on:\n{proc.stdout}{proc.stderr}"
