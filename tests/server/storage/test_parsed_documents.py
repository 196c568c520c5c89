"""`storage.parsed_documents`: a document is parsed again unless its text is exactly the text parsed before."""

from __future__ import annotations

from typing import Any

import pytest

from accessgov import jsoncodec
from accessgov.storage import parsed_documents
from accessgov.storage.parsed_documents import ParsedDocuments
from accessgov.text_lru import TextLru


def test_parsed_documents_are_bounded() -> None:
    parsed = ParsedDocuments(max_text_chars=120)  # 27 chars each: 4 fit
    for n in range(5):
        parsed.remember(f"t{n}", f'{{"n":{n},"pad":"{"x" * 10}"}}', {"n": n})
    assert parsed.parse("t4", '{"n":4,"pad":"xxxxxxxxxx"}') == {"n": 4}
    assert parsed.parse("t0", '{"n":0,"pad":"xxxxxxxxxx"}') == {"n": 0, "pad": "x" * 10}  # evicted: parsed again
    assert parsed.parse("t4", '{"n":5}') == {"n": 5}  # another text: never the remembered document


def test_a_page_parses_only_the_texts_it_has_not_seen(monkeypatch: pytest.MonkeyPatch) -> None:
    parsed = ParsedDocuments()
    first = parsed.parse_many(["a", "b"], ['{"id":"a"}', '{"id":"b","n":2}'])
    assert first == [{"id": "a"}, {"id": "b", "n": 2}]
    calls: list[list[str]] = []

    def counting(texts: list[str]) -> list[Any]:
        calls.append(list(texts))
        return jsoncodec.loads_each(texts)

    monkeypatch.setattr(parsed_documents, "loads_each", counting)
    # b changed since (another writer); c is new: only those two are parsed, in one call.
    again = parsed.parse_many(
        ["a", "b", "c"], ['{"id":"a"}', '{"id":"b","n":3}', '{"id":"c","big":123456789012345678901}']
    )
    assert again == [{"id": "a"}, {"id": "b", "n": 3}, {"id": "c", "big": 123456789012345678901}]
    assert again[0] is first[0]  # the very document parsed before: shared, never modified
    assert calls == [['{"id":"b","n":3}', '{"id":"c","big":123456789012345678901}']]
    assert parsed.parse_many(["b"], ['{"id":"b","n":3}'])[0] is again[1] and len(calls) == 1


def test_get_many_refreshes_the_keys_it_finds() -> None:
    lru: TextLru[str, int] = TextLru(max_length=16)  # 4 texts of 4 characters
    for n in range(4):
        lru.put(f"k{n}", "abcd", n)
    assert lru.get_many(["k0", "nope", "k2"]) == [("abcd", 0), None, ("abcd", 2)]
    assert list(lru._entries) == ["k1", "k3", "k0", "k2"]  # found keys are now the most recently used
    lru.put("k4", "abcd", 4)
    assert lru.get_many(["k1"]) == [None]  # the least recently used went first


def test_derived_values_are_kept_per_text() -> None:
    """With `derive`, the derived value is what is kept: made once per text, again when the text changed."""
    derived: list[Any] = []

    def derive(document: Any) -> tuple[Any, int]:
        derived.append(document)
        return document, len(derived)

    parsed = ParsedDocuments(derive=derive)
    first = parsed.parse_many(["a", "b"], ['{"id":"a"}', '{"id":"b"}'])
    assert first == [({"id": "a"}, 1), ({"id": "b"}, 2)]
    assert parsed.parse_many(["a", "b"], ['{"id":"a"}', '{"id":"b"}']) == first and len(derived) == 2
    assert parsed.parse("b", '{"id":"b","n":1}') == ({"id": "b", "n": 1}, 3)  # changed: parsed and derived again
    assert parsed.parse("b", '{"id":"b","n":1}') == ({"id": "b", "n": 1}, 3)  # ... and remembered
    parsed.remember("c", '{"id":"c"}', {"id": "c"})
    assert parsed.parse("c", '{"id":"c"}') == ({"id": "c"}, 4)
