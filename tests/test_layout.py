"""The rules of ``transforms/__init__.py``: the stage packages and what they may import."""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from transforms.clean_html.guard import _preload_modules

TRANSFORMS = Path(__file__).resolve().parents[1] / "transforms"
PACKAGES = sorted(p.parent.name for p in TRANSFORMS.glob("*/__init__.py"))


def test_the_stage_packages_are_there() -> None:
    assert PACKAGES == ["clean_html", "decode", "extract", "read", "write"]


@pytest.mark.parametrize("package", ["decode", "extract"])
def test_plain_library_stages_never_import_beam(package: str) -> None:
    code = (
        f"import sys, transforms.{package} as p, importlib\n"
        f"for name in p.__all__: getattr(p, name)\n"
        "import pkgutil\n"
        "for m in pkgutil.iter_modules(p.__path__):\n"
        "    if m.name == '__main__': continue\n"
        f"    importlib.import_module('transforms.{package}.' + m.name)\n"
        "print(sorted(m for m in sys.modules if m.startswith(('apache_beam', 'pyarrow'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout


@pytest.mark.parametrize("package", PACKAGES)
def test_package_init_only_reexports(package: str) -> None:
    tree = ast.parse((TRANSFORMS / package / "__init__.py").read_text())
    body = tree.body
    assert isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)  # docstring
    exported: set[str] = set()
    for node in body[1:]:
        if isinstance(node, ast.ImportFrom):
            assert node.module and node.module.startswith(f"transforms.{package}."), node.module
            exported |= {alias.asname or alias.name for alias in node.names}
        else:
            assert isinstance(node, ast.Assign), ast.dump(node)
            assert [t.id for t in node.targets if isinstance(t, ast.Name)] == ["__all__"]
            assert set(ast.literal_eval(node.value)) == exported


def test_the_guards_preloaded_modules_exist() -> None:
    names = [name for name in _preload_modules() if name != "__main__"]
    assert names and all(importlib.util.find_spec(name) for name in names), names
