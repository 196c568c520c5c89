"""The server's Prometheus metrics, created once per process (prometheus-client).

With `accessgov serve --workers N` every worker writes its samples to `PROMETHEUS_MULTIPROC_DIR` (a temporary
directory the supervisor creates and removes), and `/metrics` on any worker reports the sum over all workers.
Label children are cached here, so the request path does one dict lookup per metric, not a `labels()` call.
"""

from __future__ import annotations

import os
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"

REQUESTS = Counter(
    "accessgov_http_requests", "HTTP requests answered, by operation id and status.", ["operation", "status"]
)
REQUEST_SECONDS = Histogram(
    "accessgov_http_request_duration_seconds",
    "Time from the request head to the end of the response, by operation id.",
    ["operation"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)
DELIVERIES = Counter(
    "accessgov_webhook_deliveries",
    "Webhook deliveries by outcome (accepted, duplicate, rejected) and reason (the Error code; empty if accepted).",
    ["outcome", "reason"],
)
RUNS = Counter("accessgov_automation_runs", "Automation runs by status as they are recorded.", ["status"])
JWKS_FETCHES = Counter("accessgov_jwks_fetches", "JWKS documents fetched, by outcome (ok, failed).", ["outcome"])

_children: dict[tuple[Any, ...], Any] = {}


def _child(metric: Any, *labels: str) -> Any:
    key = (metric, *labels)
    child = _children.get(key)
    if child is None:
        child = _children[key] = metric.labels(*labels)
    return child


# (request counter, duration histogram) children by (operation, status): one lookup per request, no label text.
_request_children: dict[tuple[str, int], tuple[Any, Any]] = {}


def observe_request(operation: str, status: int, seconds: float) -> None:
    children = _request_children.get((operation, status))
    if children is None:
        children = _request_children[(operation, status)] = (
            _child(REQUESTS, operation, str(status)),
            _child(REQUEST_SECONDS, operation),
        )
    children[0].inc()
    children[1].observe(seconds)


def delivery(outcome: str, reason: str = "") -> None:
    _child(DELIVERIES, outcome, reason).inc()


def run_recorded(status: str) -> None:
    _child(RUNS, status).inc()


def jwks_fetch(ok: bool) -> None:
    _child(JWKS_FETCHES, "ok" if ok else "failed").inc()


def render() -> tuple[bytes, str]:
    """The exposition (text format) of this process, or of every worker in multiprocess mode."""
    if os.environ.get(MULTIPROC_ENV):
        from prometheus_client import multiprocess

        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(), CONTENT_TYPE_LATEST
