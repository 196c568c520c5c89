"""An open-loop load client: request i is due at t0 + i/rate whatever happened to the earlier ones.

wrk is closed-loop (a slow response delays the next request, so a stall is sampled once instead of for every
request that should have been sent meanwhile: coordinated omission), and Debian has no wrk2. Here latency is
measured from the SCHEDULED send time, so a request that waited for a free connection or for a stalled
server pays that wait. Python is adequate at the low fixed rates used (200 and 500 req/s): the client spends
well under a millisecond per request, and a send that still starts late is counted as `late`.

Requests are pre-serialized HTTP/1.1 on keep-alive connections (asyncio streams, a pool that grows up to
`max_connections`); responses must carry Content-Length, which uvicorn's JSON responses do.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from benchmarks.bench_wrk import HttpRequest

LATE_AFTER_MS = 5.0  # a send that starts this long after its scheduled time counts as late
_CONTENT_LENGTH = re.compile(rb"\r\ncontent-length:\s*(\d+)", re.I)
_CLOSE = re.compile(rb"\r\nconnection:\s*close", re.I)


def send_offsets(rate: float, count: int) -> list[float]:
    """Seconds after t0 at which each request is due: i / rate."""
    if rate <= 0:
        raise ValueError("rate must be positive")
    return [i / rate for i in range(count)]


def latency_ms(scheduled: float, completed: float) -> float:
    """Latency as the client's user sees it: from when the request was due, not from when it was sent."""
    return (completed - scheduled) * 1000


def percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile (`fraction` in 0..1); NaN for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * fraction // 1))  # ceil(n * fraction), at least the first
    return ordered[int(rank) - 1]


def serialize(request: HttpRequest, host: str) -> bytes:
    body = request.body.encode()
    head = [f"{request.method} {request.path} HTTP/1.1", f"Host: {host}", f"Content-Length: {len(body)}"]
    head += [f"{name}: {value}" for name, value in request.headers.items()]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


@dataclass
class OpenLoopResult:
    rate: float
    scheduled: int
    ok: int
    failed: int
    late: int
    connections: int
    latencies_ms: list[float]
    failures: dict[str, int] = field(default_factory=dict)  # non-2xx status or exception name -> count

    @property
    def p50_ms(self) -> float:
        return percentile(self.latencies_ms, 0.50)

    @property
    def p99_ms(self) -> float:
        return percentile(self.latencies_ms, 0.99)

    @property
    def max_ms(self) -> float:
        return max(self.latencies_ms, default=float("nan"))


Connection = tuple[asyncio.StreamReader, asyncio.StreamWriter]


class _Pool:
    """Keep-alive connections, opened on demand up to a cap; waiting for one is part of the latency."""

    def __init__(self, host: str, port: int, limit: int) -> None:
        self.host, self.port, self.limit = host, port, limit
        self.idle: asyncio.LifoQueue[Connection] = asyncio.LifoQueue()
        self.opened = 0
        self.peak = 0

    async def acquire(self, *, fresh: bool = False) -> tuple[Connection, bool]:
        """A connection, and whether it was used before (and so may have been closed by the server)."""
        while not fresh and not self.idle.empty():
            connection = self.idle.get_nowait()
            if not connection[0].at_eof():  # the server closes keep-alive connections idle for 5 s
                return connection, True
            self.release(connection, reusable=False)
        if self.opened < self.limit:
            self.opened += 1
            self.peak = max(self.peak, self.opened)
            try:
                return await asyncio.open_connection(self.host, self.port), False
            except OSError:
                self.opened -= 1
                raise
        return await self.idle.get(), True

    def release(self, connection: Connection, reusable: bool) -> None:
        if reusable:
            self.idle.put_nowait(connection)
            return
        self.opened -= 1
        connection[1].close()

    async def close(self) -> None:
        while not self.idle.empty():
            self.idle.get_nowait()[1].close()


async def _exchange(pool: _Pool, payload: bytes) -> int:
    """Send one request, read its response; the HTTP status. Like HTTP client libraries, a request that got
    no answer at all on a reused keep-alive connection (the server closed it meanwhile) is sent once more on
    a new connection; the time lost stays in the latency."""
    connection, reused = await pool.acquire()
    try:
        return await _send(pool, connection, payload)
    except (ConnectionResetError, BrokenPipeError, asyncio.IncompleteReadError) as error:
        nothing_received = not isinstance(error, asyncio.IncompleteReadError) or not error.partial
        if not (reused and nothing_received):
            raise
    connection, _ = await pool.acquire(fresh=True)
    return await _send(pool, connection, payload)


async def _send(pool: _Pool, connection: Connection, payload: bytes) -> int:
    reader, writer = connection
    reusable = False
    try:
        writer.write(payload)
        await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        length = _CONTENT_LENGTH.search(head)
        if length is None:
            raise ValueError("response without Content-Length")
        await reader.readexactly(int(length.group(1)))
        reusable = _CLOSE.search(head) is None
        return status
    finally:
        pool.release(connection, reusable)


async def run_open_loop(
    base_url: str,
    requests: list[HttpRequest],
    rate: float,
    *,
    max_connections: int = 256,
    warm_connections: int = 16,
    drain_seconds: float = 30.0,
) -> OpenLoopResult:
    """Send every request of `requests` (each once) at `rate` per second; 2xx counts as ok."""
    url = urlsplit(base_url)
    host, port = url.hostname or "127.0.0.1", url.port or 80
    payloads = [serialize(request, url.netloc) for request in requests]
    pool = _Pool(host, port, max_connections)
    for _ in range(min(warm_connections, max_connections)):
        pool.release((await pool.acquire(fresh=True))[0], True)
    loop = asyncio.get_running_loop()
    latencies: list[float] = []
    counts = {"ok": 0, "late": 0}
    failures: dict[str, int] = {}

    def failed(reason: str) -> None:
        failures[reason] = failures.get(reason, 0) + 1

    async def fire(scheduled: float, payload: bytes) -> None:
        if (loop.time() - scheduled) * 1000 > LATE_AFTER_MS:
            counts["late"] += 1
        try:
            status = await _exchange(pool, payload)
        except (OSError, ValueError, asyncio.IncompleteReadError) as error:
            failed(type(error).__name__)
            return
        latencies.append(latency_ms(scheduled, loop.time()))
        if 200 <= status < 300:
            counts["ok"] += 1
        else:
            failed(str(status))

    tasks: list[asyncio.Task[None]] = []
    t0 = loop.time() + 0.05
    for offset, payload in zip(send_offsets(rate, len(payloads)), payloads, strict=True):
        delay = t0 + offset - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.create_task(fire(t0 + offset, payload)))
    _, pending = await asyncio.wait(tasks, timeout=drain_seconds) if tasks else (set(), set())
    for task in pending:
        task.cancel()
    if pending:
        failures["unanswered"] = len(pending)
    await pool.close()
    return OpenLoopResult(
        rate, len(payloads), counts["ok"], sum(failures.values()), counts["late"], pool.peak, latencies, failures
    )
