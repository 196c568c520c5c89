"""JSON encoding for responses and the database's JSON columns: orjson, with the standard library as fallback.

orjson is several times faster on the documents this service moves (a page of entitlements, a task), which
profiling showed to be a large share of a GET page. It refuses integers beyond 64 bits, which webhook payloads
may carry; those documents fall back to `json`, which writes them exactly.
"""

from __future__ import annotations

import json
from typing import Any

import orjson


def dumps_bytes(value: Any) -> bytes:
    try:
        return orjson.dumps(value)
    except (orjson.JSONEncodeError, TypeError):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")


def dumps(value: Any) -> str:
    return dumps_bytes(value).decode("utf-8")


def loads(text: str | bytes) -> Any:
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)  # what orjson refuses but json reads (integers beyond 64 bits)
