"""`make bench-instructions`: instructions per request of the app in process, counted by callgrind.

    python -m benchmarks.bench_instructions [--targets bare,hmac,jwt,page,restart] [--requests 400] [--against REV]

Time on a shared machine moves by tens of percent between runs of the same code; the number of instructions a
request executes does not (the same count twice, whatever else the machine does). Each target runs in its own
process under `valgrind --tool=callgrind` with collection switched on only around the measured requests (after a
warm-up of 200), through the same in-process driver as `make bench-cpu` (SQLite, 16 concurrent callers, no HTTP
server). `--against REV` counts a git revision too (a temporary worktree sharing this virtualenv) and prints the
change: an A/B of a change to the request path that noise cannot blur. Instructions are not time (cache misses,
system calls and waiting do not show): a proxy for CPU work, to read next to `make bench`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TARGETS = ("bare", "hmac", "jwt", "page", "restart")
WARM_UP = 200
_TOTALS = re.compile(r"^totals:\s+(\d+)", re.M)


def _callgrind_control(*args: str) -> None:
    subprocess.run(["callgrind_control", *args, str(os.getpid())], check=True, stdout=subprocess.DEVNULL)


async def _child(target: str, requests: int) -> dict[int, int]:
    """In the process valgrind runs: the app (this tree's) warmed up, then `requests` counted; the statuses."""
    from accessgov import config as settings_module
    from accessgov.app import create_app
    from accessgov.demo.seed import seed_demo

    try:
        from accessgov.storage.backends import create_engine
    except ImportError:  # a revision before each backend opened its own engines (`bench_instructions --against` it)
        create_engine = importlib.import_module("accessgov.storage.engine").create_engine
    from accessgov.storage.engine import migrate, session_factory
    from benchmarks import bench_cpu
    from benchmarks import bench_deliveries as deliveries
    from benchmarks.bench_bare_app import app as bare_app
    from benchmarks.bench_servers import TENANT_BASE_URL, create_jwt_listener, scratch_database

    with contextlib.suppress(ImportError, AttributeError):  # the collector as `accessgov serve` sets it, if it does
        from accessgov.http import gc_tuning

        gc_tuning.set_young_threshold(gc_tuning.DEFAULT_YOUNG_THRESHOLD)
    signer = deliveries.JwtSigner(TENANT_BASE_URL)
    with scratch_database("sqlite", "") as url, deliveries.jwks_server(signer.jwks()) as jwks_url:
        engine = create_engine(url)
        migrate(engine)
        with session_factory(engine).begin() as session:
            seed_demo(session)
        engine.dispose()
        listener = create_jwt_listener(url, jwks_url, deliveries.STEPS) if target == "jwt" else ""
        kind = "hmac" if target == "bare" else target
        batch = bench_cpu.requests_for(kind, WARM_UP + requests, signer, listener)  # distinct deliveries
        warm, measured = batch[:WARM_UP], batch[WARM_UP:]
        # A revision before the one settings object (`--against` it) took a `ServerConfig`.
        configure = getattr(settings_module, "ServerConfig", settings_module.Settings)
        config = configure(database_url=url, tenant_base_url=TENANT_BASE_URL, run_automations=False)
        app = bare_app if target == "bare" else create_app(config)
        async with app.router.lifespan_context(app):
            await bench_cpu.drive(app, target, warm)
            _callgrind_control("--instr=on")
            result = await bench_cpu.drive(app, target, measured)
            _callgrind_control("--instr=off")
    return result.statuses


def count(tree: Path, target: str, requests: int) -> tuple[float, dict[str, int]]:
    """Instructions per request of `target` with the code of `tree`, and the statuses of the counted requests."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise SystemExit("valgrind is needed (`make valgrind`, the Debian package)")
    with tempfile.TemporaryDirectory(prefix="accessgov-callgrind-") as scratch:
        output = Path(scratch) / "callgrind.out"
        command = [valgrind, "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={output}"]
        command += [sys.executable, str(Path(__file__).resolve()), "--child", target, "--requests", str(requests)]
        # Hash randomisation changes dict and set layouts, hence the count: fixed, so two runs compare.
        env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(tree)}
        done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0 or not output.exists():
            raise RuntimeError(f"{target} under callgrind failed ({done.returncode}):\n{done.stderr[-3000:]}")
        totals = _TOTALS.search(output.read_text())
        statuses = json.loads(done.stdout.strip().splitlines()[-1])
    if totals is None:
        raise RuntimeError(f"no totals in the callgrind output of {target}")
    return int(totals.group(1)) / requests, statuses


@contextlib.contextmanager
def worktree(revision: str) -> Iterator[Path]:
    """`revision` checked out in a temporary git worktree that shares this virtualenv; removed on exit."""
    place = Path(tempfile.mkdtemp(prefix="accessgov-rev-"))
    shutil.rmtree(place)
    subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "-q", str(place), revision], check=True)
    try:
        yield place
    finally:
        subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(place)], check=False)


def _label(tree: Path, revision: str) -> str:
    done = subprocess.run(["git", "-C", str(tree), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return f"{revision} ({done.stdout.strip()})" if done.returncode == 0 else revision


def report(rows: list[tuple[str, list[float], list[dict[str, int]]]], labels: Sequence[str], requests: int) -> None:
    print(f"\n== instructions per request, in process (callgrind; SQLite; {requests} requests after {WARM_UP}) ==")
    print(f"{'target':10}" + "".join(f"{label:>26}" for label in labels) + ("    change" if len(labels) > 1 else ""))
    for target, counts, statuses in rows:
        line = f"{target:10}" + "".join(f"{value:>26,.0f}" for value in counts)
        if len(counts) > 1:
            line += f"  {(counts[0] - counts[1]) / counts[1]:>+8.1%}"
        print(line + "   " + " | ".join(" ".join(f"{s}:{n}" for s, n in sorted(each.items())) for each in statuses))
    if len(labels) > 1:
        print(f"change: {labels[0]} against {labels[1]} (negative: fewer instructions)")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--targets", default=",".join(TARGETS), help="comma-separated subset of " + ",".join(TARGETS))
    parser.add_argument("--requests", type=int, default=400, help="requests counted per target (after the warm-up)")
    parser.add_argument("--against", metavar="REV", help="also count this git revision and print the change")
    parser.add_argument("--child", help=argparse.SUPPRESS)  # the process valgrind runs
    args = parser.parse_args(argv)
    args.targets = [target for target in args.targets.split(",") if target]
    unknown = set(args.targets) - set(TARGETS)
    if unknown:
        parser.error(f"unknown targets: {sorted(unknown)}")
    if args.requests < 1:
        parser.error("--requests must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.child:
        statuses = asyncio.run(_child(args.child, args.requests))
        print(json.dumps({str(status): n for status, n in statuses.items()}))
        return 0
    with contextlib.ExitStack() as stack:
        trees = [(REPO, "working tree")]
        if args.against:
            trees.append((stack.enter_context(worktree(args.against)), args.against))
        labels = [label if tree == REPO else _label(tree, label) for tree, label in trees]
        rows = []
        for target in args.targets:
            measured = [count(tree, target, args.requests) for tree, _ in trees]
            rows.append((target, [value for value, _ in measured], [statuses for _, statuses in measured]))
            print(f"{target}: " + ", ".join(f"{value:,.0f}" for value, _ in measured), flush=True)
    report(rows, labels, args.requests)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
