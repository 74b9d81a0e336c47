"""How a wrong world is switched on: the one hook between a spec run and the world modules in worlds/.

A spec run names its worlds in the environment variable WRONG_WORLD (comma-separated module names
of worlds/, or dotted module paths under meta_tests/ for the harness's own worlds) and loads this
module as a pytest plugin (`-p wrong_world.world_hook`). Each world module may define three parts
(worlds/__init__.py says what each is for):

    apply()                 run in the pytest process, before the project's conftest is loaded
                            (the module is registered as a pytest plugin there too: its hooks run)
    TARGET, patch(module)   run in every Python process the spec starts, right after that process
                            first imports the module TARGET names (a torch-free worker stays torch-free)
    start_child()           run at start-up of every Python process the spec starts

The pytest process imports the named worlds and calls their apply(). For the processes it starts
(launchers, spawn workers, benchmark workers), it puts site/ on PYTHONPATH, whose sitecustomize.py
every child Python imports at start-up, and names in WRONG_WORLD_IN_CHILDREN the worlds that have
child parts; there `install_in_child()` runs their start_child() and installs one import hook for
their TARGETs. Children inherit both variables through the launchers.

    settings(["sgd_that_climbs"])  ->  the pytest arguments, environment and sys.path of such a run
    PYTHONPATH=meta_tests:. python -m wrong_world.world_hook   # every world on at once: which raise?
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import os
import pathlib
import sys
from types import ModuleType

WORLDS_VAR = "WRONG_WORLD"
CHILD_WORLDS_VAR = "WRONG_WORLD_IN_CHILDREN"
HERE = pathlib.Path(__file__).resolve().parent
WORLDS_DIR = HERE / "worlds"
SITE_DIR = HERE / "site"  # holds the sitecustomize.py every child Python imports
IMPORT_ROOT = HERE.parent  # meta_tests/: `wrong_world.world_hook`, `wrong_world.worlds.<name>`
PACKAGE = "wrong_world.worlds"


def names() -> list[str]:
    """The world modules in worlds/, by name."""
    return sorted(p.stem for p in WORLDS_DIR.glob("*.py") if not p.name.startswith("_"))


def module_name(world: str) -> str:
    """A world's module: a name of worlds/, or a dotted module path under meta_tests/ (the worlds
    of the harness's own tests, pipeline/harness_worlds/)."""
    return world if "." in world else f"{PACKAGE}.{world}"


def is_module(dotted: str) -> bool:
    try:
        return importlib.util.find_spec(dotted) is not None
    except ModuleNotFoundError:  # a package on the way that does not exist
        return False


def settings(worlds: list[str]) -> tuple[list[str], dict[str, str], list[str]]:
    """What a spec run needs to run in `worlds`: (pytest arguments, environment variables to set,
    folders to put on sys.path and PYTHONPATH). An unknown world raises ValueError."""
    unknown = [w for w in worlds if w not in names() and not ("." in w and is_module(w))]
    if unknown:
        raise ValueError(f"no such world {unknown} in {WORLDS_DIR}; known: {names()}")
    return ["-p", "wrong_world.world_hook"], {WORLDS_VAR: ",".join(worlds)}, [str(IMPORT_ROOT)]


def load(var: str) -> list[ModuleType]:
    """The world modules that environment variable `var` names."""
    return [importlib.import_module(module_name(w)) for w in filter(None, os.environ.get(var, "").split(","))]


def has_child_parts(world: ModuleType) -> bool:
    return hasattr(world, "start_child") or hasattr(world, "patch")


# --- the pytest process: a plugin


def pytest_load_initial_conftests(early_config) -> None:
    """Switch the worlds on here before the project's conftest imports what they patch, and hand
    their child parts to every process this one starts. (A plain hook: registered by -p after
    pytest's own, it runs before pytest loads the conftests; and this module imports no pytest, so
    that the children's sitecustomize stays light.)"""
    worlds = []
    for name in filter(None, os.environ.get(WORLDS_VAR, "").split(",")):
        # each world imported after the one before it is on: what it keeps of the function it
        # wraps is then that world's version, so two worlds of one function compose
        world = importlib.import_module(module_name(name))
        if hasattr(world, "apply"):
            world.apply()
        early_config.pluginmanager.register(world, f"wrong-world-{name}")  # its pytest hooks, if any
        worlds.append((name, world))
    children = [name for name, world in worlds if has_child_parts(world)]
    if children:
        os.environ[CHILD_WORLDS_VAR] = ",".join(children)
        os.environ["PYTHONPATH"] = os.pathsep.join(
            filter(None, [str(SITE_DIR), str(IMPORT_ROOT), os.environ.get("PYTHONPATH")]))


# --- every child Python: called by site/sitecustomize.py at start-up


class AfterImport(importlib.abc.MetaPathFinder):
    """Calls each patch(module) of `patches` right after the module it names is imported."""

    def __init__(self, patches: dict[str, list]):
        self.patches = patches

    def find_spec(self, name, path, target=None):
        if name not in self.patches:
            return None
        sys.meta_path.remove(self)
        try:
            spec = importlib.util.find_spec(name)
        finally:
            sys.meta_path.insert(0, self)
        exec_module = spec.loader.exec_module

        def exec_and_patch(module):
            exec_module(module)
            for patch in self.patches[name]:
                patch(module)

        spec.loader.exec_module = exec_and_patch
        return spec


def install_in_child() -> None:
    """Run the start-up part of every world named in CHILD_WORLDS_VAR and hook their TARGET imports."""
    patches: dict[str, list] = {}
    for world in load(CHILD_WORLDS_VAR):
        if hasattr(world, "start_child"):
            world.start_child()
        if hasattr(world, "patch"):
            patches.setdefault(world.TARGET, []).append(world.patch)
    if patches:
        sys.meta_path.insert(0, AfterImport(patches))


# --- every world at once, in a Python of its own (it patches torch for good)


def switch_on_every_world() -> dict[str, str]:
    """Every world's parts, run in this process: {world: traceback} for those that raise. Worlds of
    an optional library this environment lacks (einops, mxnet, ...) are left out."""
    import traceback

    errors = {}
    for name in names():
        try:
            world = importlib.import_module(f"{PACKAGE}.{name}")
        except ModuleNotFoundError as e:
            if e.name.split(".")[0] in ("torch", "torchvision", "fixtures", "wrong_world"):
                raise
            continue
        try:
            for part in ("apply", "start_child"):
                if hasattr(world, part):
                    getattr(world, part)()
            if hasattr(world, "patch"):
                world.patch(importlib.import_module(world.TARGET))
        except Exception:
            errors[name] = traceback.format_exc()
    return errors


if __name__ == "__main__":
    failed = switch_on_every_world()
    for name, error in failed.items():
        print(f"{name}: {error}")
    sys.exit(1 if failed else 0)
