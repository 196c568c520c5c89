"""Stored JSON documents parsed before, by key, each with the exact text it was parsed from (or stored as).

A document read again is not parsed again when its stored text is still that text: a task's growing policy
history on every restart (orjson.loads, ~100 us at 90 steps), the 25 entitlements of a page (~20 us, with the
long-integer check of `jsoncodec`). A stale entry is never used, since the text is compared whole (a memcmp).
Entries are shared and must not be modified (the handlers and domain functions build new documents). Bounded
by the stored text they hold (the parsed objects take about 3x as much again); least recently used first out.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

from accessgov.jsoncodec import loads, loads_each
from accessgov.text_lru import TextLru


def _as_parsed(document: Any) -> Any:
    return document


class ParsedDocuments:
    """Parsed documents by key, with the text each was parsed from. Thread-safe (PostgreSQL's writer threads).

    With `derive`, what is kept and returned is `derive(document)` instead (computed once per text): what a
    caller needs of each document besides the document itself, such as an entitlement's view on a page.
    """

    def __init__(self, max_text_chars: int = 8 * 2**20, *, derive: Callable[[Any], Any] = _as_parsed) -> None:
        self._parsed: TextLru[str, Any] = TextLru(max_text_chars)
        self._derive = derive

    def parse(self, key: Hashable, text: str) -> Any:
        """The document `text` holds: the one parsed before for `key` if `text` is still its text (else parsed now,
        and remembered)."""
        entry = self._parsed.get(key)
        if entry is not None and entry[0] == text:
            return entry[1]
        value = self._derive(loads(text))
        self._parsed.put(key, text, value)
        return value

    def parse_many(self, keys: Sequence[Hashable], texts: Sequence[str]) -> list[Any]:
        """`parse` of each (key, text), the texts not seen before parsed together (`loads_each`) and remembered."""
        # The cached document where the text is the one it was parsed from (most of a page read again).
        documents = [
            entry[1] if entry is not None and entry[0] == text else None
            for entry, text in zip(self._parsed.get_many(keys), texts, strict=True)
        ]
        missing = [index for index, document in enumerate(documents) if document is None]
        if missing:
            for index, document in zip(missing, loads_each([texts[index] for index in missing]), strict=True):
                documents[index] = value = self._derive(document)
                self._parsed.put(keys[index], texts[index], value)
        return documents

    def remember(self, key: Hashable, text: str, document: Any) -> None:
        """Keep `document` as what `text` holds for `key` (a document just stored as `text`, say)."""
        self._parsed.put(key, text, self._derive(document))
