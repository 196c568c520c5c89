"""`make bench`: throughput and latency of the reference server next to a bare endpoint, driven by wrk.

    .venv/bin/python -m benchmarks.bench [--quick] [--only sqlite|postgres] [--duration S] [--repeat N]
                                      [--targets bare,hmac,jwt,page,restart,workers,openloop,drip]

For each database (a SQLite file in a temporary directory; a scratch PostgreSQL database `bench_<pid>_<n>` on
127.0.0.1:5432, dropped afterwards) it starts `accessgov serve --demo` (one uvicorn process) and a bare
Starlette endpoint under the same uvicorn settings, then measures with `wrk -t2 -c16 -d<S>s --latency`:

  bare     the baseline: reads the body, answers a small JSON (measured in every round, for the ratios)
  hmac     distinct HMAC-signed deliveries to the demo listener (each accepted once: 200, never a replay)
  jwt      distinct RS256 JWT deliveries to a JWT listener whose JWKS this process serves (cached after one fetch)
  page     GET /api/v1/apps/app-github/entitlements?page_size=25
  restart  POST /api/v1/tasks/{id}/action/restart on the open demo tasks, in turn
  workers  (PostgreSQL) HMAC deliveries against `accessgov serve --workers 4`, as a ratio to one worker
  openloop HMAC deliveries at a fixed offered rate (200 and 500 req/s) from an open-loop client: p50/p99/max
           from the scheduled send time (coordinated omission not hidden)
  drip     45 JWT deliveries to a listener whose "JWKS" drips its headers a line a second; meanwhile
           sequential GET page and HMAC deliveries: their max/p99 against the 100 ms target

After every delivery run it waits until the automations the deliveries queued have run, and prints that drain
time and the sustained rate, accepted / (run + drain): deferred work must neither flatter the rate nor slow the
next measurement. Each round runs the bare endpoint before the first target and after every target (bare, hmac,
bare, jwt, bare, page, bare, restart, bare); a target's ratio in a round is its rate over the mean of the two
bare runs around it, and the table shows the median of the rounds and the median of those per-round ratios. The
machine may be shared: compare ratios and medians, not single numbers. The benchmark prints the issue's targets
and whether they were met; it never fails on them. Every server process and scratch database is removed on exit,
Ctrl-C included.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import math
import os
import platform
import signal
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import httpx

from benchmarks import bench_deliveries as deliveries
from benchmarks import bench_profile
from benchmarks._bench import busy_between, cpu_times, thread_cpu_seconds, wal_syncs
from benchmarks.bench_openloop import OpenLoopResult, percentile, run_open_loop
from benchmarks.bench_servers import (
    DEFAULT_POSTGRES_URL,
    TENANT_BASE_URL,
    Server,
    accessgov_server,
    bare_server,
    create_jwt_listener,
    hmac_secret,
    scratch_database,
    wait_for_runs,
)
from benchmarks.bench_wrk import CONNECTIONS, THREADS, HttpRequest, WrkResult, run_wrk, write_request_file, wrk_binary

WRK_TARGETS = ("bare", "hmac", "jwt", "page", "restart")
ALL_TARGETS = (*WRK_TARGETS, "workers", "openloop", "drip")
OPEN_LOOP_RATES = (200, 500)
DRIP_REQUESTS = 45
DRIP_PROBES = 10  # of each kind (GET page, HMAC delivery), sequential
DRIP_TARGET_MS = 100.0
PROFILED = ("hmac", "page", "restart")
SINGLE_USE = ("hmac", "jwt", "workers")  # deliveries: a replay would be a 409, not an accepted delivery
# Issue targets: minimum ratio to the bare endpoint measured in the same run.
RATIO_TARGETS = {"hmac": 0.30, "jwt": 0.25, "page": 0.35, "restart": 0.20}
P99_16_CONNECTIONS_MS = 50.0  # SQLite, HMAC deliveries under wrk's 16 connections
OPEN_LOOP_P99_MS = 25.0  # PostgreSQL, 500 req/s offered
WORKERS = 4
WORKERS_TARGET = 2.5


@dataclass
class Measured:
    """Every round of one target on one database."""

    target: str
    db: str
    runs: list[WrkResult] = field(default_factory=list)
    ratios: list[float] = field(default_factory=list)
    # Deliveries only: seconds after the run until their queued automations had all run, and the
    # sustained rate, accepted deliveries / (run + drain): what the server keeps up with, automations included.
    drains: list[float] = field(default_factory=list)
    sustained: list[float] = field(default_factory=list)
    sustained_ratios: list[float] = field(default_factory=list)

    def median(self, pick: Callable[[WrkResult], float]) -> float:
        return statistics.median(pick(run) for run in self.runs)

    def add(self, result: WrkResult, drain: float | None, bare_rate: float) -> None:
        self.runs.append(result)
        self.ratios.append(result.rate / bare_rate)
        if drain is not None:
            accepted = result.statuses.get(200, result.requests - result.non2xx)
            self.drains.append(drain)
            self.sustained.append(accepted / (result.seconds + drain))
            self.sustained_ratios.append(self.sustained[-1] / bare_rate)

    @property
    def non2xx(self) -> int:
        return sum(run.non2xx for run in self.runs)

    @property
    def socket_errors(self) -> int:
        return sum(run.socket_errors for run in self.runs)

    @property
    def replayed(self) -> int:
        return sum(run.replayed for run in self.runs)


@dataclass
class OpenLoop:
    """One open-loop run and the seconds its queued automations took to drain afterwards."""

    result: OpenLoopResult
    drain: float
    syncs: tuple[int, int] = (0, 0)  # SQLite's WAL fdatasyncs during the run: all, over 50 ms (the disk stalling)


@dataclass
class DripResult:
    db: str
    probes_ms: list[float]
    before_ms: list[float]
    during_attack: int
    attack_statuses: dict[str, int]


@dataclass
class Report:
    rows: list[Measured] = field(default_factory=list)
    open_loop: dict[tuple[str, int], list[OpenLoop]] = field(default_factory=dict)
    # db -> ratio of the 4-worker rate to the one-worker rate: (accepted, sustained)
    workers: dict[str, tuple[float, float]] = field(default_factory=dict)
    drip: list[DripResult] = field(default_factory=list)

    def row(self, target: str, db: str) -> Measured | None:
        return next((r for r in self.rows if r.target == target and r.db == db), None)


def bracketed_round(
    targets: Sequence[str], measure: Callable[[str], tuple[WrkResult, float | None]]
) -> list[tuple[str, WrkResult, float | None, float]]:
    """One round: the bare endpoint first and again after every other target, each target's baseline the mean of
    the bare runs just before and just after it. The machine's speed drifts over minutes (bare 8,108 then 9,904
    req/s in successive rounds on 2026-11-25): a baseline taken once per round, a minute before the last target,
    moved that target's ratio with the drift. Returns (target, result, drain, baseline) in the order measured,
    bare runs included (their baseline is their own rate)."""
    measured: list[tuple[str, WrkResult, float | None, float]] = []
    bare, _ = measure("bare")
    measured.append(("bare", bare, None, bare.rate))
    for target in targets:
        if target == "bare":
            continue
        result, drain = measure(target)
        after, _ = measure("bare")
        measured += [(target, result, drain, (bare.rate + after.rate) / 2), ("bare", after, None, after.rate)]
        bare = after
    return measured


class Bench:
    """One benchmark run: options, a scratch directory for request files, and the report being filled."""

    def __init__(self, args: argparse.Namespace, workdir: Path) -> None:
        self.args = args
        self.workdir = workdir
        self.report = Report()
        self.signer = deliveries.JwtSigner(TENANT_BASE_URL)
        self.targets = set(args.targets)
        self.task_ids: list[str] = []
        self.profiles: list[tuple[str, Path]] = []

    def log(self, message: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')} load {os.getloadavg()[0]:4.1f}] {message}", flush=True)

    # -- wrk ----------------------------------------------------------------------------------------------------

    def delivery_budget(self, upper_rate: float, seconds: int) -> int:
        """Distinct deliveries for one run: more than it can send even at `upper_rate`."""
        return math.ceil(max(upper_rate, 200) * (seconds + 1) * 1.5) + 500

    def wrk(self, server: Server, name: str, requests: list[HttpRequest], seconds: int) -> WrkResult:
        path = self.workdir / f"{name}.requests"
        write_request_file(path, requests)
        before, loop_before = cpu_times(), thread_cpu_seconds(server.process.pid)
        result = run_wrk(server.base_url, path, seconds=seconds)
        # Saturation tells whether more workers could help at all: at ~100 % the cores are the limit.
        result.cpu_busy = busy_between(before, cpu_times())
        # And the loop's share tells whether the server is bound by its one event-loop thread (at ~100 %), so
        # that only less work on the loop per request (or moving work to another core) raises its rate.
        if name != "workers":  # there the main process supervises; the loops are its children's
            result.loop_cpu = thread_cpu_seconds(server.process.pid) - loop_before
        return result

    def requests_for(
        self, target: str, server: Server, secret: str, jwt_listener: str, budget: int
    ) -> list[HttpRequest]:
        """The request file of one run, signed now (deliveries: `budget` distinct ones)."""
        if target in ("bare", "hmac", "workers"):
            return deliveries.hmac_deliveries(secret, deliveries.DEMO_HMAC_LISTENER, budget)
        if target == "jwt":
            return self.signer.deliveries(server.env["ACCESSGOV_PUBLIC_BASE_URL"], jwt_listener, budget)
        if target == "page":
            return [deliveries.page_request()]
        if target == "restart":
            return deliveries.restart_requests(self.task_ids)
        raise ValueError(target)

    def measure(
        self, target: str, server: Server, requests: list[HttpRequest], seconds: int, db_url: str
    ) -> tuple[WrkResult, float | None]:
        """One wrk run; after deliveries, also the seconds until their queued automations have run (so the
        backlog neither hides in the rate nor spills into the next measurement)."""
        result = self.wrk(server, target, requests, seconds)
        if target in SINGLE_USE and result.replayed:
            self.log(f"WARNING: {result.replayed} {target} deliveries were replays (409s): the budget was short")
        return result, (wait_for_runs(db_url) if target in SINGLE_USE else None)

    def measure_wrk(self, db: str, db_url: str, bare: Server, server: Server, secret: str, jwt_listener: str) -> None:
        wanted = [t for t in WRK_TARGETS if t in self.targets]
        if not wanted:
            return
        if "bare" not in wanted:
            wanted.insert(0, "bare")  # the ratios need it
        rows = {t: Measured(t, db) for t in wanted}
        self.report.rows.extend(rows.values())
        best: dict[str, float] = {}

        def run(target: str, seconds: int) -> tuple[WrkResult, float | None]:
            # Budget bound: nothing beats the bare endpoint; JWT does more than HMAC.
            bound = {"hmac": best.get("bare", 0.0), "jwt": best.get("hmac") or best.get("bare", 0.0)}.get(target, 0.0)
            budget = 2000 if target == "bare" else self.delivery_budget(bound, seconds)
            requests = self.requests_for(target, server, secret, jwt_listener, budget)
            result, drain = self.measure(target, bare if target == "bare" else server, requests, seconds, db_url)
            best[target] = max(best.get(target, 0.0), result.rate)
            return result, drain

        for target in wanted:  # warm-up: imports, caches, the JWKS fetch, connection pools
            run(target, self.args.warmup)
        for round_number in range(1, self.args.repeat + 1):

            def measured(target: str, round_number: int = round_number) -> tuple[WrkResult, float | None]:
                result, drain = run(target, self.args.duration)
                self.log(f"{db:8} round {round_number} {target:8} {_describe(result, drain)}")
                return result, drain

            for target, result, drain, bare_rate in bracketed_round(wanted, measured):
                rows[target].add(result, drain, bare_rate)
        if self.args.profile:  # an extra run per target: sampling slows the server, so it is kept out of the table
            for target, gil_only in itertools.product(PROFILED, (False, True)):
                if target in wanted:
                    kind = "GIL holder only" if gil_only else "all threads"
                    output = self.args.profile / f"{db}-{target}-{'gil' if gil_only else 'threads'}.txt"
                    with bench_profile.recording(server.process.pid, output, self.args.duration, gil_only=gil_only):
                        run(target, self.args.duration)
                    self.profiles.append((f"{target} on {db}, {kind} (py-spy: {output})", output))

    # -- PostgreSQL with several workers --------------------------------------------------------------------------

    def measure_workers(self, db: str, url: str, secret: str) -> None:
        single, bare = self.report.row("hmac", db), self.report.row("bare", db)
        bare_rate = bare.median(lambda r: r.rate) if bare and bare.runs else float("nan")
        budget = partial(self.delivery_budget, bare_rate if bare_rate == bare_rate else 2000.0)
        row = Measured(f"hmac x{WORKERS} workers", db)
        with accessgov_server(url, workers=WORKERS) as server:
            self.log(f"{db:8} {WORKERS} workers up at {server.base_url}")
            warmup = self.requests_for("workers", server, secret, "", budget(self.args.warmup))
            self.measure("workers", server, warmup, self.args.warmup, url)
            for round_number in range(1, self.args.repeat + 1):
                requests = self.requests_for("workers", server, secret, "", budget(self.args.duration))
                result, drain = self.measure("workers", server, requests, self.args.duration, url)
                row.add(result, drain, bare_rate)
                self.log(f"{db:8} round {round_number} workers  {_describe(result, drain)}")
        self.report.rows.append(row)
        if single and single.runs:
            self.report.workers[db] = (
                row.median(lambda r: r.rate) / single.median(lambda r: r.rate),
                statistics.median(row.sustained) / statistics.median(single.sustained),
            )

    # -- open loop -----------------------------------------------------------------------------------------------

    def measure_open_loop(self, db: str, db_url: str, server: Server, secret: str) -> None:
        warmup = deliveries.hmac_deliveries(secret, deliveries.DEMO_HMAC_LISTENER, 100 * self.args.warmup)
        asyncio.run(run_open_loop(server.base_url, warmup, 100))
        wait_for_runs(db_url)
        for round_number, rate in itertools.product(range(1, self.args.repeat + 1), OPEN_LOOP_RATES):
            count = int(rate * self.args.open_loop_seconds)
            requests = deliveries.hmac_deliveries(secret, deliveries.DEMO_HMAC_LISTENER, count)
            before = wal_syncs(server.base_url)
            result = asyncio.run(run_open_loop(server.base_url, requests, rate))
            after = wal_syncs(server.base_url)
            drain = wait_for_runs(db_url)  # and the next run starts with an empty queue
            syncs = (after[0] - before[0], after[1] - before[1])
            self.report.open_loop.setdefault((db, rate), []).append(OpenLoop(result, drain, syncs))
            failures = f" {result.failures}" if result.failures else ""
            disk = f"  WAL syncs {syncs[0]}, over 50 ms {syncs[1]}" if syncs[0] else ""
            self.log(
                f"{db:8} round {round_number} open loop {rate} req/s: p50 {result.p50_ms:.1f} ms  "
                f"p99 {result.p99_ms:.1f} ms  max {result.max_ms:.1f} ms  late {result.late}  "
                f"failed {result.failed}{failures}  connections {result.connections}{disk}  "
                f"automations drained {drain:.1f} s after"
            )

    # -- slow JWKS -----------------------------------------------------------------------------------------------

    def measure_drip(self, db: str, server: Server, secret: str, drip_listener: str) -> None:
        result = asyncio.run(self._drip(db, server, secret, drip_listener))
        self.report.drip.append(result)
        self.log(
            f"{db:8} drip: probes max {max(result.probes_ms):.1f} ms p99 {percentile(result.probes_ms, 0.99):.1f} ms "
            f"({result.during_attack}/{len(result.probes_ms)} while all {DRIP_REQUESTS} hung); attack answers "
            f"{result.attack_statuses}"
        )

    async def _drip(self, db: str, server: Server, secret: str, drip_listener: str) -> DripResult:
        base = server.base_url
        path = deliveries.listener_path(drip_listener)
        audience = server.env["ACCESSGOV_PUBLIC_BASE_URL"] + path
        body = deliveries.BODY.encode()

        async def probes(
            client: httpx.AsyncClient, attack: Sequence[asyncio.Task[httpx.Response]] = ()
        ) -> tuple[list[float], int]:
            latencies, during = [], 0
            page = deliveries.page_request()
            for _ in range(DRIP_PROBES):
                for request in (page, deliveries.hmac_deliveries(secret, deliveries.DEMO_HMAC_LISTENER, 1)[0]):
                    started = time.perf_counter()
                    response = await client.request(
                        request.method, base + request.path, headers=dict(request.headers), content=request.body
                    )
                    latencies.append((time.perf_counter() - started) * 1000)
                    if response.status_code != 200:
                        self.log(f"WARNING: drip probe {request.method} {request.path} answered {response.status_code}")
                    if attack and not any(task.done() for task in attack):
                        during += 1
            return latencies, during

        limits = httpx.Limits(max_connections=DRIP_REQUESTS + 5)
        async with httpx.AsyncClient(timeout=120, limits=limits) as attacker, httpx.AsyncClient(timeout=30) as prober:
            before, _ = await probes(prober)
            attack = [
                asyncio.create_task(
                    attacker.post(base + path, headers=self.signer.headers(audience, body), content=body)
                )
                for _ in range(DRIP_REQUESTS)
            ]
            await asyncio.sleep(0.3)  # let all 45 reach the server and wait on the dripping JWKS
            during_probes, during = await probes(prober, attack)
            answers = await asyncio.gather(*attack, return_exceptions=True)
        statuses: dict[str, int] = {}
        for answer in answers:
            key = str(answer.status_code) if isinstance(answer, httpx.Response) else type(answer).__name__
            statuses[key] = statuses.get(key, 0) + 1
        return DripResult(db, during_probes, before, during, statuses)

    # -- one database --------------------------------------------------------------------------------------------

    def run_database(self, db: str) -> None:
        with contextlib.ExitStack() as stack:
            url = stack.enter_context(scratch_database(db, self.args.postgres_url))
            jwks_url = stack.enter_context(deliveries.jwks_server(self.signer.jwks()))
            drip_url = stack.enter_context(deliveries.drip_server())
            jwt_listener = create_jwt_listener(url, jwks_url, deliveries.STEPS)
            drip_listener = create_jwt_listener(url, drip_url, deliveries.STEPS)
            bare = stack.enter_context(bare_server())
            self.log(f"{db}: starting accessgov serve --demo (seeding the demo tenant)")
            with accessgov_server(url) as server:
                secret = hmac_secret(server)
                self.log(f"{db}: server {server.base_url} (pid {server.process.pid}), bare {bare.base_url}")
                if "restart" in self.targets:
                    self.task_ids = deliveries.restartable_task_ids(server.base_url)
                    self.log(f"{db}: {len(self.task_ids)} open demo tasks answer restart with 200")
                self.measure_wrk(db, url, bare, server, secret, jwt_listener)
                if "openloop" in self.targets:
                    self.measure_open_loop(db, url, server, secret)
                if "drip" in self.targets:
                    self.measure_drip(db, server, secret, drip_listener)
            if db == "postgres" and "workers" in self.targets:
                self.measure_workers(db, url, secret)


# -- output ------------------------------------------------------------------------------------------------------


def _describe(result: WrkResult, drain: float | None) -> str:
    loop = ""
    if not math.isnan(result.loop_cpu):
        per_request = result.loop_cpu / max(result.requests, 1) * 1e6
        loop = f"loop {result.loop_cpu / result.seconds:4.0%} {per_request:4.0f} us/req  "
    text = (
        f"{result.rate:8.0f} req/s  p50 {result.p50_ms:7.1f} ms  p99 {result.p99_ms:7.1f} ms  "
        f"non-2xx {result.non2xx}  cpu {result.cpu_busy:4.0%}  {loop}{_statuses(result)}"
    )
    return text + (f"  automations drained {drain:.1f} s after" if drain is not None else "")


def _statuses(result: WrkResult) -> str:
    return ",".join(f"{status}:{count}" for status, count in sorted(result.statuses.items()))


def _spread(ratios: list[float]) -> str:
    """The lowest and highest ratio of the rounds ("0.29-0.33"): how far one run's noise moves a median."""
    return f"{min(ratios):.2f}-{max(ratios):.2f}"


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def _fmt(value: float, digits: int = 1) -> str:
    return "-" if value is None or math.isnan(value) else f"{value:.{digits}f}"


def machine_line() -> str:
    load = os.getloadavg()
    return f"{os.cpu_count()} CPUs, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"


def print_header(args: argparse.Namespace) -> None:
    wrk_version = subprocess.run([wrk_binary(), "-v"], capture_output=True, text=True, check=False).stdout.split("\n")[
        0
    ]
    from accessgov.cli import parser, serve_settings
    from accessgov.config import Settings
    from accessgov.http.server import http_parser

    options = serve_settings(parser().parse_args(["serve"]), Settings.load())
    loop = "uvloop" if _importable("uvloop") else "asyncio"
    print(
        f"accessgov benchmark — {time.strftime('%Y-%m-%d %H:%M:%S %Z')}, {platform.python_version()}, {machine_line()}"
    )
    print(
        f"{wrk_version.strip()}: -t{THREADS} -c{CONNECTIONS} -d{args.duration}s --latency, "
        f"{args.repeat} round(s) per target"
    )
    print(
        f"both servers run `accessgov serve`'s uvicorn setup: http {http_parser(options)}, loop {loop}, "
        f"keep-alive {options.keep_alive} s, concurrency limit {options.limit_concurrency}; "
        "one process unless noted"
    )
    print("The machine may be shared with other work: read medians and ratios, not single numbers.\n", flush=True)


def _importable(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


def print_report(bench: Bench) -> None:
    report = bench.report
    if any(row.runs for row in report.rows):
        print_wrk_table(bench)
    if report.open_loop:
        print_open_loop_table(bench)
    for drip in report.drip:
        print(
            f"\n== slow JWKS ({drip.db}): {DRIP_REQUESTS} JWT deliveries wait on a JWKS dripping a header line "
            "per second ==\n"
            f"other requests before: max {max(drip.before_ms):.1f} ms; during: max {max(drip.probes_ms):.1f} ms, "
            f"p99 {percentile(drip.probes_ms, 0.99):.1f} ms ({drip.during_attack}/{len(drip.probes_ms)} sampled while "
            f"all {DRIP_REQUESTS} still hung); attack answered {drip.attack_statuses}"
        )
    print_targets(bench)
    for title, output in bench.profiles:
        print("\n" + bench_profile.report(title, bench_profile.summarise(output.read_text().splitlines())))
    print(f"\n{machine_line()} at the end. The machine may be shared: compare medians and ratios.")


def print_wrk_table(bench: Bench) -> None:
    report = bench.report
    print(f"\n== wrk, closed loop ({CONNECTIONS} connections): median of {bench.args.repeat} round(s) ==")
    print("(deliveries: `drain s` = time after the run until the automations they queued had run; `sustained` =")
    print(" accepted / (run + drain), the rate the server keeps up with when the automations are counted;")
    print(" `rounds` = the lowest and highest of the rounds' own ratios, whose median is `x bare`)")
    print(
        f"{'target':18} {'db':9} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'non-2xx':>8} {'x bare':>7} "
        f"{'rounds':>10} {'drain s':>8} {'sustained':>9} {'x bare':>7}"
    )
    for row in report.rows:
        if not row.runs:
            continue
        single_use = row.target.startswith(("hmac", "jwt"))
        replays = f"  ({row.replayed} replayed deliveries!)" if single_use and row.replayed else ""
        replays += f"  ({row.socket_errors} socket errors)" if row.socket_errors else ""
        sustained = (
            f"{_median(row.drains):8.1f} {_median(row.sustained):9.0f} {_median(row.sustained_ratios):7.2f}"
            if row.drains
            else ""
        )
        line = (
            f"{row.target:18} {row.db:9} {row.median(lambda r: r.rate):8.0f} {row.median(lambda r: r.p50_ms):8.1f} "
            f"{row.median(lambda r: r.p99_ms):8.1f} {row.non2xx:8d} {_median(row.ratios):7.2f} "
            f"{_spread(row.ratios):>10} {sustained}"
        )
        print(line.rstrip() + replays)
    for db, (accepted, sustained_ratio) in report.workers.items():
        print(
            f"{db}: {WORKERS} workers vs one: {accepted:.2f}x the accepted deliveries/s, "
            f"{sustained_ratio:.2f}x the sustained rate"
        )


def print_open_loop_table(bench: Bench) -> None:
    print(
        f"\n== open loop, HMAC deliveries at a fixed offered rate (latency from the scheduled send time): "
        f"median of {bench.args.repeat} round(s) of {bench.args.open_loop_seconds} s =="
    )
    print("(an asyncio client: adequate at these low rates; `late` counts sends that started > 5 ms after due;")
    print(" `p99 range` is the lowest and highest p99 of the rounds; `failed` and `late` are totals)")
    print(
        f"{'db':9} {'offered':>8} {'sent':>6} {'p50 ms':>8} {'p99 ms':>8} {'p99 range':>15} {'max ms':>8} "
        f"{'late':>6} {'failed':>7} {'conns':>6} {'drain s':>8}"
    )
    for (db, rate), runs in bench.report.open_loop.items():
        results = [run.result for run in runs]
        p99s = [r.p99_ms for r in results]
        print(
            f"{db:9} {rate:8d} {sum(r.scheduled for r in results):6d} {_median([r.p50_ms for r in results]):8.1f} "
            f"{_median(p99s):8.1f} {f'{min(p99s):.0f}-{max(p99s):.0f}':>15} "
            f"{max(r.max_ms for r in results):8.1f} {sum(r.late for r in results):6d} "
            f"{sum(r.failed for r in results):7d} {max(r.connections for r in results):6d} "
            f"{_median([run.drain for run in runs]):8.1f}"
        )
    syncs: dict[str, list[tuple[int, int]]] = {}
    for (db, _), runs in bench.report.open_loop.items():
        syncs.setdefault(db, []).extend(run.syncs for run in runs)
    for db, counted in syncs.items():
        total, slow = sum(all_ for all_, _ in counted), sum(over for _, over in counted)
        if total:  # SQLite: a request waits for the sync of its commit, so a slow disk shows in the p99
            print(f"{db}: the WAL's fdatasyncs during these runs: {total}, of which {slow} took over 50 ms")


def print_targets(bench: Bench) -> None:
    report = bench.report
    lines: list[tuple[str, str, bool | None]] = []
    for db in ("sqlite", "postgres"):
        for target, minimum in RATIO_TARGETS.items():
            row = report.row(target, db)
            if row and row.ratios:
                ratio = statistics.median(row.ratios)
                measured = f"{ratio:.2f}x (rounds {_spread(row.ratios)})"
                lines.append((f"{target} >= {minimum:.2f}x bare ({db})", measured, ratio >= minimum))
            if row and row.sustained_ratios:
                ratio = statistics.median(row.sustained_ratios)
                name = f"{target} sustained >= {minimum:.2f}x bare ({db})"
                lines.append((name, f"{ratio:.2f}x", ratio >= minimum))
    hmac = report.row("hmac", "sqlite")
    if hmac and hmac.runs:
        p99 = hmac.median(lambda r: r.p99_ms)
        lines.append(
            (
                f"HMAC p99 under {CONNECTIONS} connections < {P99_16_CONNECTIONS_MS:.0f} ms (sqlite)",
                f"{p99:.1f} ms",
                p99 < P99_16_CONNECTIONS_MS,
            )
        )
    if ("postgres", 500) in report.open_loop:
        results = [run.result for run in report.open_loop[("postgres", 500)]]
        p99 = _median([r.p99_ms for r in results])
        lines.append(
            (
                f"p99 at 500 req/s offered < {OPEN_LOOP_P99_MS:.0f} ms (postgres)",
                f"{p99:.1f} ms",
                p99 < OPEN_LOOP_P99_MS and not any(r.failed for r in results),
            )
        )
    if "postgres" in report.workers:
        for kind, ratio in zip(("accepted", "sustained"), report.workers["postgres"], strict=True):
            name = f"{WORKERS} workers >= {WORKERS_TARGET}x one worker, {kind} (postgres)"
            lines.append((name, f"{ratio:.2f}x", ratio >= WORKERS_TARGET))
        single = report.row("hmac", "postgres")
        if single and single.runs:
            # With the cores already busy under one worker, more workers can only share them.
            busy = _median([run.cpu_busy for run in single.runs])
            lines.append((f"machine CPU busy under one worker (postgres, {os.cpu_count()} cores)", f"{busy:.0%}", None))
    for drip in report.drip:
        worst = max(drip.probes_ms)
        lines.append(
            (
                f"{DRIP_REQUESTS} dripping JWKS requests: others within {DRIP_TARGET_MS:.0f} ms ({drip.db})",
                f"max {worst:.1f} ms",
                worst <= DRIP_TARGET_MS,
            )
        )
    if not lines:
        return
    print("\n== issue targets (printed, never asserted) ==")
    for name, measured, met in lines:
        verdict = "" if met is None else ("met" if met else "NOT met")
        print(f"{name:58} {measured:>26}  {verdict}")


# -- entry point -------------------------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short runs, one round: a smoke test of the harness")
    parser.add_argument("--only", choices=["sqlite", "postgres"], help="one database only")
    parser.add_argument("--duration", type=int, help="seconds per wrk run (default 5, --quick 2)")
    parser.add_argument("--repeat", type=int, help="rounds per target (default 3, --quick 1)")
    parser.add_argument(
        "--targets", default=",".join(ALL_TARGETS), help=f"comma-separated subset of {','.join(ALL_TARGETS)}"
    )
    parser.add_argument(
        "--profile", type=Path, metavar="DIR", help="also sample the server with py-spy under HMAC and restart load"
    )
    parser.add_argument("--postgres-url", default=os.environ.get("BENCH_POSTGRES_URL", DEFAULT_POSTGRES_URL))
    args = parser.parse_args(argv)
    args.targets = [t.strip() for t in args.targets.split(",") if t.strip()]
    unknown = set(args.targets) - set(ALL_TARGETS)
    if unknown:
        parser.error(f"unknown targets {sorted(unknown)}; choose from {','.join(ALL_TARGETS)}")
    args.duration = args.duration or (2 if args.quick else 5)
    args.repeat = args.repeat or (1 if args.quick else 3)
    args.warmup = 1 if args.quick else 2
    args.open_loop_seconds = 3 if args.quick else 10
    if args.profile:
        bench_profile.py_spy()  # fail before starting anything
    return args


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGINT (even when inherited as ignored, e.g. started with `&`), SIGTERM and SIGHUP unwind like Ctrl-C,
    so the `finally` blocks stop servers and drop databases."""

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = {sig: signal.signal(sig, interrupt) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    print_header(args)
    with _sigterm_as_interrupt(), tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        bench = Bench(args, Path(tmp))
        try:
            for db in ("sqlite", "postgres"):
                if args.only in (None, db):
                    bench.run_database(db)
        except KeyboardInterrupt:
            print("\ninterrupted: servers stopped, scratch databases dropped; partial results:", flush=True)
        print_report(bench)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
