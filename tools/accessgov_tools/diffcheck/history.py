"""Run the diff on real public API histories: pairs of revisions named in `histories.yaml`, read from local git
mirrors, each in its own process under a CPU-time and a memory bound.

    python -m accessgov_tools.diffcheck.history MIRRORS [--manifest FILE] [--only REPO] [--json]

MIRRORS holds one git directory per repository (`<owner>+<name>/repo`, `<owner>+<name>` or `<name>`, bare or
not), as a mirror or a clone brings them. Each revision is extracted with `git cat-file` to a temporary
directory; nothing of the documents is kept. Exit status 1 when a pair crashed, went over a bound or could not
be read; 2 when a mirror is missing. Measurements and the findings checked by hand are in docs/diff.md.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import yaml

from accessgov_tools.paths import REPO

MANIFEST = Path(__file__).with_name("histories.yaml")
_REPO_ROOT = REPO
_DATE = "2026-01-01"  # "today" for sunsets: the same verdict on every run


@dataclass(frozen=True)
class Pair:
    repo: str
    path: str
    base: str
    head: str

    @property
    def label(self) -> str:
        return f"{self.repo} {self.base[:8]}..{self.head[:8]}"


@dataclass(frozen=True)
class Bounds:
    seconds: float
    megabytes: float


@dataclass
class Outcome:
    """One pair's run: `status` is `ok` (a verdict: exit 0 or 1 with a JSON report) or what went wrong."""

    pair: str
    megabytes: float  # the two documents' mean size
    cpu_seconds: float
    peak_megabytes: float
    status: str
    breaking: int = 0
    findings: int = 0

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def load_manifest(path: Path = MANIFEST) -> tuple[list[Pair], Bounds]:
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    pairs = [
        Pair(repo, str(entry["path"]), str(base), str(head))
        for repo, entry in raw["repositories"].items()
        for base, head in entry["pairs"]
    ]
    bounds = raw.get("bounds") or {}
    return pairs, Bounds(float(bounds.get("seconds", 120)), float(bounds.get("megabytes", 1024)))


def git_dir(mirrors: Path, repo: str) -> Path | None:
    """The git directory of `repo` (owner/name) under `mirrors`, or None."""
    owner, name = repo.split("/", 1)
    for candidate in (mirrors / f"{owner}+{name}" / "repo", mirrors / f"{owner}+{name}", mirrors / name):
        probe = subprocess.run(
            ["git", "--git-dir", str(candidate), "rev-parse", "--git-dir"], capture_output=True, check=False
        )
        if probe.returncode == 0:
            return candidate
        dot_git = candidate / ".git"
        if dot_git.is_dir():
            return dot_git
    return None


def extract(git: Path, commit: str, path: str, target: Path) -> None:
    blob = subprocess.run(["git", "--git-dir", str(git), "cat-file", "blob", f"{commit}:{path}"], capture_output=True)
    if blob.returncode != 0:
        raise LookupError(f"{commit[:8]}:{path}: {blob.stderr.decode(errors='replace').strip()}")
    target.write_bytes(blob.stdout)


def _limit(bounds: Bounds) -> None:
    """In the child: the CPU bound as RLIMIT_CPU, and an address-space cap well above the memory bound (the
    bound itself is judged on the peak resident size; the cap only keeps a runaway from taking the machine)."""
    cpu = int(bounds.seconds) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
    cap = int(max(bounds.megabytes * 4, 2048)) * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


def run_pair(pair: Pair, git: Path, bounds: Bounds) -> Outcome:
    """Extract the pair and run `python -m accessgov_tools.diffcheck` on it in a child process under `bounds`."""
    suffix = Path(pair.path).suffix or ".yaml"
    with tempfile.TemporaryDirectory(prefix="diff-history-") as tmp:
        base, head = Path(tmp) / f"base{suffix}", Path(tmp) / f"head{suffix}"
        try:
            extract(git, pair.base, pair.path, base)
            extract(git, pair.head, pair.path, head)
        except LookupError as error:
            return Outcome(pair.label, 0.0, 0.0, 0.0, f"unreadable: {error}")
        size = (base.stat().st_size + head.stat().st_size) / 2 / 1e6
        out = Path(tmp) / "report.json"
        command = [
            sys.executable,
            "-m",
            "accessgov_tools.diffcheck",
            "--base-file",
            str(base),
            "--head-file",
            str(head),
        ]
        command += ["--format", "json", "--date", _DATE]
        errors = Path(tmp) / "stderr.txt"
        with out.open("wb") as sink, errors.open("wb") as sink_errors:
            child = subprocess.Popen(
                command,
                cwd=_REPO_ROOT,
                stdout=sink,
                stderr=sink_errors,
                preexec_fn=lambda: _limit(bounds),  # runs before exec, in a child with one thread
            )
            # A wall-clock guard beside the CPU limit: a child that sleeps or waits is stopped too.
            timer = threading.Timer(bounds.seconds * 3 + 30, lambda: os.kill(child.pid, signal.SIGKILL))
            timer.start()
            try:
                _, status, usage = os.wait4(child.pid, 0)
            finally:
                timer.cancel()
            child.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait again
        stderr = errors.read_text(encoding="utf-8", errors="replace").strip()
        cpu = usage.ru_utime + usage.ru_stime
        peak = usage.ru_maxrss / 1024  # kilobytes on Linux
        code = child.returncode
        outcome = Outcome(pair.label, round(size, 2), round(cpu, 2), round(peak, 1), "ok")
        if code < 0:
            outcome.status = f"killed by signal {-code}" + (" (CPU bound)" if -code == signal.SIGXCPU else "")
        elif code not in (0, 1):
            outcome.status = f"exit {code}: {stderr.splitlines()[-1] if stderr else ''}"
        else:
            try:
                report: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
            except (OSError, ValueError) as error:
                outcome.status = f"no JSON report: {error}"
            else:
                outcome.breaking = int(report["summary"].get("breaking", 0))
                outcome.findings = len(report["findings"])
        if outcome.ok and cpu > bounds.seconds:
            outcome.status = f"over the time bound ({cpu:.1f} s > {bounds.seconds:g} s)"
        if outcome.ok and peak > bounds.megabytes:
            outcome.status = f"over the memory bound ({peak:.0f} MB > {bounds.megabytes:g} MB)"
        return outcome


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mirrors", type=Path, help="directory of git mirrors (<owner>+<name>/repo)")
    parser.add_argument("--manifest", type=Path, default=MANIFEST)
    parser.add_argument("--only", action="append", default=[], help="owner/name (repeatable)")
    parser.add_argument("--json", action="store_true", help="one JSON object a pair instead of the table")
    args = parser.parse_args(argv)
    pairs, bounds = load_manifest(args.manifest)
    pairs = [p for p in pairs if not args.only or p.repo in args.only]
    gits = {repo: git_dir(args.mirrors, repo) for repo in dict.fromkeys(p.repo for p in pairs)}
    missing = [repo for repo, git in gits.items() if git is None]
    if missing:
        print(f"no git mirror under {args.mirrors} for: {', '.join(missing)}", file=sys.stderr)
        return 2
    failed = 0
    if not args.json:
        print(f"{'pair':<46} {'MB':>5} {'CPU s':>6} {'s/MB':>5} {'peak MB':>7} {'found':>5} {'break':>5}  status")
    for pair in pairs:
        git = gits[pair.repo]
        assert git is not None
        outcome = run_pair(pair, git, bounds)
        failed += not outcome.ok
        if args.json:
            print(json.dumps(asdict(outcome)), flush=True)
        else:
            per_mb = outcome.cpu_seconds / outcome.megabytes if outcome.megabytes else 0.0
            print(
                f"{outcome.pair:<46} {outcome.megabytes:>5.2f} {outcome.cpu_seconds:>6.2f} {per_mb:>5.2f}"
                f" {outcome.peak_megabytes:>7.0f} {outcome.findings:>5} {outcome.breaking:>5}  {outcome.status}",
                flush=True,
            )
    if failed:
        print(f"{failed} of {len(pairs)} pair(s) failed", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
