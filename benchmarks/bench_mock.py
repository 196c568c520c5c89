"""Mock and proxy benchmark: the generated stub vs Prism 5.16's mock, and the validation proxy's added latency.

    make bench-mock            # npm ci --prefix benchmarks/mock-bench installs the pinned Prism first
    python -m benchmarks.bench_mock [--seconds 8] [--connections 32]

1. Throughput: `GET /api/v1/apps/app-github/entitlements` (with a bearer token) against the generated stub
   (`generated.stub_server`, one uvicorn process) and against `prism mock` on the same bundle (one Node process),
   driven by wrk (`--latency`) in the same run: req/s, p50, p99 and the stub/Prism ratio.
2. Latency: the same request against the seeded reference server directly and through `accessgov proxy` in front
   of it, one connection at a time (wrk -c1): p50 of each and the difference.

The machine may be shared and noisy: compare the ratios, not the absolute numbers.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx

from benchmarks._bench import REPO, free_port, uvicorn_process, wait_until_answers

PRISM = REPO / "benchmarks" / "mock-bench" / "node_modules" / ".bin" / "prism"
BUNDLE = REPO / "generated" / "openapi.json"
PATH = "/api/v1/apps/app-github/entitlements"
TOKEN = "demo-admin-token"
_UNITS = {"us": 1e-3, "ms": 1.0, "s": 1e3}


@dataclass
class Load:
    name: str
    rate: float
    p50_ms: float
    p99_ms: float


def _ms(text: str) -> float:
    number, unit = re.fullmatch(r"([0-9.]+)(us|ms|s)", text).groups()  # type: ignore[union-attr]
    return float(number) * _UNITS[unit]


def wrk(name: str, url: str, seconds: int, connections: int) -> Load:
    """One wrk run with the bearer header; the rate and the latency percentiles of its `--latency` table."""
    threads = str(min(2, connections))
    command = ["wrk", "-t", threads, "-c", str(connections), "-d", f"{seconds}s", "--latency"]
    command += ["-H", f"Authorization: Bearer {TOKEN}", url]
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    if "Non-2xx" in output:
        raise RuntimeError(f"{name}: non-2xx responses under load:\n{output}")
    rate = float(re.search(r"Requests/sec:\s+([0-9.]+)", output).group(1))  # type: ignore[union-attr]
    p50 = _ms(re.search(r"\s50%\s+(\S+)", output).group(1))  # type: ignore[union-attr]
    p99 = _ms(re.search(r"\s99%\s+(\S+)", output).group(1))  # type: ignore[union-attr]
    return Load(name, rate, p50, p99)


@contextlib.contextmanager
def prism() -> Iterator[str]:
    if not PRISM.exists():
        raise SystemExit(f"{PRISM} is missing: run `npm ci --prefix benchmarks/mock-bench` (make bench-mock does)")
    port = free_port()
    command = [str(PRISM), "mock", "--host", "127.0.0.1", "--port", str(port), "--errors", "false", str(BUNDLE)]
    process = subprocess.Popen(command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_answers(base + PATH, process, name=base + PATH, interval=0.2)
        yield base
    finally:
        process.terminate()
        process.wait(10)


@contextlib.contextmanager
def reference_server() -> Iterator[str]:
    from accessgov.demo.seed import seed_demo
    from accessgov.storage.backends import create_engine
    from accessgov.storage.engine import migrate, session_factory

    with tempfile.TemporaryDirectory(prefix="bench-mock-") as tmp:
        url = f"sqlite:///{Path(tmp) / 'accessgov.db'}"
        engine = create_engine(url)
        migrate(engine)
        with session_factory(engine).begin() as session:
            seed_demo(session)
        engine.dispose()
        with uvicorn_process("accessgov.app:app_from_env", env={"DATABASE_URL": url}, factory=True) as base:
            yield base


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--connections", type=int, default=32)
    args = parser.parse_args(argv)
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is missing: apt-get install -y wrk")
    loads = []
    with uvicorn_process("generated.stub_server.app:create_app", factory=True, ready_path=PATH) as stub:
        wrk("warm-up", stub + PATH, 2, args.connections)
        loads.append(wrk("generated stub", stub + PATH, args.seconds, args.connections))
    with prism() as base:
        wrk("warm-up", base + PATH, 2, args.connections)
        loads.append(wrk("Prism 5.16 mock", base + PATH, args.seconds, args.connections))
    with reference_server() as base:
        env = {"ACCESSGOV_PROXY_UPSTREAM": base}
        with uvicorn_process("accessgov.proxy:app_from_env", env=env, factory=True, ready_path=PATH) as proxy:
            wrk("warm-up", base + PATH, 2, 1)
            wrk("warm-up", proxy + PATH, 2, 1)
            direct = wrk("reference server, direct", base + PATH, args.seconds, 1)
            proxied = wrk("reference server, through the proxy", proxy + PATH, args.seconds, 1)
            violations = httpx.get(proxy + "/__proxy/violations").json()["violations"]
    print(f"GET {PATH}, wrk {args.seconds}s, {args.connections} connections, one process per server")
    print(f"{'server':<40} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8}")
    for load in [*loads, direct, proxied]:
        print(f"{load.name:<40} {load.rate:>9.0f} {load.p50_ms:>8.2f} {load.p99_ms:>8.2f}")
    stub_load, prism_load = loads
    ratio = stub_load.rate / prism_load.rate
    print(f"stub / Prism: {ratio:.2f}x req/s (target >= 2x), p99 {stub_load.p99_ms:.2f} vs {prism_load.p99_ms:.2f} ms")
    overhead = proxied.p50_ms - direct.p50_ms
    print(f"proxy overhead: {overhead:+.2f} ms p50 at one connection (target < 2 ms); {violations} violation(s)")
    held = ratio >= 2 and stub_load.p99_ms < prism_load.p99_ms and overhead < 2 and violations == 0
    print("targets: " + ("met" if held else "NOT met") + " (printed, never a failing exit status, as in make bench)")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
