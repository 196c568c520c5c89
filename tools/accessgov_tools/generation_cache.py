"""Skip what has not changed: `make generate` and `make check-generated` on a tree whose inputs and `generated/`
are byte for byte what the last successful run produced or verified.

A run that regenerated or verified `generated/` records two fingerprints in `build/generated.stamp.json` (not
committed): one of every input of the generation (spec/, overlays/, the generators' code, templates and
configuration in the tools' package, the SDK's hand-written modules (sdk/), the TypeScript SDK's sources, generator
script and pinned toolchain (sdk-ts/: its generated part is checked, and the whole package compiled, by
check-generated), the server modules the mock vendors, pyproject.toml, the installed versions of the generators and
formatters and Node's version) and one of every file under `generated/`. A later run whose two fingerprints are
equal has nothing to do: a generate after a generate, a check-generated after a check-generated (a generate's
record does not vouch for check-generated's client checks, so a check after a generate runs in full). Anything else
(an edited spec, a hand-edited generated file, a new generator version, no stamp, as on a fresh clone and so in CI)
runs the whole generation or check. Design notes: docs/review.md.

    python -m accessgov_tools.generation_cache fresh    exit 0 when nothing changed since the recorded run, else 1
    python -m accessgov_tools.generation_cache record   record the current tree as generated/verified
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
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
    "sdk-ts/src",
    "sdk-ts/scripts",
)
INPUT_FILES = (
    "pyproject.toml",
    "redocly.yaml",
    "sdk-ts/package.json",
    "sdk-ts/package-lock.json",
    "sdk-ts/tsconfig.json",
)
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


def _node_version() -> str:
    node = shutil.which("node")
    if node is None:
        return "node absent"
    done = subprocess.run([node, "--version"], capture_output=True, text=True, check=False)
    return f"node {done.stdout.strip()}"


def fingerprints(root: Path = REPO) -> dict[str, str]:
    """The inputs' and the outputs' fingerprints of the tree at `root` as it is now."""
    inputs = [path for name in INPUTS if (root / name).exists() for path in _files(root / name)]
    inputs += [root / name for name in INPUT_FILES if (root / name).is_file()]
    versions = [f"{name}=={_version(name)}" for name in GENERATORS] + [sys.version, _node_version()]
    generated = _files(root / "generated") if (root / "generated").is_dir() else iter(())
    return {"inputs": _digest(root, inputs, versions), "generated": _digest(root, generated)}


def _recorded(root: Path) -> dict[str, object] | None:
    try:
        recorded = json.loads((root / STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return recorded if isinstance(recorded, dict) else None


def fresh(root: Path = REPO, *, verified: bool = False) -> bool:
    """Whether the tree is exactly what the recorded run generated or verified (`verified`: what a check-generated
    run verified, its client checks included: a generate alone does not vouch for those)."""
    recorded = _recorded(root)
    if recorded is None or (verified and recorded.get("verified") is not True):
        return False
    return {key: recorded.get(key) for key in ("inputs", "generated")} == fingerprints(root)


def record(root: Path = REPO, prints: dict[str, str] | None = None, *, verified: bool = False) -> None:
    """Record `prints` (the tree's fingerprints now, when not given) as generated, or as verified by check-generated;
    a verified record of the same tree stays verified."""
    prints = prints or fingerprints(root)
    recorded = _recorded(root)
    same = recorded is not None and {key: recorded.get(key) for key in ("inputs", "generated")} == prints
    stamp = {**prints, "verified": verified or (same and recorded is not None and recorded.get("verified") is True)}
    (root / STAMP).parent.mkdir(parents=True, exist_ok=True)
    (root / STAMP).write_text(json.dumps(stamp, indent=2) + "\n", encoding="utf-8")


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
