"""The TypeScript SDK as a downstream team gets it: built, packed, installed from its tarball into an empty project,
and compiled there with its tests, its examples and its README's programs.

One `build()` per test session (tests/sdk_ts/conftest.py): a copy of `sdk-ts/` (so the checkout's `dist` is never
touched while other tests use it) with the package's toolchain, `npm pack` there (whose `prepack` compiles the
package with `tsc --strict`), then a new project that installs only the tarball and the TypeScript toolchain the
package pins, and one `tsc --strict` over everything that imports `@accessgov/client` there. The toolchain is the
checkout's `node_modules` (linked, only read) when `npm ci` installed it from the lockfile as it is
(`make test` does, before pytest), else `npm ci` in the copy.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SDK = REPO / "sdk-ts"
DOCUMENTED_URL = "http://127.0.0.1:8080"
TS_BLOCK = re.compile(r"^```ts\n(.*?)^```$", re.DOTALL | re.MULTILINE)
NPM_FLAGS = ("--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error")
# The consumer's compiler settings: strict, and stricter than most projects, so the package's declarations hold
# wherever they are used.
CONSUMER_TSCONFIG = {
    "compilerOptions": {
        "target": "ES2022",
        "module": "NodeNext",
        "moduleResolution": "NodeNext",
        "lib": ["ES2022"],
        "types": ["node"],
        "strict": True,
        "noUncheckedIndexedAccess": True,
        "exactOptionalPropertyTypes": True,
        "skipLibCheck": False,
        "outDir": "build",
        "rootDir": ".",
    },
    "include": ["test/*.ts", "examples/*.ts", "readme/*.ts"],
}


def ts_blocks(markdown: str) -> list[str]:
    """The ```ts fenced blocks of a Markdown text, in order."""
    return [match.group(1) for match in TS_BLOCK.finditer(markdown)]


def readme_programs() -> dict[str, str]:
    """The TypeScript programs of the documentation, by the module name they are compiled as: the repository
    README's first ```ts block, and every ```ts block of the package's README."""
    programs = {"readme/repository.ts": ts_blocks((REPO / "README.md").read_text(encoding="utf-8"))[0]}
    for index, block in enumerate(ts_blocks((SDK / "README.md").read_text(encoding="utf-8")), start=1):
        programs[f"readme/package-{index}.ts"] = block
    return programs


def run(command: list[str], cwd: Path, timeout: float = 600, env: dict[str, str] | None = None) -> str:
    """Run a command; fail the test with its output when it fails."""
    done = subprocess.run(
        command, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False, env=env or os.environ.copy()
    )
    assert done.returncode == 0, f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    return done.stdout


@dataclass
class Built:
    """Where the package was built and installed, and what it took."""

    package: Path  # the copy of sdk-ts/ it was built in
    tarball: Path
    consumer: Path  # the project that installed it
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def node(self) -> str:
        node = shutil.which("node")
        assert node, "node is not on PATH"
        return node

    def tarball_members(self) -> list[str]:
        with tarfile.open(self.tarball) as archive:
            return sorted(archive.getnames())


def installed_from_lockfile(package: Path) -> bool:
    """Whether `package/node_modules` is what `npm ci` installs from `package/package-lock.json` today: npm's record
    of the installed tree (`node_modules/.package-lock.json`) holds the lockfile's packages, and the lockfile is in
    step with `package.json` (which `npm ci` refuses otherwise)."""
    try:
        lock = json.loads((package / "package-lock.json").read_text(encoding="utf-8"))
        installed = json.loads((package / "node_modules" / ".package-lock.json").read_text(encoding="utf-8"))
    except FileNotFoundError:
        return False
    manifest = json.loads((package / "package.json").read_text(encoding="utf-8"))
    locked = {path: entry for path, entry in lock["packages"].items() if path}
    return installed.get("packages") == locked and all(
        lock["packages"][""].get(key, {}) == manifest.get(key, {}) for key in ("dependencies", "devDependencies")
    )


def _timed(seconds: dict[str, float], name: str, command: list[str], cwd: Path) -> str:
    started = time.perf_counter()
    output = run(command, cwd)
    seconds[name] = round(time.perf_counter() - started, 1)
    return output


def build(root: Path, server_url: str) -> Built:
    """Build, pack and install the package under `root`; compile the consumer project with the documentation's
    programs pointed at `server_url` instead of the documented `http://127.0.0.1:8080`."""
    seconds: dict[str, float] = {}
    package = root / "sdk-ts"
    shutil.copytree(SDK, package, ignore=shutil.ignore_patterns("node_modules", "dist", "build"))
    if installed_from_lockfile(SDK):
        os.symlink(SDK / "node_modules", package / "node_modules", target_is_directory=True)
    else:
        _timed(seconds, "npm ci", ["npm", "ci", *NPM_FLAGS], package)
    dist = root / "dist"
    dist.mkdir()
    _timed(seconds, "npm pack (tsc)", ["npm", "pack", "--pack-destination", str(dist), *NPM_FLAGS], package)
    (tarball,) = dist.glob("*.tgz")

    consumer = root / "consumer"
    consumer.mkdir()
    (consumer / "package.json").write_text(
        json.dumps({"name": "downstream", "private": True, "type": "module"}, indent=2) + "\n", encoding="utf-8"
    )
    pins = json.loads((SDK / "package.json").read_text(encoding="utf-8"))["devDependencies"]
    toolchain = [f"{name}@{pins[name]}" for name in ("typescript", "@types/node")]
    _timed(seconds, "npm install (consumer)", ["npm", "install", *NPM_FLAGS, str(tarball), *toolchain], consumer)
    for folder in ("test", "examples"):
        shutil.copytree(SDK / folder, consumer / folder)
    (consumer / "readme").mkdir()
    for name, program in readme_programs().items():
        (consumer / name).write_text(program.replace(DOCUMENTED_URL, server_url), encoding="utf-8")
    (consumer / "tsconfig.json").write_text(json.dumps(CONSUMER_TSCONFIG, indent=2) + "\n", encoding="utf-8")
    tsc = consumer / "node_modules" / "typescript" / "bin" / "tsc"
    _timed(seconds, "tsc (consumer)", [shutil.which("node") or "node", str(tsc), "-p", "tsconfig.json"], consumer)
    return Built(package, tarball, consumer, seconds)


REPORTER = Path(__file__).with_name("node_reporter.mjs")


@dataclass(frozen=True)
class NodeRun:
    """The outcome of one `node --test` over some test files: its exit status, TAP's summary counts, its output, and
    the counts of each file (`tests`, `pass`, `fail`, `skipped`, `todo`, by the file's name) with its failures."""

    returncode: int
    counts: dict[str, int]
    output: str
    files: dict[str, dict[str, int]]
    failures: dict[str, list[str]]


def node_tests(built: Built, files: list[str], env: dict[str, str], timeout: float = 900) -> NodeRun:
    """Run compiled test files (`build/test/<name>.test.js`) with one `node --test` in the consumer project: each
    file in a process of its own, one after another (`--test-concurrency=1`, as a file run alone); a reporter of
    ours (node_reporter.mjs) says which file each result is in. A failing suite, a cancelled test and a file whose
    process failed count as failures of their file."""
    with tempfile.TemporaryDirectory(prefix="accessgov-node-test-") as tmp:
        results = Path(tmp) / "results.jsonl"
        command = [
            built.node,
            "--test",
            "--test-concurrency=1",
            "--test-reporter=tap",
            "--test-reporter-destination=stdout",
            f"--test-reporter={REPORTER.as_uri()}",
            f"--test-reporter-destination={results}",
            *[f"build/test/{name}" for name in files],
        ]
        done = subprocess.run(
            command, cwd=built.consumer, capture_output=True, text=True, timeout=timeout, env={**os.environ, **env}
        )
        lines = results.read_text(encoding="utf-8").splitlines() if results.exists() else []
    counts = {
        key: int(value)
        for key, value in re.findall(r"^# (tests|pass|fail|cancelled|skipped|todo) (\d+)$", done.stdout, re.MULTILINE)
    }
    per_file: dict[str, dict[str, int]] = {}
    failures: dict[str, list[str]] = {name: [] for name in files}
    for line in lines:
        result = json.loads(line)
        name = Path(result["file"]).name if result["file"] else "(no file)"
        tally = per_file.setdefault(name, dict.fromkeys(("tests", "pass", "fail", "skipped", "todo"), 0))
        if result["suite"] and result["passed"]:
            continue  # a suite that passed: its tests are counted
        if not result["suite"]:
            tally["tests"] += 1
        if result["todo"]:
            tally["todo"] += 1
        elif result["skip"]:
            tally["skipped"] += 1
        elif result["passed"]:
            tally["pass"] += 1
        else:
            tally["fail"] += 1
            failures.setdefault(name, []).append(f"{result['name']}: {result['error']}")
    return NodeRun(done.returncode, counts, done.stdout + done.stderr, per_file, failures)
