"""JSON encoding for responses and the database's JSON columns: orjson, with the standard library as fallback.

orjson is several times faster on the documents this service moves (a page of entitlements, a task), which
profiling showed to be a large share of a GET page. It refuses integers beyond 64 bits, which webhook payloads
may carry; those documents fall back to `json`, which writes them exactly.
"""

from __future__ import annotations

import json
from typing import Any

import orjson


class RawJSON:
    """JSON text made by `dumps_bytes` already, written as is wherever it appears inside a value.

    A large part of a document (a task's growing policy history) is then serialised once per request, however
    many documents (the stored row, the response) embed it.
    """

    __slots__ = ("raw",)

    def __init__(self, raw: bytes) -> None:
        self.raw = raw

    def __repr__(self) -> str:
        return f"RawJSON({self.raw[:40]!r}...)"


def _orjson_default(value: Any) -> Any:
    if isinstance(value, RawJSON):
        return orjson.Fragment(value.raw)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _json_default(value: Any) -> Any:
    if isinstance(value, RawJSON):  # the rare fallback (see above): parsed back, then written by `json`
        return loads(value.raw)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def dumps_bytes(value: Any) -> bytes:
    try:
        return orjson.dumps(value, default=_orjson_default)
    except (orjson.JSONEncodeError, TypeError):
        encoded = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=_json_default)
        return encoded.encode("utf-8")


def dumps(value: Any) -> str:
    return dumps_bytes(value).decode("utf-8")


def loads(text: str | bytes) -> Any:
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)  # what orjson refuses but json reads (integers beyond 64 bits)
