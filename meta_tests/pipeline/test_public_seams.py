"""The seams between modules are public: no module of a checked package imports a private name
(`_x`) of another project module, as `from M import _x` or `M._x` on an imported module. A name
that one module shares with another is part of its interface and is named as such.

Read from the sources with ast; red in a world where one module reaches into another's privates
(`from harness.matrix.model import _span`, `report._figures(...)`)."""
import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
# the packages whose modules are held to public seams (each a folder under the checkout)
PACKAGES = ("harness", "fixtures", "meta_tests")
PROJECT = ("harness", "fixtures", "meta_tests", "tests")  # a module of these is a project module


def _module_name(path: pathlib.Path, root: pathlib.Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _absolute(node: ast.ImportFrom, here: str, is_package: bool) -> str:
    """The absolute module of a `from ... import`, relative imports resolved against `here`."""
    if not node.level:
        return node.module or ""
    base = here.split(".") if is_package else here.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_imports(path: pathlib.Path, root: pathlib.Path = ROOT) -> list[str]:
    """`file:line: what` for each private name of another project module that `path` uses."""
    here = _module_name(path, root)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    aliases: dict[str, str] = {}  # local name -> the project module it is bound to
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] in PROJECT:
                    aliases[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom):
            module = _absolute(node, here, path.name == "__init__.py")
            if module.split(".")[0] not in PROJECT or module == here:
                continue
            for a in node.names:
                if _private(a.name):
                    found.append(f"{path.relative_to(root)}:{node.lineno}: from {module} import {a.name}")
                else:  # `from harness import report` binds a module
                    aliases[a.asname or a.name] = f"{module}.{a.name}"
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and _private(node.attr) and isinstance(node.value, ast.Name)
                and node.value.id in aliases and aliases[node.value.id] != here):
            found.append(f"{path.relative_to(root)}:{node.lineno}: {aliases[node.value.id]}.{node.attr}")
    return found


@pytest.mark.parametrize("package", PACKAGES)
def test_no_module_imports_a_private_name_of_another(package):
    found = [hit for p in sorted((ROOT / package).rglob("*.py")) for hit in private_imports(p)]
    assert found == [], f"{package}/ uses private names of other modules: {found}; expected none (name them public)"


def test_the_check_sees_both_spellings(tmp_path):
    """The check itself is red on both spellings, and quiet on a module's own privates."""
    pkg = tmp_path / "harness"
    pkg.mkdir()
    (pkg / "a.py").write_text("def _own():\n    return 1\n\n\nx = _own()\n")
    (pkg / "b.py").write_text("from harness.a import _own\nfrom harness import a\n\ny = a._own() + _own()\n")
    found = [hit for p in sorted(pkg.rglob("*.py")) for hit in private_imports(p, tmp_path)]
    assert found == ["harness/b.py:1: from harness.a import _own", "harness/b.py:4: harness.a._own"], found
