"""Where the two contracts of a diff come from: a git ref, a split spec, a bundled file, or none at all.

A `Source` says where; `load()` reads it into a `Contract`: the bundled document, and where its pointers can be
found again in `spec/` (the root file of the split spec, or the file itself, with its YAML node tree when
reading it composed one). Documents are read by `accessgov_tools/loader.py` and bundled by `bundle.py`.
"""

from __future__ import annotations

import io
import re
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from accessgov_tools.bundle import DEFAULT_ROOT, bundle
from accessgov_tools.display import visible
from accessgov_tools.loader import LoadError, load_with_nodes
from accessgov_tools.paths import REPO, shown

EMPTY_REF = "none"  # a contract that has no operations yet (a first release compares with it)


@dataclass(frozen=True)
class GitRef:
    """`spec/` as it is in the commit `ref` of the repository."""

    ref: str


@dataclass(frozen=True)
class SplitSpec:
    """A split spec, by its root file (`spec/openapi.yaml`), bundled."""

    root: Path = DEFAULT_ROOT


@dataclass(frozen=True)
class File:
    """One bundled (or self-contained) document, JSON or YAML."""

    path: Path


@dataclass(frozen=True)
class Empty:
    """A contract with no operations (`none`)."""


Source = GitRef | SplitSpec | File | Empty


@dataclass
class Contract:
    """A bundled document, and where a pointer into it is located (None: nowhere, e.g. a git ref's)."""

    document: dict[str, Any]
    root: Path | None = None
    node: yaml.Node | None = None  # the root file's node tree, when reading it composed one


def source(value: str | Path) -> Source:
    """What a release's BASE or `--head` names: `none`, a directory holding `openapi.yaml`, a file, a git ref."""
    if str(value) == EMPTY_REF:
        return Empty()
    path = Path(value)
    if path.is_dir():
        return SplitSpec(path / "openapi.yaml")
    if path.is_file():
        return File(path)
    return GitRef(str(value))


def load(where: Source, *, nodes: bool = True) -> Contract:
    """Read the contract `where` names (a LoadError when it cannot be read); `nodes=False` drops the node tree
    of a YAML file once it is read (a base's lines are never looked up)."""
    if isinstance(where, GitRef):
        return Contract(bundle_at_ref(where.ref))
    if isinstance(where, SplitSpec):
        return Contract(bundle(where.root), where.root)
    if isinstance(where, File):
        document, node = load_file_with_nodes(where.path)
        return Contract(document, where.path, node if nodes else None)
    return Contract({"openapi": "3.1.0", "info": {"title": "", "version": "0.0.0"}, "paths": {}})


def load_file(path: Path) -> dict[str, Any]:
    """A bundled (or self-contained) OpenAPI document from JSON or YAML 1.2 (`accessgov_tools/loader.py`)."""
    return load_file_with_nodes(path)[0]


def load_file_with_nodes(path: Path) -> tuple[dict[str, Any], yaml.Node | None]:
    """`load_file(path)` and its YAML node tree (None for JSON), for the head's line numbers from the same read."""
    doc, node = load_with_nodes(path)
    if not isinstance(doc, dict):
        raise LoadError(f"{path}: an OpenAPI document is a mapping, not {type(doc).__name__}")
    return doc, node


def resolve_ref(ref: str, repo: Path = REPO) -> str:
    """The commit a revision names, as its full hash; a SystemExit (exit 2) when it names none. The revision is
    handed to git after `--end-of-options`, so `--output=FILE`, `--remote=URL` or any other text that reads as an
    option is a revision git does not know, never an option."""
    resolved = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"],
        capture_output=True,
        check=False,
    )
    commit = resolved.stdout.decode("ascii", "replace").strip()
    if resolved.returncode != 0 or not re.fullmatch(r"[0-9a-f]{40}(?:[0-9a-f]{24})?", commit):
        raise SystemExit(f"error: {visible(ref, 200)!r} names no commit of {shown(repo)} (a git revision)")
    return commit


def bundle_at_ref(ref: str, repo: Path = REPO, spec_dir: str = "spec") -> dict[str, Any]:
    """The bundle of `spec_dir` as it is in the commit `ref` (extracted with `git archive`, no checkout)."""
    commit = resolve_ref(ref, repo)
    archive = subprocess.run(
        ["git", "-C", str(repo), "archive", "--format=tar", commit, "--", spec_dir], capture_output=True, check=False
    )
    if archive.returncode != 0:
        problem = visible(archive.stderr.decode("utf-8", "replace").strip(), 500)
        raise SystemExit(f"error: cannot read {spec_dir}/ at {visible(ref, 200)!r}: {problem}")
    with (
        tempfile.TemporaryDirectory(prefix="contract-base-") as tmp,
        tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar,
    ):
        try:
            tar.extractall(tmp, filter="data")
        except tarfile.FilterError as error:  # a link in the commit's tree that leads out of it
            raise SystemExit(
                f"error: {spec_dir}/ at {visible(ref, 200)!r}: reference rule spec-root: {visible(error, 300)}"
            ) from None
        return bundle(Path(tmp) / spec_dir / "openapi.yaml")
