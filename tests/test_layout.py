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
    assert PACKAGES == ["clean_html", "decode", "dedup", "extract", "read", "signals", "write"]


@pytest.mark.parametrize("package", ["decode", "extract", "signals"])
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


PAGES = {
    "plain": b"<html><title>T</title><body><article><p>" + b"Plain prose here. " * 20 + b"</p>",
    "mojibake": "<html><body><p>The caf\u00c3\u00a9 on the corner serves cr\u00c3\u00aapes "
    "all day long, every day of the week.</p></body></html>".encode(),
    "deep": b"<html><body>"
    + b"<div>" * 30_000
    + b"<p>deep text at the bottom</p>"
    + b"</div>" * 30_000,
}


@pytest.mark.parametrize("name", sorted(PAGES))
def test_extract_is_what_the_job_runs_on_a_page(name: str) -> None:
    from transforms.clean_html import clean_record
    from transforms.extract import Extractor, extract
    from transforms.records import ArchiveRecord

    html = PAGES[name]
    record = ArchiveRecord("f", "id", "resource", 0, url="https://example.com/", payload=html)
    kind, row = clean_record(record, Extractor())
    assert kind == "row", row
    result = extract(html, "https://example.com/")
    assert (row["title"], row["text"], row["truncated"]) == (
        result.title,
        result.text,
        result.truncated,
    )
    if name == "mojibake":
        assert "café" in result.text and "crêpes" in result.text
    if name == "deep":
        assert result.truncated and "deep text at the bottom" in result.text
