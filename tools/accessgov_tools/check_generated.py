"""Fail when the committed `generated/` is not what the spec produces (bundle, variants, models, client).

Re-bundles the split spec into a temporary directory, applies `overlays/*.yaml` to it (the SDK variant is the
client's input), regenerates the models and the client there with `accessgov_tools.generate`, and compares every file
byte for byte with the committed copy. Differences are printed as unified diffs (truncated per file); the exit
status is 1 then, 0 when everything is up to date.
"""

from __future__ import annotations

import argparse
import difflib
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from accessgov_tools import generation_cache
from accessgov_tools.bundle import DEFAULT_ROOT, bundle, write_bundle
from accessgov_tools.generate import GenerationError, generate
from accessgov_tools.generate_stub import write as write_stub
from accessgov_tools.paths import REPO

DEFAULT_GENERATED = REPO / "generated"
OVERLAYS_DIR = REPO / "overlays"
# Trees that accessgov_tools.generate owns wholesale: a committed file there that is not regenerated is stale.
OWNED_TREES = ("models", "client", "stub_server")
# Local build and cache artefacts, never part of the generated output.
IGNORED_PARTS = {"__pycache__", ".ruff_cache", ".pytest_cache", "build", "dist"}
MAX_DIFF_LINES = 40


def _ignored(relative: Path) -> bool:
    return any(part in IGNORED_PARTS or part.endswith(".egg-info") for part in relative.parts) or (
        relative.suffix == ".pyc"
    )


def files_under(root: Path) -> Iterator[Path]:
    """Every regular file below `root`, relative to it, build and cache artefacts excluded."""
    if root.is_dir():
        for path in sorted(root.rglob("*")):
            relative = path.relative_to(root)
            if path.is_file() and not _ignored(relative):
                yield relative


def regenerate(spec_root: Path, out_dir: Path, overlays_dir: Path = OVERLAYS_DIR) -> list[Path]:
    """Bundle, variants, models, client and stub server of `spec_root` in `out_dir`; return produced paths."""
    produced = [p.relative_to(out_dir) for p in write_bundle(bundle(spec_root), out_dir / "openapi")]
    if sorted(overlays_dir.glob("*.yaml")):
        from accessgov_tools.overlay import variant_outputs

        for path, text in variant_outputs(overlays_dir, out_dir / "openapi.yaml", out_dir / "variants").items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            produced.append(path.relative_to(out_dir))
    generate(out_dir, log=lambda _message: None)
    write_stub(out_dir / "stub_server", out_dir / "openapi.json")
    for tree in OWNED_TREES:
        produced.extend(Path(tree) / relative for relative in files_under(out_dir / tree))
    return produced


def _read(path: Path) -> bytes | None:
    return path.read_bytes() if path.is_file() else None


def file_diff(relative: Path, committed: bytes | None, expected: bytes | None, limit: int = MAX_DIFF_LINES) -> str:
    """A unified diff from the committed file to the regenerated one, cut after `limit` lines."""
    old = (committed or b"").decode("utf-8", errors="replace").splitlines(keepends=True)
    new = (expected or b"").decode("utf-8", errors="replace").splitlines(keepends=True)
    name = f"generated/{relative.as_posix()}"
    lines = list(
        difflib.unified_diff(
            old,
            new,
            f"{name} (committed)" if committed is not None else "/dev/null (not committed)",
            f"{name} (regenerated)" if expected is not None else "/dev/null (no longer generated)",
        )
    )
    lines = [line if line.endswith("\n") else line + "\n" for line in lines]
    if len(lines) > limit:
        lines = [*lines[:limit], f"... {len(lines) - limit} more diff lines for {name}\n"]
    return "".join(lines)


def compare(produced: list[Path], fresh_dir: Path, committed_dir: Path) -> list[tuple[Path, str]]:
    """(file, diff) for every produced file that differs and every stale file in the owned trees."""
    differences = []
    for relative in produced:
        expected, committed = _read(fresh_dir / relative), _read(committed_dir / relative)
        if expected != committed:
            differences.append((relative, file_diff(relative, committed, expected)))
    produced_set = set(produced)
    for tree in OWNED_TREES:
        for relative in files_under(committed_dir / tree):
            if Path(tree) / relative not in produced_set:
                stale = Path(tree) / relative
                differences.append((stale, file_diff(stale, _read(committed_dir / stale), None)))
    return differences


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--spec-root",
        type=Path,
        default=DEFAULT_ROOT,
        help="root document of the split spec, or the directory holding openapi.yaml (default: spec/openapi.yaml)",
    )
    parser.add_argument("--generated", type=Path, default=DEFAULT_GENERATED, help="the committed output to check")
    parser.add_argument(
        "--full", action="store_true", help="check even when nothing changed since the last generate or check"
    )
    args = parser.parse_args(argv)
    spec_root = args.spec_root / "openapi.yaml" if args.spec_root.is_dir() else args.spec_root
    this_tree = args.generated == DEFAULT_GENERATED and spec_root == DEFAULT_ROOT and OVERLAYS_DIR.is_dir()
    if this_tree and not args.full and generation_cache.fresh():
        print("generated/ is up to date (spec/, the generators and generated/ unchanged since the last check)")
        return 0
    before = generation_cache.fingerprints() if this_tree else None
    with tempfile.TemporaryDirectory(prefix="accessgov-check-generated-") as tmp:
        fresh = Path(tmp)
        try:
            produced = regenerate(spec_root, fresh)
        except GenerationError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        differences = compare(produced, fresh, args.generated)
    if not differences:
        if before is not None and before == generation_cache.fingerprints():  # nothing moved while it ran
            generation_cache.record(prints=before)
        print(f"generated/ is up to date ({len(produced)} files checked)")
        return 0
    for _, diff in differences:
        sys.stdout.write(diff)
    print(f"\n{len(differences)} generated file(s) out of date:", file=sys.stderr)
    for relative, _ in differences:
        print(f"  generated/{relative.as_posix()}", file=sys.stderr)
    print(
        "regenerate with: make generate (bundle, overlays, models, client and stub server), then commit generated/",
        file=sys.stderr,
    )
    return 1


if __name__ == "__main__":
    sys.exit(main())
