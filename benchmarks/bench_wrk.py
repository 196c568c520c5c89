"""wrk for `make bench`: write the request file its Lua script cycles through, run it, parse what it prints."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

LUA_SCRIPT = Path(__file__).with_name("bench_requests.lua")
THREADS = 2
CONNECTIONS = 16
_UNITS = {"us": 1e-3, "ms": 1.0, "s": 1000.0, "m": 60_000.0, "h": 3_600_000.0}


@dataclass(frozen=True)
class HttpRequest:
    """One request of a request file; the body is text (JSON), the same bytes that were signed."""

    method: str
    path: str
    headers: Mapping[str, str]
    body: str = ""


def request_line(request: HttpRequest) -> str:
    """The tab-separated line the Lua script parses (method, path, body, `Name: value` headers)."""
    fields = [request.method, request.path, request.body, *(f"{k}: {v}" for k, v in request.headers.items())]
    for value in fields:
        if "\t" in value or "\n" in value or "\r" in value:
            raise ValueError(f"a request field may not hold tabs or line breaks: {value!r}")
    return "\t".join(fields)


def write_request_file(path: Path, requests: Iterable[HttpRequest]) -> int:
    """Write one line per request; returns how many were written."""
    count = 0
    with path.open("w", encoding="utf-8") as out:
        for request in requests:
            out.write(request_line(request) + "\n")
            count += 1
    return count


@dataclass
class WrkResult:
    """What one wrk run measured (latencies in milliseconds)."""

    requests: int
    seconds: float
    rate: float
    p50_ms: float
    p99_ms: float
    max_ms: float
    non2xx: int
    socket_errors: int
    replayed: int = 0
    statuses: dict[int, int] = field(default_factory=dict)
    cpu_busy: float = float("nan")  # the whole machine's CPU use during the run (all cores = 1.0)
    loop_cpu: float = float("nan")  # CPU seconds the server's main thread (its event loop) used during the run

    @property
    def clean(self) -> bool:
        """Every response a 2xx, no socket errors (replays are judged by the caller: fine for a GET)."""
        return self.non2xx == 0 and self.socket_errors == 0


def _millis(text: str) -> float:
    match = re.fullmatch(r"([\d.]+)(us|ms|s|m|h)", text.strip())
    if not match:
        raise ValueError(f"not a wrk duration: {text!r}")
    return float(match.group(1)) * _UNITS[match.group(2)]


def parse_wrk_output(text: str) -> WrkResult:
    """Parse `wrk --latency` output; the BENCH_SUMMARY line of the Lua `done()` adds statuses and replays.

    Without that line (another script), non-2xx comes from wrk's own "Non-2xx or 3xx responses" count.
    """
    rate = re.search(r"^Requests/sec:\s+([\d.]+)", text, re.M)
    total = re.search(r"^\s*(\d+) requests in ([\d.]+\w+),", text, re.M)
    distribution = dict(re.findall(r"^\s+(50|75|90|99)%\s+(\S+)", text, re.M))
    latency_max = re.search(r"^\s+Latency\s+\S+\s+\S+\s+(\S+)", text, re.M)
    if not (rate and total and "50" in distribution and "99" in distribution):
        raise ValueError("not the output of `wrk --latency`:\n" + text)
    socket = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
    wrk_non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    result = WrkResult(
        requests=int(total.group(1)),
        seconds=_millis(total.group(2)) / 1000,
        rate=float(rate.group(1)),
        p50_ms=_millis(distribution["50"]),
        p99_ms=_millis(distribution["99"]),
        max_ms=_millis(latency_max.group(1)) if latency_max else float("nan"),
        non2xx=int(wrk_non2xx.group(1)) if wrk_non2xx else 0,
        socket_errors=sum(int(n) for n in socket.groups()) if socket else 0,
    )
    summary = re.search(r"^BENCH_SUMMARY (\{.*\})$", text, re.M)
    if summary:
        data = json.loads(summary.group(1))
        result.non2xx = int(data["non2xx"])
        result.replayed = int(data["replayed"])
        result.statuses = {int(status): int(count) for status, count in data["statuses"].items()}
    return result


def wrk_binary() -> str:
    found = shutil.which("wrk")
    if not found:
        raise SystemExit("wrk is not installed: `make bench` installs it (apt-get install wrk)")
    return found


def run_wrk(
    base_url: str, request_file: Path, *, seconds: int, threads: int = THREADS, connections: int = CONNECTIONS
) -> WrkResult:
    """`wrk -t2 -c16 -d<seconds>s --latency` with the request-file script; raises with wrk's output on failure."""
    command = [wrk_binary(), f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "--latency", "--timeout", "10s"]
    command += ["-s", str(LUA_SCRIPT), base_url, "--", str(request_file), str(threads)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"wrk failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return parse_wrk_output(done.stdout)
