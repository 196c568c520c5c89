"""Shared helpers of the benchmark scripts: run an ASGI app under uvicorn in a subprocess, on loopback."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parent.parent


def cpu_times() -> tuple[float, float]:
    """(busy, total) jiffies of all CPUs so far (/proc/stat): the difference of two readings is how busy the
    machine was in between, whoever kept it busy."""
    fields = [float(value) for value in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0.0)  # idle + iowait
    return sum(fields) - idle, sum(fields)


def thread_cpu_seconds(pid: int, tid: int | None = None) -> float:
    """CPU seconds (user + system) one thread of process `pid` has used so far (default: its main thread, which
    runs a server's event loop), from /proc; NaN once the process is gone."""
    try:
        stat = Path(f"/proc/{pid}/task/{tid or pid}/stat").read_text()
    except OSError:
        return float("nan")
    fields = stat.rsplit(")", 1)[1].split()  # after the command name, which may hold spaces
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def busy_between(before: tuple[float, float], after: tuple[float, float]) -> float:
    """The machine's CPU use between two `cpu_times` readings, as a fraction of all its cores."""
    total = after[1] - before[1]
    return (after[0] - before[0]) / total if total > 0 else float("nan")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_until_answers(
    url: str,
    process: subprocess.Popen[bytes],
    *,
    name: str,
    headers: Mapping[str, str] | None = None,
    ok_only: bool = False,
    timeout: float = 60,
    attempt_timeout: float = 1,
    interval: float = 0.1,
    output: Callable[[], str] = lambda: "",
) -> None:
    """Until `url` answers (200 when `ok_only`) while `process` runs; a RuntimeError naming `name`, with what
    `output` gives, when the process exits or `timeout` seconds pass. One client serves every attempt: a client
    costs ~50 ms of CPU (its TLS store)."""
    deadline = time.monotonic() + timeout
    with httpx.Client(timeout=attempt_timeout) as client:
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"{name} exited with {process.returncode}{output()}")
            try:
                if client.get(url, headers=dict(headers or {})).status_code == 200 or not ok_only:
                    return
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"{name} did not start{output()}")
            time.sleep(interval)


@contextlib.contextmanager
def uvicorn_process(
    target: str, *, env: Mapping[str, str] | None = None, factory: bool = False, ready_path: str = "/"
) -> Iterator[str]:
    """`python -m uvicorn target` on a free loopback port (same settings for every app benchmarked);
    yields the base URL once the server answers."""
    port = free_port()
    command = [sys.executable, "-m", "uvicorn", target, "--host", "127.0.0.1", "--port", str(port)]
    command += ["--log-level", "warning", "--no-access-log", *(["--factory"] if factory else [])]
    process = subprocess.Popen(command, cwd=REPO, env={**os.environ, **(env or {})})
    base_url = f"http://127.0.0.1:{port}"
    try:
        wait_until_answers(base_url + ready_path, process, name=target)
        yield base_url
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


WAL_SYNCS = "accessgov_sqlite_wal_sync_duration_seconds"
SLOW_SYNC = "0.05"  # a histogram bucket's bound (`metrics.DISK_SECONDS_BUCKETS`), seconds


def slow_wal_syncs(metrics_text: str) -> tuple[int, int]:
    """(all, over 50 ms) of the SQLite WAL fdatasyncs a server's /metrics text counts (0, 0 on PostgreSQL)."""
    values: dict[str, float] = {}
    for line in metrics_text.splitlines():
        if line.startswith(WAL_SYNCS):
            name, _, value = line.rpartition(" ")
            values[name] = float(value)
    total = values.get(f"{WAL_SYNCS}_count", 0.0)
    within = values.get(f'{WAL_SYNCS}_bucket{{le="{SLOW_SYNC}"}}', total)
    return int(total), int(total - within)


def wal_syncs(base_url: str) -> tuple[int, int]:
    """`slow_wal_syncs` of the server at `base_url` now."""
    return slow_wal_syncs(httpx.get(base_url + "/metrics", timeout=10).text)
