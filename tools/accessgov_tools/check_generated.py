"""Fail when the committed `generated/` is not what the spec produces, or when what it produces is a broken SDK.

Re-bundles the split spec into a temporary directory, applies `overlays/*.yaml` to it (the SDK variant is the
clients' input), regenerates the models, the Python client, the stub server and the TypeScript SDK's generated part
there, and compares every file byte for byte with the committed copy (`generated/`, `sdk-ts/src/generated/`, the
TypeScript package's version in `sdk-ts/package.json` and `package-lock.json`). Differences are printed as unified
diffs (truncated per file). Then the regenerated clients are held to work (`accessgov_tools.client_check`): every
module of the Python SDK and of the models imports in a clean environment with only their declared dependencies,
and the TypeScript SDK compiles (`tsc --strict`); a failure names the schema it comes from. The exit status is 1
on a difference or a broken client, 2 when generation itself fails, 0 when everything is up to date and works.
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from accessgov_tools import client_check, generate_ts, generation_cache
from accessgov_tools.bundle import DEFAULT_ROOT, bundle, write_bundle
from accessgov_tools.generate import GenerationError, generate, schemas_of
from accessgov_tools.generate_stub import write as write_stub
from accessgov_tools.overlay import OverlayError
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


def regenerate(
    spec_root: Path, out_dir: Path, overlays_dir: Path = OVERLAYS_DIR, typescript: Path | None = None
) -> list[Path]:
    """Bundle, variants, models, client and stub server of `spec_root` in `out_dir`, and the TypeScript SDK's
    generated part in `typescript` when given; return the paths produced in `out_dir`."""
    produced = [p.relative_to(out_dir) for p in write_bundle(bundle(spec_root), out_dir / "openapi")]
    if sorted(overlays_dir.glob("*.yaml")):
        from accessgov_tools.overlay import variant_outputs

        for path, text in variant_outputs(overlays_dir, out_dir / "openapi.yaml", out_dir / "variants").items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            produced.append(path.relative_to(out_dir))
    generate(out_dir, log=lambda _message: None)
    write_stub(out_dir / "stub_server", out_dir / "openapi.json")
    if typescript is not None:
        generate_ts.generate(out_dir, typescript)
    for tree in OWNED_TREES:
        produced.extend(Path(tree) / relative for relative in files_under(out_dir / tree))
    return produced


def _read(path: Path) -> bytes | None:
    return path.read_bytes() if path.is_file() else None


def file_diff(
    relative: Path,
    committed: bytes | None,
    expected: bytes | None,
    limit: int = MAX_DIFF_LINES,
    prefix: str = "generated",
) -> str:
    """A unified diff from the committed file to the regenerated one, cut after `limit` lines."""
    old = (committed or b"").decode("utf-8", errors="replace").splitlines(keepends=True)
    new = (expected or b"").decode("utf-8", errors="replace").splitlines(keepends=True)
    name = f"{prefix}/{relative.as_posix()}"
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


def compare(
    produced: list[Path],
    fresh_dir: Path,
    committed_dir: Path,
    owned: tuple[str, ...] = OWNED_TREES,
    prefix: str = "generated",
) -> list[tuple[Path, str]]:
    """(file, diff) for every produced file that differs and every stale file in the owned trees (`.` for all)."""
    differences = []
    for relative in produced:
        expected, committed = _read(fresh_dir / relative), _read(committed_dir / relative)
        if expected != committed:
            differences.append((relative, file_diff(relative, committed, expected, prefix=prefix)))
    produced_set = set(produced)
    for tree in owned:
        for relative in files_under(committed_dir / tree):
            if Path(tree) / relative not in produced_set:
                stale = Path(tree) / relative
                differences.append((stale, file_diff(stale, _read(committed_dir / stale), None, prefix=prefix)))
    return differences


def compare_typescript(fresh: Path, committed_sdk: Path, version: str) -> list[tuple[Path, str]]:
    """The TypeScript SDK's generated part and its version, against the committed package at `committed_sdk`."""
    shown_root = Path(committed_sdk.name)
    tree = generate_ts.GENERATED
    produced = [Path(relative) for relative in files_under(fresh)]
    differences = [
        (shown_root / tree / path, diff)
        for path, diff in compare(produced, fresh, committed_sdk / tree, (".",), f"{shown_root.as_posix()}/{tree}")
    ]
    for name, text in generate_ts.package_files(version, committed_sdk).items():
        committed = _read(committed_sdk / name)
        if committed != text.encode():
            differences.append(
                (shown_root / name, file_diff(Path(name), committed, text.encode(), prefix=shown_root.as_posix()))
            )
    return differences


def client_failures(fresh: Path, typescript: Path | None) -> list[str]:
    """What is broken in the regenerated clients: Python modules that do not import in a clean environment, and
    TypeScript that does not compile, each naming its schema."""
    schemas = list(schemas_of(json.loads((fresh / "openapi.json").read_text(encoding="utf-8"))))
    found = [f"Python SDK or models: {failure}" for failure in client_check.check_python(fresh, schemas)]
    if typescript is not None:
        found += [f"TypeScript SDK: {failure}" for failure in generate_ts.compile_check(typescript)]
    return found


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
    parser.add_argument(
        "--no-client-checks",
        action="store_true",
        help="compare files only: do not import the Python SDK and models in clean environments or compile the"
        " TypeScript SDK",
    )
    parser.add_argument("--no-typescript", action="store_true", help="leave the TypeScript SDK out")
    args = parser.parse_args(argv)
    spec_root = args.spec_root / "openapi.yaml" if args.spec_root.is_dir() else args.spec_root
    this_tree = args.generated == DEFAULT_GENERATED and spec_root == DEFAULT_ROOT and OVERLAYS_DIR.is_dir()
    if this_tree and not args.full and generation_cache.fresh(verified=True):
        print("generated/ is up to date (spec/, the generators and generated/ unchanged since the last check)")
        return 0
    before = generation_cache.fingerprints() if this_tree else None
    committed_sdk = args.generated.resolve().parent / generate_ts.SDK_DIR.name
    with_typescript = (committed_sdk / "package.json").is_file() and not args.no_typescript
    with tempfile.TemporaryDirectory(prefix="accessgov-check-generated-") as tmp:
        fresh, fresh_ts = Path(tmp) / "generated", Path(tmp) / "typescript"
        fresh.mkdir()
        try:
            produced = regenerate(spec_root, fresh, typescript=fresh_ts if with_typescript else None)
            differences = [(Path("generated") / path, diff) for path, diff in compare(produced, fresh, args.generated)]
            if with_typescript:
                differences += compare_typescript(fresh_ts, committed_sdk, generate_ts.contract_version(fresh))
            broken = [] if args.no_client_checks else client_failures(fresh, fresh_ts if with_typescript else None)
            checked = len(produced) + (len(list(files_under(fresh_ts))) if with_typescript else 0)
        except (GenerationError, generate_ts.TypeScriptError, client_check.CleanEnvError, OverlayError) as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
    for _, diff in differences:
        sys.stdout.write(diff)
    if broken:
        print(f"\n{len(broken)} problem(s) in the SDKs this contract generates:", file=sys.stderr)
        for problem in broken:
            print(f"  {problem}", file=sys.stderr)
    if differences:
        print(f"\n{len(differences)} generated file(s) out of date:", file=sys.stderr)
        for relative, _ in differences:
            print(f"  {relative.as_posix()}", file=sys.stderr)
        print(
            "regenerate with: make generate (bundle, overlays, models, clients and stub server), then commit"
            " generated/ and sdk-ts/",
            file=sys.stderr,
        )
    if differences or broken:
        return 1
    complete = not (args.no_client_checks or args.no_typescript)
    if before is not None and complete and before == generation_cache.fingerprints():
        generation_cache.record(prints=before, verified=True)  # nothing moved while it ran
    works = "" if args.no_client_checks else "; the SDKs import and compile"
    print(f"generated/ is up to date ({checked} files checked{works})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
