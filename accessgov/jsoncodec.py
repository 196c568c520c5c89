"""JSON encoding for responses and the database's JSON columns: orjson, with the standard library as fallback.

orjson is several times faster on the documents this service moves (a page of entitlements, a task), which
profiling showed to be a large share of a GET page. It differs from the standard library in two ways that
matter here: it reads integers beyond 64 bits as floats (webhook payloads may carry any integer), and it
writes at most 254 levels of nesting. Documents that might meet either go through `json`, which keeps
integers exact.
"""

from __future__ import annotations

import json
import re
from typing import Any

import orjson

_LONG_INTEGER = re.compile(rb"[0-9]{19}")
# orjson.dumps refuses deeper documents; fewer opening brackets than this cannot nest deeper.
_ORJSON_MAX_DEPTH = 254


def orjson_reads_exactly(data: bytes) -> bool:
    """True when orjson reads `data` to the same value as `json` would (or refuses it): no integer of 19 or
    more digits, and too few brackets to nest beyond what orjson writes back."""
    return data.count(b"[") + data.count(b"{") <= _ORJSON_MAX_DEPTH and _LONG_INTEGER.search(data) is None


def dumps_bytes(value: Any) -> bytes:
    try:
        return orjson.dumps(value)
    except (orjson.JSONEncodeError, TypeError):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")


def dumps(value: Any) -> str:
    return dumps_bytes(value).decode("utf-8")


def loads(text: str | bytes) -> Any:
    # Anything else raises json's TypeError: SQLAlchemy's SQLite JSON type relies on it for bare numbers.
    data = text.encode("utf-8") if isinstance(text, str) else text
    if isinstance(data, bytes) and orjson_reads_exactly(data):
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            pass
    return json.loads(text)
