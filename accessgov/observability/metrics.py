"""The server's Prometheus metrics, created once per process (prometheus-client).

With `accessgov serve --workers N` every worker writes its samples to `PROMETHEUS_MULTIPROC_DIR` (a temporary
directory the supervisor creates and removes), and `/metrics` on any worker reports the sum over all workers.
Label children are cached here, so the request path does one dict lookup per metric, not a `labels()` call; the
request counter and duration histogram of a single process are a `RequestRecorder` (plain dicts, no lock per
sample), exposed as the same families.
"""

from __future__ import annotations

import functools
import time
from bisect import bisect_left
from collections.abc import Iterator
from itertools import accumulate
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector
from prometheus_client.utils import floatToGoString

from accessgov.config import metrics_directory

REQUESTS_NAME, REQUESTS_HELP = "accessgov_http_requests", "HTTP requests answered, by operation id and status."
REQUEST_SECONDS_NAME = "accessgov_http_request_duration_seconds"
REQUEST_SECONDS_HELP = "Time from the request head to the end of the response, by operation id."
REQUEST_SECONDS_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
DELIVERIES = Counter(
    "accessgov_webhook_deliveries",
    "Webhook deliveries by outcome (accepted, duplicate, rejected) and reason (the Error code; empty if accepted).",
    ["outcome", "reason"],
)
RUNS = Counter("accessgov_automation_runs", "Automation runs by status as they are recorded.", ["status"])
JWKS_FETCHES = Counter("accessgov_jwks_fetches", "JWKS documents fetched, by outcome (ok, failed).", ["outcome"])
# SQLite's disk work, off the loop but on every acknowledged write's path: a p99 that jumps while the CPU does not
# is the disk (under wrk here, single fdatasyncs of 67-170 ms, in two servers at the same moment).
DISK_SECONDS_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
SQLITE_WAL_SYNCS = Histogram(
    "accessgov_sqlite_wal_sync_duration_seconds",
    "SQLite: each fdatasync of the WAL; the writes it makes durable are answered only after it.",
    buckets=DISK_SECONDS_BUCKETS,
)
SQLITE_CHECKPOINTS = Histogram(
    "accessgov_sqlite_checkpoint_duration_seconds",
    "SQLite: each checkpoint (the WAL copied into the database file and synced, on a thread).",
    buckets=DISK_SECONDS_BUCKETS,
)


@functools.cache
def _child(metric: Any, *labels: str) -> Any:
    return metric.labels(*labels)


class RequestRecorder(Collector):
    """The request counter and duration histogram of one process, in plain dicts: every request records into them
    from the event loop's thread, so no sample needs prometheus-client's lock (a counter, a sum and a bucket
    locked per request were ~2.5 us of a GET page's ~60 us in process). Collected as the families a `Counter` and a
    `Histogram` would expose (`_total` and `_created`; `_bucket`, `_count`, `_sum`)."""

    def __init__(self, buckets: tuple[float, ...] = REQUEST_SECONDS_BUCKETS) -> None:
        self.bounds = buckets
        self.bucket_labels = [floatToGoString(bound) for bound in buckets] + ["+Inf"]
        self.counts: dict[tuple[str, int], list[float]] = {}  # (operation, status) -> [count, created]
        self.durations: dict[str, list[float]] = {}  # operation -> [per-bucket counts..., sum]

    def observe(self, operation: str, status: int, seconds: float) -> None:
        counted = self.counts.get((operation, status))
        if counted is None:
            counted = self.counts[(operation, status)] = [0, time.time()]
        counted[0] += 1
        durations = self.durations.get(operation)
        if durations is None:
            durations = self.durations[operation] = [0.0] * (len(self.bounds) + 2)
        durations[bisect_left(self.bounds, seconds)] += 1  # a bucket counts what is <= its bound
        durations[-1] += seconds

    def collect(self) -> Iterator[Metric]:
        requests = CounterMetricFamily(REQUESTS_NAME, REQUESTS_HELP, labels=("operation", "status"))
        for (operation, status), (count, created) in sorted(self.counts.items()):
            requests.add_metric((operation, str(status)), count, created=created)
        seconds = HistogramMetricFamily(REQUEST_SECONDS_NAME, REQUEST_SECONDS_HELP, labels=("operation",))
        for operation, durations in sorted(self.durations.items()):
            cumulative = zip(self.bucket_labels, accumulate(durations[:-1]), strict=True)
            seconds.add_metric((operation,), list(cumulative), durations[-1])
        return iter((requests, seconds))


class _WorkerRequests:
    """The request counter and duration histogram with workers (multiprocess mode): prometheus-client's file-backed
    Counter and Histogram, which `/metrics` sums over the workers; their children by (operation, status)."""

    def __init__(self) -> None:
        self.requests = Counter(REQUESTS_NAME, REQUESTS_HELP, ["operation", "status"])
        self.seconds = Histogram(
            REQUEST_SECONDS_NAME, REQUEST_SECONDS_HELP, ["operation"], buckets=REQUEST_SECONDS_BUCKETS
        )
        self.children: dict[tuple[str, int], tuple[Any, Any]] = {}

    def observe(self, operation: str, status: int, seconds: float) -> None:
        children = self.children.get((operation, status))
        if children is None:
            children = self.children[(operation, status)] = (
                self.requests.labels(operation, str(status)),
                self.seconds.labels(operation),
            )
        children[0].inc()
        children[1].observe(seconds)


def _request_metrics() -> RequestRecorder | _WorkerRequests:
    """What records each request: with workers, `_WorkerRequests`; in one process, the `RequestRecorder`. Chosen at
    the first request or exposition, not at import."""
    global _REQUEST_METRICS
    if _REQUEST_METRICS is None:
        if metrics_directory():
            _REQUEST_METRICS = _WorkerRequests()
        else:
            recorder = _REQUEST_METRICS = RequestRecorder()
            REGISTRY.register(recorder)
    return _REQUEST_METRICS


_REQUEST_METRICS: RequestRecorder | _WorkerRequests | None = None


def observe_request(operation: str, status: int, seconds: float) -> None:
    (_REQUEST_METRICS or _request_metrics()).observe(operation, status, seconds)


def delivery(outcome: str, reason: str = "") -> None:
    _child(DELIVERIES, outcome, reason).inc()


def run_recorded(status: str) -> None:
    _child(RUNS, status).inc()


def sqlite_wal_synced(seconds: float) -> None:
    SQLITE_WAL_SYNCS.observe(seconds)


def sqlite_checkpointed(seconds: float) -> None:
    SQLITE_CHECKPOINTS.observe(seconds)


def jwks_fetch(ok: bool) -> None:
    _child(JWKS_FETCHES, "ok" if ok else "failed").inc()


def render() -> tuple[bytes, str]:
    """The exposition (text format) of this process, or of every worker in multiprocess mode."""
    _request_metrics()
    if metrics_directory():
        from prometheus_client import multiprocess

        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(), CONTENT_TYPE_LATEST
