"""HTTP calls to the suite's own loopback servers, which speak plain HTTP: clients that load no certificate store.

`httpx.get` and `httpx.post` make a client per call, and a client made with the default verification loads
certifi's CA bundle into a new TLS context: ~50 ms of CPU each, thousands of times a run. The URLs given here are
`http://127.0.0.1:...`, so there is nothing to verify; everything else is httpx's (its 5-second default timeout
included).
"""

from __future__ import annotations

from typing import Any

import httpx

DEFAULT_TIMEOUT = httpx.Timeout(5.0)  # httpx.get's own


def client(**options: Any) -> httpx.Client:
    """`httpx.Client(**options)` for plain HTTP."""
    return httpx.Client(verify=False, **options)


def request(method: str, url: str, *, timeout: Any = DEFAULT_TIMEOUT, **options: Any) -> httpx.Response:
    """`httpx.request(method, url, ...)` through a client for plain HTTP (a new connection, as httpx's)."""
    with client(timeout=timeout) as http:
        return http.request(method, url, **options)


def get(url: str, **options: Any) -> httpx.Response:
    return request("GET", url, **options)


def post(url: str, **options: Any) -> httpx.Response:
    return request("POST", url, **options)
