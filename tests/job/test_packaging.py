"""What workers install: setup.py's bounds hold for what is tested, and the Dockerfile builds it
(the compiled walk included).

No Docker engine here, so the Dockerfile is checked by what can be checked without one: its
base image is Beam's SDK image for the installed Beam and Python, everything it COPYs exists, and
the package builds (as its RUN step does) from nothing but the files it COPYs.
"""

from __future__ import annotations

import importlib.metadata
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any
from unittest import mock

import apache_beam
import setuptools
from apache_beam.transforms import environments
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
TESTED_EXTRAS = ("test", "dev")


def setup_kwargs() -> dict[str, Any]:
    """The arguments setup.py passes to ``setup()``, read by running it with ``setup`` replaced."""
    captured: dict[str, Any] = {}
    with mock.patch.object(setuptools, "setup", lambda **kw: captured.update(kw)):
        source = (ROOT / "setup.py").read_text()
        exec(compile(source, str(ROOT / "setup.py"), "exec"), {"__name__": "__main__"})
    return captured


def requirements(kwargs: dict[str, Any]) -> list[Requirement]:
    reqs = [Requirement(r) for r in kwargs["install_requires"]]
    for extra in TESTED_EXTRAS:
        reqs += [Requirement(r) for r in kwargs["extras_require"][extra]]
    return reqs


def test_installed_versions_satisfy_setup_py_bounds():
    """The versions every test here ran with lie inside the ranges that workers will install."""
    outside = []
    for req in requirements(setup_kwargs()):
        installed = importlib.metadata.version(req.name)
        if not req.specifier.contains(installed, prereleases=True):
            outside.append(f"{req.name} {installed} not in {req.specifier}")
    assert outside == []


def test_installed_package_metadata_matches_setup_py():
    """The venv was installed from this setup.py (a stale install would test other bounds)."""
    kwargs = setup_kwargs()
    installed = importlib.metadata.requires(kwargs["name"]) or []
    runtime = {str(Requirement(r)) for r in installed if "extra ==" not in r}
    assert runtime == {str(Requirement(r)) for r in kwargs["install_requires"]}


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, with line continuations joined and comments dropped."""
    text = re.sub(r"\\\n", " ", (ROOT / "Dockerfile").read_text())
    pairs = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            pairs.append((word.upper(), rest.strip()))
    return pairs


def dockerfile_args() -> dict[str, str]:
    return dict(
        rest.split("=", 1)
        for word, rest in dockerfile_instructions()
        if word == "ARG" and "=" in rest
    )


def test_dockerfile_base_image_is_beams_sdk_image_for_this_beam_and_python():
    instructions = dockerfile_instructions()
    base = next(rest for word, rest in instructions if word == "FROM")
    args = dockerfile_args()
    image = re.sub(r"\$\{(\w+)\}", lambda m: args[m.group(1)], base)
    # Beam's own default SDK image for the running SDK: what Dataflow and Flink would otherwise use.
    assert image == environments.DockerEnvironment.default_docker_image()
    assert args["BEAM_VERSION"] == apache_beam.__version__
    assert args["PYTHON_VERSION"] == f"{sys.version_info.major}.{sys.version_info.minor}"
    beam_bound = next(
        Requirement(r) for r in setup_kwargs()["install_requires"] if r.startswith("apache-beam")
    )
    assert beam_bound.specifier.contains(args["BEAM_VERSION"])


def dockerfile_copies() -> list[str]:
    sources = []
    for word, rest in dockerfile_instructions():
        if word == "COPY":
            assert not rest.startswith("--from"), "the image builds from this context only"
            sources += rest.split()[:-1]
    return sources


def test_dockerfile_copies_files_that_exist_and_every_package():
    sources = dockerfile_copies()
    assert sources
    for source in sources:
        assert (ROOT / source).exists(), source
    packages = {p.split(".")[0] for p in setup_kwargs()["packages"]}
    assert packages <= set(sources), packages - set(sources)
    # .dockerignore lets in exactly what is copied.
    allowed = {
        line[1:].rstrip("/")
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.startswith("!")
    }
    assert set(sources) <= allowed


def test_package_builds_from_only_the_files_the_dockerfile_copies(tmp_path):
    context = tmp_path / "context"
    context.mkdir()
    for source in dockerfile_copies():
        src = ROOT / source
        if src.is_dir():
            # (what .dockerignore leaves out: caches and a local build of the extension)
            ignored = shutil.ignore_patterns("__pycache__", "*.so", "walk.c")
            shutil.copytree(src, context / source, ignore=ignored)
        else:
            shutil.copy(src, context / source)
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q"]
        + ["-w", str(tmp_path / "wheels"), str(context)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    (wheel,) = (tmp_path / "wheels").glob("*.whl")
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
    modules = {
        p.relative_to(ROOT).as_posix()
        for package in ("beam_jobs", "transforms")
        for p in (ROOT / package).glob("*.py")
    }
    assert modules <= names, modules - names
    # the compiled walk, built from its Cython source by pip (pyproject's build requirements)
    assert any(n.startswith("transforms/extract/walk.") and n.endswith(".so") for n in names)
    name = canonicalize_name(setup_kwargs()["name"])
    assert canonicalize_name(wheel.name.split("-")[0]) == name


def test_the_sdist_workers_install_from_carries_the_extensions_source(tmp_path):
    """Dataflow and portable workers get ``--setup_file``'s sdist and build it: the Cython
    source must be in it (MANIFEST.in), the build requirements in its pyproject.toml."""
    import tarfile

    result = subprocess.run(
        [sys.executable, "setup.py", "-q", "sdist", "--dist-dir", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    (sdist,) = tmp_path.glob("*.tar.gz")
    with tarfile.open(sdist) as tar:
        names = {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}
        pyproject = tar.extractfile(
            next(m for m in tar.getmembers() if m.name.endswith("/pyproject.toml"))
        )
        assert b"Cython" in pyproject.read()
    sources = {str(path.relative_to(ROOT)) for path in ROOT.glob("transforms/*/*.pyx")}
    assert "transforms/extract/walk.pyx" in sources
    assert sources <= names
