"""Skip what has not changed: `make generate` and `make check-generated` on a tree whose inputs and `generated/`
are byte for byte what the last successful run produced or verified.

A run that regenerated or verified `generated/` records two fingerprints in `build/generated.stamp.json` (not
committed): one of every input of the generation (spec/, overlays/, the generators' code, templates and
configuration in the tools' package, the SDK's hand-written modules (sdk/), the server modules the mock vendors,
pyproject.toml and the installed versions of the generators and formatters) and one of every file under
`generated/`. A later run whose two fingerprints are equal has nothing to do. Anything else (an edited spec, a
hand-edited generated file, a new generator version, no stamp, as on a fresh clone and so in CI) runs the whole
generation or check. Design notes: docs/review.md.

    python -m accessgov_tools.generation_cache fresh    exit 0 when nothing changed since the recorded run, else 1
    python -m accessgov_tools.generation_cache record   record the current tree as generated/verified
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Iterable, Iterator
from importlib import metadata
from pathlib import Path

from accessgov_tools.paths import REPO

STAMP = Path("build") / "generated.stamp.json"  # under the repository
# Over-inclusive on purpose: any change under these can change the output (a bench script too: a cheap miss).
INPUTS = (
    "spec",
    "overlays",
    "tools/accessgov_tools",
    "sdk",
    "accessgov/bundle",
    "accessgov/http/edge.py",
    "accessgov/http/coalescing.py",
)
INPUT_FILES = ("pyproject.toml", "redocly.yaml")
GENERATORS = ("datamodel-code-generator", "openapi-python-client", "prance", "black", "isort", "ruff", "PyYAML")
SKIPPED_PARTS = {"__pycache__", "node_modules", ".ruff_cache", ".pytest_cache", ".mypy_cache", "build", "dist"}


def _files(root: Path) -> Iterator[Path]:
    if root.is_file():
        yield root
        return
    for path in sorted(root.rglob("*")):
        parts = path.relative_to(root).parts
        if path.is_file() and not SKIPPED_PARTS.intersection(parts) and path.suffix != ".pyc":
            yield path


def _digest(root: Path, paths: Iterable[Path], extra: Iterable[str] = ()) -> str:
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    for item in extra:
        digest.update(item.encode() + b"\0")
    return digest.hexdigest()


def _version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "absent"


def fingerprints(root: Path = REPO) -> dict[str, str]:
    """The inputs' and the outputs' fingerprints of the tree at `root` as it is now."""
    inputs = [path for name in INPUTS if (root / name).exists() for path in _files(root / name)]
    inputs += [root / name for name in INPUT_FILES if (root / name).is_file()]
    versions = [f"{name}=={_version(name)}" for name in GENERATORS] + [sys.version]
    generated = _files(root / "generated") if (root / "generated").is_dir() else iter(())
    return {"inputs": _digest(root, inputs, versions), "generated": _digest(root, generated)}


def fresh(root: Path = REPO) -> bool:
    """Whether the tree is exactly what the recorded run generated or verified."""
    try:
        recorded = json.loads((root / STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(recorded, dict) and recorded == fingerprints(root)


def record(root: Path = REPO, prints: dict[str, str] | None = None) -> None:
    """Record `prints` (the tree's fingerprints now, when not given) as generated or verified."""
    (root / STAMP).parent.mkdir(parents=True, exist_ok=True)
    (root / STAMP).write_text(json.dumps(prints or fingerprints(root), indent=2) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=["fresh", "record"])
    args = parser.parse_args(argv)
    if args.action == "record":
        record()
        return 0
    return 0 if fresh() else 1


if __name__ == "__main__":
    sys.exit(main())
