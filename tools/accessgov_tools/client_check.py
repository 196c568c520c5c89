"""No green review over a broken SDK: the generated packages import where only their declared dependencies are.

`make check-generated` (and so `make check`) runs this on what the contract generates:

- every module of the Python SDK (`<out>/client/accessgov_client`) is imported in a virtual environment holding
  only the SDK's declared dependencies (its `pyproject.toml`), and every module of the models package
  (`<out>/models`) in one holding only pydantic (`MODELS_REQUIREMENTS`);
- the TypeScript SDK compiles with the regenerated types (`accessgov_tools.generate_ts.compile_check`).

A failure names the schema it comes from: the class of the generated module where the import failed (a model is
named after its schema), or the `components.schemas` member of `schema.ts` where tsc stopped. The environments are
made once per set of requirements and kept under `build/clean-envs/` (made without pip and filled by this
interpreter's pip, as the SDK tests do; a lock keeps two runs from making one twice).
"""

from __future__ import annotations

import ast
import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
import venv
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from uv import find_uv_bin

from accessgov_tools.paths import REPO

# The models package's one dependency: the pydantic it is generated for (`--target-pydantic-version` in generate.py).
MODELS_REQUIREMENTS = ("pydantic>=2.14,<3",)
CLIENT_PACKAGE = "accessgov_client"
ENV_CACHE = REPO / "build" / "clean-envs"
INSTALL_TIMEOUT_SECONDS = 900
IMPORT_TIMEOUT_SECONDS = 300

# Run by the clean environment's interpreter (isolated mode: no PYTHONPATH, no user site, no working directory):
# imports every module of the given packages under ROOT and prints, as JSON, each failure with the frames of its
# traceback that lie under ROOT.
_IMPORTER = r"""
import importlib, json, pathlib, sys, traceback
root = pathlib.Path(sys.argv[1]).resolve()
sys.path.insert(0, str(root))
failures = []
for package in sys.argv[2:]:
    base = root / package
    files = sorted(base.rglob("*.py")) if base.is_dir() else []
    for path in files:
        parts = path.relative_to(root).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        try:
            importlib.import_module(module)
        except BaseException as error:
            frames = [
                (str(pathlib.Path(f.filename).resolve().relative_to(root)), f.lineno or 0)
                for f in traceback.extract_tb(error.__traceback__)
                if pathlib.Path(f.filename).resolve().is_relative_to(root)
            ]
            failures.append({"module": module, "error": f"{type(error).__name__}: {error}", "frames": frames})
print(json.dumps(failures))
"""


class CleanEnvError(Exception):
    """A clean environment could not be made (pip failed), or the importer did not run."""


@dataclass(frozen=True)
class ImportFailure:
    """A generated module that does not import: the error, and the schema (or class) it comes from."""

    module: str
    error: str
    file: str | None
    line: int | None
    schema: str | None

    def __str__(self) -> str:
        where = f" ({self.file}:{self.line})" if self.file else ""
        return f"{self.schema or f'module {self.module}'}{where}: {self.error}"


def declared_dependencies(client_dir: Path) -> tuple[str, ...]:
    """The Python SDK's `project.dependencies`, as its `pyproject.toml` declares them."""
    project = tomllib.loads((client_dir / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return tuple(project.get("dependencies", []))


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def clean_env(requirements: Sequence[str], cache: Path = ENV_CACHE) -> Path:
    """The interpreter of a virtual environment holding `requirements` and their dependencies only (made once)."""
    key = hashlib.sha256("\n".join([sys.version, *sorted(requirements)]).encode()).hexdigest()[:16]
    target = cache / key
    python = target / "bin" / "python"
    with _locked(cache / f"{key}.lock"):
        if (target / ".complete").is_file():
            return python
        # Made where it stays (a venv's scripts name their path), complete once `.complete` is written: an
        # interrupted run leaves none, and the next one starts again.
        shutil.rmtree(target, ignore_errors=True)
        venv.EnvBuilder(with_pip=False, symlinks=True).create(target)
        if requirements:
            # uv resolves the declared ranges as pip would, about ten times faster. --no-config: uv would read a
            # `uv.toml` or `[tool.uv]` of the working directory and its parents (the checkout a pull request
            # writes) and install from the index it names; the index is the user's, UV_* variables only.
            # --compile-bytecode: the import check runs with bytecode writing off (it must leave nothing beside
            # the generated sources), so the dependencies are compiled here, once, not at every check.
            command = [
                find_uv_bin(),
                "pip",
                "install",
                "--no-config",
                "--compile-bytecode",
                "--python",
                str(python),
                "--quiet",
                *requirements,
            ]
            done = subprocess.run(command, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_SECONDS, check=False)
            if done.returncode != 0:
                raise CleanEnvError(f"uv pip install {' '.join(requirements)} failed:\n{done.stdout}{done.stderr}")
        (target / ".complete").write_text("\n".join(requirements) + "\n", encoding="utf-8")
    return python


def _class_at(path: Path, line: int) -> str | None:
    """The top-level class a line of a generated module defines, or whose `model_rebuild()` it calls."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return None
    for node in tree.body:
        if not node.lineno <= line <= (node.end_lineno or node.lineno):
            continue
        if isinstance(node, ast.ClassDef):
            return node.name
        call = node.value if isinstance(node, ast.Expr) else None
        if (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and isinstance(call.func.value, ast.Name)
        ):
            return call.func.value.id
    return None


def import_all(python: Path, root: Path, packages: Sequence[str], schemas: Sequence[str] = ()) -> list[ImportFailure]:
    """Import every module of `packages` (directories under `root`) with `python`; the failures, each with the
    schema (one of `schemas`) or class it comes from."""
    with tempfile.TemporaryDirectory(prefix="accessgov-import-") as cwd:
        env = {"PATH": os.environ.get("PATH", ""), "HOME": cwd, "PYTHONDONTWRITEBYTECODE": "1"}
        done = subprocess.run(
            [str(python), "-I", "-c", _IMPORTER, str(root), *packages],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=IMPORT_TIMEOUT_SECONDS,
            check=False,
        )
    if done.returncode != 0:
        raise CleanEnvError(f"the import check did not run ({done.returncode}):\n{done.stderr[-2000:]}")
    known = set(schemas)
    failures = []
    for item in json.loads(done.stdout.strip().splitlines()[-1]):
        file, line = item["frames"][-1] if item["frames"] else (None, None)
        name = _class_at(root / file, line) if file and line else None
        schema = None if name is None else (f"schema {name}" if name in known else f"class {name}")
        failures.append(ImportFailure(item["module"], item["error"], file, line, schema))
    return failures


def check_python(out_dir: Path, schemas: Sequence[str]) -> list[ImportFailure]:
    """Every module of `<out_dir>/client/accessgov_client` and of `<out_dir>/models`, each in its clean env."""
    failures = []
    client_dir = out_dir / "client"
    if (client_dir / CLIENT_PACKAGE).is_dir():
        python = clean_env(declared_dependencies(client_dir))
        failures += import_all(python, client_dir, [CLIENT_PACKAGE], schemas)
    if (out_dir / "models").is_dir():
        failures += import_all(clean_env(MODELS_REQUIREMENTS), out_dir, ["models"], schemas)
    return failures
