"""JSON encoding for responses and the database's JSON columns: orjson (several times faster on a page or a task:
docs/performance.md, "Why the fast paths are shaped as they are"), with the standard library as fallback. orjson
reads integers beyond 64 bits as floats (webhook payloads may carry any integer) and writes at most 254 levels of
nesting: documents that might meet either go through `json`, which keeps integers exact.
"""

from __future__ import annotations

import json
import operator
from collections.abc import Sequence
from typing import Any

import orjson

from accessgov.text_lru import TextLru

# Every digit mapped to 9: a run of 19 digits is then a plain substring search (a regular expression took ten
# times as long as orjson's whole parse of a page).
_DIGITS_AS_NINES = bytes.maketrans(b"012345678", b"999999999")
_LONG_INTEGER = b"9" * 19
# orjson.dumps refuses deeper documents; fewer opening brackets than this cannot nest deeper.
_ORJSON_MAX_DEPTH = 254


def has_no_long_integer(data: bytes) -> bool:
    """No run of 19 digits: orjson then reads every number in `data` to the value `json` reads."""
    return _LONG_INTEGER not in data.translate(_DIGITS_AS_NINES)


def orjson_reads_exactly(data: bytes) -> bool:
    """True when orjson gives the same verdict and value as `json` on a request body: no integer of 19 or more
    digits, and too few brackets to nest beyond what orjson writes back (json refuses ~1,000 levels, orjson
    reads 1,024)."""
    return data.count(b"[") + data.count(b"{") <= _ORJSON_MAX_DEPTH and has_no_long_integer(data)


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
        # A lone surrogate (orjson's refusal) can only sit inside a JSON string, where backslashreplace writes it as
        # its own `\uXXXX` escape: valid JSON for the same value, never a UnicodeEncodeError (a 500) on a response
        # quoting a client's string.
        return encoded.encode("utf-8", "backslashreplace")


def dumps(value: Any) -> str:
    return dumps_bytes(value).decode("utf-8")


def loads(text: str | bytes) -> Any:
    # Anything else raises json's TypeError: SQLAlchemy's SQLite JSON type relies on it for bare numbers.
    # Stored documents: only the integers matter (a document too deep for orjson is refused by it, then by json).
    data = text.encode("utf-8") if isinstance(text, str) else text
    if isinstance(data, bytes) and has_no_long_integer(data):
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            pass
    return json.loads(text)


def loads_each(texts: Sequence[str]) -> list[Any]:
    """`loads` of each text, in one orjson call: the texts joined into one JSON array (a page's stored documents;
    one call and one integer check over the whole page cost a fraction of one per document).

    For JSON the server stored (the database's JSON columns). Whenever the joined array is not exactly one value per
    text (a long integer, a text orjson refuses, one that is not a single JSON value), each is read by `loads`.
    """
    data = ("[" + ",".join(texts) + "]").encode("utf-8")
    if has_no_long_integer(data):
        try:
            values: list[Any] = orjson.loads(data)
        except orjson.JSONDecodeError:
            pass
        else:
            if len(values) == len(texts):
                return values
    return [loads(text) for text in texts]


class GrowingArrays:
    """JSON text of arrays that only grow at the end (a task's policy history), by key, extended in place of
    being written again: `[a,b]` + `c` is `[a,b,c]`, so a restart appending one step writes one step (writing the
    whole history was 25-29 % of the server's CPU once tasks had ~100 steps).

    Text is reused only for the very list it was written from, or one holding the same element objects first:
    documents are never modified once built (see `storage.tasks`), so the same objects still have the same text.
    Bounded by the text kept, least recently used first out; thread-safe (PostgreSQL runs several writer threads).
    """

    def __init__(self, max_bytes: int = 8 * 2**20) -> None:
        # The text each key's list was last written as, with a copy of that list (its element objects).
        self._written: TextLru[bytes, list[Any]] = TextLru(max_bytes)

    def dumps(self, key: str, items: list[Any]) -> RawJSON:
        """`RawJSON(dumps_bytes(items))`, reusing the text last written for `key` when `items` extends that list."""
        entry = self._written.get(key)
        text = _extended(entry, items) if entry is not None else None
        if text is None:
            text = dumps_bytes(items)
        self._written.put(key, text, list(items))
        return RawJSON(text)


def extends(items: Sequence[Any], before: Sequence[Any]) -> bool:
    """Whether `items` holds the very objects of `before` first (`before` grown at the end, or unchanged):
    documents are never modified once built, so the same objects still mean the same values."""
    return len(items) >= len(before) and all(map(operator.is_, before, items))


def _extended(entry: tuple[bytes, list[Any]], items: list[Any]) -> bytes | None:
    """The text of `items` from that of the list it extends, or None when it does not extend it."""
    text, written = entry
    if not extends(items, written):
        return None
    added = items[len(written) :]
    if not added:
        return text
    tail = dumps_bytes(added)  # `[c,d]`: its inside joins the earlier text's
    # One copy of the (long) earlier text: `text[:-1] + b"," + ...` made three.
    return b"".join((memoryview(text)[:-1], b"," if written else b"", memoryview(tail)[1:]))
