"""Clean virtual environments for the tests that prove a product installs alone: one per product (the server, the
reviewers' tools, the SDK, the kit), built once per test run and shared by every test and xdist worker that needs it
(fixtures `server_venv`, `tools_venv`, `sdk_venv`, `kit_venv`; a plugin of tests/conftest.py).

An environment is made without pip (`ensurepip` costs seconds per environment and is not what is tested) and
filled by uv (`uv pip install --no-config --python`, the reviewers' tools' pinned uv: no `uv.toml` or `[tool.uv]`
of the checkout is read), which resolves the product's declared ranges as pip does, without byte-compiling (each
process compiles what it imports), about ten times faster than pip (docs/testing.md). Only the product and its
dependencies end up in it. A product that is a wheel (the server, the SDK) is built once with `uv build --wheel`
from a copy of its sources (a build in the tree leaves `build/` and `*.egg-info/` beside them), by its own build
backend in an isolated environment, and that wheel is what goes into the environment: the artefact a user
installs, which the tests also open.

Under pytest-xdist the first worker to ask builds the environment in the run's shared temporary directory while
holding a lock; the others wait for it and reuse it. Tests must not change an environment (install into it,
delete from it): other tests use it after them.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import subprocess
import venv
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from uv import find_uv_bin

REPO = Path(__file__).resolve().parents[2]
CLIENT_DIR = REPO / "generated" / "client"
_IGNORED = shutil.ignore_patterns("__pycache__", "*.egg-info", "build")


def server_sources(into: Path) -> Path:
    """A copy of the server's project (`accessgov/`, `generated/` it maps its documents from, `pyproject.toml`,
    the README) at `into`, without caches or build leftovers: what `pip install .` or `pip wheel .` reads."""
    for part in ("accessgov", "generated"):
        shutil.copytree(REPO / part, into / part, ignore=_IGNORED)
    for part in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / part, into / part)
    return into


def new_venv(path: Path) -> Path:
    """Create an empty virtual environment at `path` (no pip, no setuptools); return its interpreter."""
    venv.EnvBuilder(with_pip=False, symlinks=True).create(path)
    return path / "bin" / "python"


def _run(command: list[str], cwd: Path, timeout: float) -> str:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False)
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def pip(python: Path, command: str, *args: str | Path, cwd: Path, timeout: float = 900) -> str:
    """Run a pip command for the environment of `python` (`uv pip COMMAND --python PYTHON ARGS`) and return its
    output; fail the test with uv's output when it fails."""
    return _run([find_uv_bin(), "pip", command, "--no-config", "--python", str(python), *map(str, args)], cwd, timeout)


@dataclass(frozen=True)
class ProductVenv:
    """A clean environment holding one product: its interpreter, its `bin/`, its `site-packages`, and the wheel
    that was installed into it (None for a product installed from its folder)."""

    root: Path
    wheel: Path | None

    @property
    def python(self) -> Path:
        return self.root / "bin" / "python"

    @property
    def bin(self) -> Path:
        return self.root / "bin"

    @property
    def site_packages(self) -> Path:
        return next((self.root / "lib").glob("python3*/site-packages"))


def _wheel_of(source: Path, into: Path, work: Path) -> Path:
    """`uv build --wheel` of the project at `source` into `into`: the one wheel it built."""
    _run([find_uv_bin(), "build", "--no-config", "--quiet", "--wheel", "--out-dir", str(into), str(source)], work, 900)
    (wheel,) = into.glob("*.whl")
    return wheel


def _server(work: Path) -> tuple[Path | None, list[str | Path]]:
    wheel = _wheel_of(server_sources(work / "source"), work / "dist", work)
    shutil.rmtree(work / "source")  # nothing may be read from the sources
    return wheel, [wheel]


def _tools(work: Path) -> tuple[Path | None, list[str | Path]]:
    source = work / "source"
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "build", "redocly")
    shutil.copytree(REPO / "tools", source, ignore=ignore)
    return None, [f"{source}[mock]"]


def _sdk(work: Path) -> tuple[Path | None, list[str | Path]]:
    source = work / "client"
    shutil.copytree(CLIENT_DIR, source, ignore=_IGNORED)
    wheel = _wheel_of(source, work / "dist", work)
    return wheel, [wheel]


def _kit(work: Path) -> tuple[Path | None, list[str | Path]]:
    # The README's one command, from the checkout: the SDK (the kit depends on it by version) and the kit, whose
    # wheel is built first as `pip install ./conformance` builds it, and kept: the kit's tests open it (one build).
    wheel = _wheel_of(REPO / "conformance", work / "dist", work)
    return wheel, ["./generated/client", wheel]


PRODUCTS: dict[str, Callable[[Path], tuple[Path | None, list[str | Path]]]] = {
    "server": _server,
    "tools": _tools,
    "sdk": _sdk,
    "kit": _kit,
}


def _build(product: str, work: Path) -> ProductVenv:
    wheel, requirements = PRODUCTS[product](work)
    python = new_venv(work / "venv")
    cwd = REPO if product == "kit" else work
    pip(python, "install", "--quiet", *requirements, cwd=cwd)
    if product == "tools":
        shutil.rmtree(work / "source")  # nothing may be read from the sources any more
    return ProductVenv(work / "venv", wheel)


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    with path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def product_venv(tmp_path_factory: pytest.TempPathFactory, product: str) -> ProductVenv:
    """The clean environment of `product`, built by the first test of the run that asks for it."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # the run's directory, which its workers share
    work = base / f"venv-{product}"
    with _locked(base / f"venv-{product}.lock"):
        done = work / "built"
        if not done.exists():
            shutil.rmtree(work, ignore_errors=True)  # a build that failed half-way
            work.mkdir()
            built = _build(product, work)
            done.write_text(str(built.wheel or ""), encoding="utf-8")
        wheel = done.read_text(encoding="utf-8")
        return ProductVenv(work / "venv", Path(wheel) if wheel else None)


def _fixture(product: str, doc: str) -> Any:
    """The session fixture `<product>_venv`: the product's clean environment (`product_venv`)."""

    def fixture(tmp_path_factory: pytest.TempPathFactory) -> ProductVenv:
        return product_venv(tmp_path_factory, product)

    fixture.__doc__ = doc
    return pytest.fixture(scope="session", name=f"{product}_venv")(fixture)


server_venv = _fixture(
    "server", "The server's wheel (built from a copy of the sources, then deleted), with its dependencies."
)
tools_venv = _fixture("tools", "`pip install './tools[mock]'` from a copy of `tools/` (deleted after the install).")
sdk_venv = _fixture(
    "sdk", "The SDK's wheel (built from a copy of `generated/client`), installed with its dependencies."
)
kit_venv = _fixture(
    "kit", "`pip install ./generated/client ./conformance`, the README's one command for the kit (its wheel kept)."
)
