"""`accessgov.jsoncodec`: orjson with the standard library as fallback, and embedded `RawJSON`."""

from __future__ import annotations

import json

import pytest

from accessgov.jsoncodec import RawJSON, dumps, dumps_bytes, loads


def test_raw_json_is_embedded_as_is() -> None:
    raw = RawJSON(dumps_bytes({"history": [{"id": "s-1"}], "ü": 1}))
    assert dumps_bytes({"a": 1, "policy": raw, "list": [raw]}) == (
        b'{"a":1,"policy":{"history":[{"id":"s-1"}],"\xc3\xbc":1},"list":[{"history":[{"id":"s-1"}],"\xc3\xbc":1}]}'
    )
    assert dumps(raw) == '{"history":[{"id":"s-1"}],"ü":1}'


def test_raw_json_in_the_fallback_for_integers_beyond_64_bits() -> None:
    big = 2**70
    raw = RawJSON(dumps_bytes({"big": big}))
    assert raw.raw == b'{"big":1180591620717411303424}'
    assert loads(dumps_bytes({"n": big, "raw": raw})) == {"n": big, "raw": {"big": big}}


def test_other_types_are_still_refused() -> None:
    with pytest.raises(TypeError):
        dumps_bytes({"x": object()})
    assert json.loads(dumps_bytes({"x": 1.5})) == {"x": 1.5}
