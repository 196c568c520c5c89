"""Generate the TypeScript SDK's generated part (`sdk-ts/src/generated/`) and keep its version the contract's.

`sdk-ts/` is the npm package `@accessgov/client`: hand-written TypeScript in `src/`, and `src/generated/schema.ts`
(the contract's types) and `src/generated/operations.ts` (the operation table) written here by the package's own
pinned generator, `sdk-ts/scripts/generate.mjs` (openapi-typescript, from `sdk-ts/package-lock.json`), from the SDK
variant (`<out>/variants/sdk.json`, the bundle when there is none). The package's version is the contract's
`info.version` (one version for both SDKs: docs/release.md), written into `package.json` and `package-lock.json`.

Node and the package's `node_modules` (`npm ci --prefix sdk-ts`, which `make generate` runs first) are required.

    python -m accessgov_tools.generate_ts [--out generated] [--sdk sdk-ts]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from accessgov_tools.paths import REPO, shown

SDK_DIR = REPO / "sdk-ts"
GENERATED = Path("src") / "generated"  # under the package
SCRIPT = Path("scripts") / "generate.mjs"
PACKAGE_FILES = ("package.json", "package-lock.json")
MIN_NODE_MAJOR = 20
INSTALL_HINT = "npm ci --prefix sdk-ts (make generate does it)"


class TypeScriptError(Exception):
    """The TypeScript toolchain is missing or failed, or the SDK does not compile."""


def source_document(out_dir: Path) -> Path:
    """The document the TypeScript SDK is generated from: the SDK variant, else the bundle."""
    variant = out_dir / "variants" / "sdk.json"
    return variant if variant.is_file() else out_dir / "openapi.json"


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        raise TypeScriptError(f"node is not on PATH: the TypeScript SDK needs Node {MIN_NODE_MAJOR} or later")
    version = subprocess.run([node, "--version"], capture_output=True, text=True, check=False).stdout.strip()
    major = re.match(r"v(\d+)\.", version)
    if major is None or int(major.group(1)) < MIN_NODE_MAJOR:
        raise TypeScriptError(f"node {version or '?'} is too old: the TypeScript SDK needs Node {MIN_NODE_MAJOR}+")
    return node


def check_toolchain(sdk_dir: Path = SDK_DIR) -> str:
    """Node's path, once the package's pinned devDependencies are installed at their pinned versions."""
    node = _node()
    wanted: dict[str, str] = json.loads((sdk_dir / "package.json").read_text(encoding="utf-8"))["devDependencies"]
    for name, version in sorted(wanted.items()):
        manifest = sdk_dir / "node_modules" / name / "package.json"
        if not manifest.is_file():
            raise TypeScriptError(f"{name} is not installed in {shown(sdk_dir)}/node_modules: run {INSTALL_HINT}")
        installed = json.loads(manifest.read_text(encoding="utf-8"))["version"]
        if installed != version:
            raise TypeScriptError(
                f"{name} {installed} is installed; the SDK is pinned to {version}: run {INSTALL_HINT}"
            )
    return node


def _run(command: list[str], cwd: Path) -> tuple[int, str]:
    done = subprocess.run(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
    return done.returncode, done.stdout.decode(errors="replace")


def generate(out_dir: Path, target: Path, *, sdk_dir: Path = SDK_DIR) -> float:
    """Write the generated part from the document in `out_dir` into `target` (replacing it); return seconds."""
    started = time.perf_counter()
    node = check_toolchain(sdk_dir)
    document = source_document(out_dir)
    label = shown(document) if document.resolve().is_relative_to(REPO) else f"generated/{document.relative_to(out_dir)}"
    with tempfile.TemporaryDirectory(prefix="accessgov-generate-ts-") as tmp:
        stage = Path(tmp) / "generated"
        code, output = _run(
            [node, str(sdk_dir / SCRIPT), "--input", str(document), "--out", str(stage), "--label", label], sdk_dir
        )
        if code != 0:
            raise TypeScriptError(f"the TypeScript generator failed ({code}):\n{output}")
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(stage, target)
    return time.perf_counter() - started


def contract_version(out_dir: Path) -> str:
    return str(json.loads((out_dir / "openapi.json").read_text(encoding="utf-8"))["info"]["version"])


def package_files(version: str, sdk_dir: Path = SDK_DIR) -> dict[str, str]:
    """`package.json` and `package-lock.json` as they are with the package's version set to `version` (npm's own
    layout: two-space JSON, a final newline), by file name."""
    texts = {}
    for name in PACKAGE_FILES:
        path = sdk_dir / name
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        data["version"] = version
        if name == "package-lock.json":
            data["packages"][""]["version"] = version
        texts[name] = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    return texts


def write_package_version(version: str, sdk_dir: Path = SDK_DIR) -> list[Path]:
    """Set the package's version to `version`; return the files that changed."""
    changed = []
    for name, text in package_files(version, sdk_dir).items():
        path = sdk_dir / name
        if path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            changed.append(path)
    return changed


@dataclass(frozen=True)
class CompileFailure:
    """One tsc error: where, what, and the contract schema whose generated type it is in (when it is in one)."""

    file: str
    line: int
    message: str
    schema: str | None

    def __str__(self) -> str:
        where = f"schema {self.schema} ({self.file}:{self.line})" if self.schema else f"{self.file}:{self.line}"
        return f"{where}: {self.message}"


_TSC_ERROR = re.compile(r"^(?P<file>[^(\n]+)\((?P<line>\d+),\d+\): error (?P<message>.+)$", re.MULTILINE)
_SCHEMA_MEMBER = re.compile(r"^        (?:\"(?P<quoted>[^\"]+)\"|(?P<name>[A-Za-z_$][\w$]*)): ")


def schema_at(schema_ts: str, line: int) -> str | None:
    """The `components.schemas` member that line `line` (1-based) of a generated schema.ts belongs to."""
    lines = schema_ts.splitlines()
    start = next((i for i, text in enumerate(lines) if text == "    schemas: {"), None)
    if start is None or line - 1 <= start:
        return None
    for index in range(min(line, len(lines)) - 1, start, -1):
        if lines[index] == "    };":  # the end of `schemas`: the line is past it
            return None
        found = _SCHEMA_MEMBER.match(lines[index])
        if found:
            return found.group("quoted") or found.group("name")
    return None


def compile_check(generated: Path, sdk_dir: Path = SDK_DIR) -> list[CompileFailure]:
    """Compile the package (`tsc --strict` per its tsconfig) with `generated` as its generated part, in a copy;
    return the errors, each with the schema it is in."""
    node = check_toolchain(sdk_dir)
    with tempfile.TemporaryDirectory(prefix="accessgov-tsc-") as tmp:
        copy = Path(tmp) / "sdk-ts"
        copy.mkdir()
        shutil.copytree(sdk_dir / "src", copy / "src", ignore=shutil.ignore_patterns("generated"))
        shutil.copytree(generated, copy / GENERATED)
        for name in ("tsconfig.json", "package.json"):
            shutil.copyfile(sdk_dir / name, copy / name)
        os.symlink(sdk_dir / "node_modules", copy / "node_modules", target_is_directory=True)
        tsc = sdk_dir / "node_modules" / "typescript" / "bin" / "tsc"
        code, output = _run([node, str(tsc), "-p", "tsconfig.json", "--outDir", str(Path(tmp) / "out")], copy)
        if code == 0:
            return []
        schema_ts = (copy / GENERATED / "schema.ts").read_text(encoding="utf-8")
        failures = []
        for match in _TSC_ERROR.finditer(output):
            file, line = match.group("file").strip(), int(match.group("line"))
            in_schema = Path(file).as_posix() == (GENERATED / "schema.ts").as_posix()
            failures.append(
                CompileFailure(file, line, match.group("message"), schema_at(schema_ts, line) if in_schema else None)
            )
        if not failures:
            raise TypeScriptError(f"tsc failed ({code}) without an error it could place:\n{output}")
        return failures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "generated", help="the directory holding the bundle")
    parser.add_argument("--sdk", type=Path, default=SDK_DIR, help="the TypeScript SDK's package directory")
    args = parser.parse_args(argv)
    try:
        seconds = generate(args.out, args.sdk / GENERATED, sdk_dir=args.sdk)
        changed = write_package_version(contract_version(args.out), args.sdk)
    except (TypeScriptError, OSError, ValueError, KeyError) as error:
        # The document could not be turned into the SDK (a name the generator refuses, a tool that failed): exit 2,
        # the status of "could not be judged", never 1 ("a finding") nor a traceback.
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"wrote {shown(args.sdk / GENERATED)}/ ({seconds:.1f}s)")
    for path in changed:
        print(f"wrote {shown(path)} (the contract's version)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
