"""orjson reads request bodies and stored documents when it can; every value and verdict must still be the
standard parser's (`json`), which keeps integers of any size exact."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accessgov import jsoncodec
from accessgov.errors import InvalidRequest
from accessgov.http.body import parse_json_body
from tests.server.json_documents import documents, same


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(documents)
def test_any_document_reads_as_json_reads_it(value: Any) -> None:
    text = json.dumps(value)
    expected = json.loads(text)
    assert same(parse_json_body(text.encode()), expected)
    assert same(jsoncodec.loads(text), expected)
    assert same(jsoncodec.loads(text.encode()), expected)


@pytest.mark.parametrize(
    "text",
    [
        "18446744073709551616",  # 2**64: orjson would read a float
        "-9223372036854775809",
        '{"amount": 123456789012345678901234567890}',
        "[" * 300 + "]" * 300,  # deeper than orjson writes back
    ],
    ids=lambda text: text[:24],
)
def test_documents_orjson_would_read_differently(text: str) -> None:
    expected = json.loads(text)
    assert same(parse_json_body(text.encode()), expected)
    assert same(jsoncodec.loads(text), expected)


@pytest.mark.parametrize("text", ['["\\ud800"]', '{"\\udc00": 1}', '["a", {"b": ["\\ud83d"]}, 123456789012345678901]'])
def test_lone_surrogate_escape_is_refused_in_a_body_but_read_from_storage(text: str) -> None:
    # orjson refuses it, json reads it: a request body is refused (nothing could store it), stored text still reads.
    with pytest.raises(InvalidRequest) as raised:
        parse_json_body(text.encode())
    assert raised.value.code == "INVALID_JSON" and "surrogate" in raised.value.message
    assert same(jsoncodec.loads(text), json.loads(text))


def test_bare_number_from_a_json_column_is_a_type_error() -> None:
    # SQLAlchemy's SQLite JSON type passes stored bare numbers to the deserializer and expects TypeError.
    with pytest.raises(TypeError):
        jsoncodec.loads(5)  # type: ignore[arg-type]


def test_out_of_range_number_still_rejected() -> None:
    with pytest.raises(InvalidRequest):
        parse_json_body(b'{"a": 1e400}')


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.lists(documents, max_size=6))
def test_documents_read_together_as_each_reads_alone(values: list[Any]) -> None:
    texts = [json.dumps(value) for value in values]
    expected = [json.loads(text) for text in texts]
    assert same(jsoncodec.loads_each(texts), expected)


@pytest.mark.parametrize(
    "texts",
    [
        ['{"a": 1}', '{"amount": 123456789012345678901234567890}'],  # one long integer
        ['{"a": 1}', '["\\ud800"]'],  # one orjson refuses
    ],
    ids=["long-integer", "surrogate"],
)
def test_documents_read_together_fall_back_to_each(texts: list[str]) -> None:
    assert same(jsoncodec.loads_each(texts), [json.loads(text) for text in texts])


def test_a_text_of_two_values_is_refused_as_alone() -> None:
    # Joined, '{"a": 1}, {"b": 2}' and '3' parse as three values for two texts: the count sends them to `loads`.
    with pytest.raises(json.JSONDecodeError):
        jsoncodec.loads_each(['{"a": 1}, {"b": 2}', "3"])
