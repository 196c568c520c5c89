"""`accessgov.jsoncodec`: orjson with the standard library as fallback, and embedded `RawJSON`."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accessgov import jsoncodec
from accessgov.jsoncodec import GrowingArrays, RawJSON, dumps, dumps_bytes, loads
from tests.server.json_documents import documents, same


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


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(documents, max_size=3), max_size=6))
def test_a_growing_array_is_written_as_a_fresh_dumps_writes_it(appended: list[list[Any]]) -> None:
    """However a list grows (none, one or several elements at a time), the extended text reads back as the
    whole list; it is the very text `dumps_bytes` writes unless some part needed `json` (integers beyond 64
    bits), whose floats are spelled differently (`1e-07`, orjson's `1e-7`) but read the same."""
    arrays = GrowingArrays()
    items: list[Any] = []
    for more in appended:
        items = [*items, *more]  # a new list holding the same element objects, as a restart builds it
        text = arrays.dumps("task-1", items).raw
        assert same(loads(text), items)
        if not _needs_json(items):
            assert text == dumps_bytes(items)


def _needs_json(value: Any) -> bool:
    try:
        orjson.dumps(value)
    except orjson.JSONEncodeError:
        return True
    return False


def test_a_growing_array_is_extended_not_written_again(monkeypatch: pytest.MonkeyPatch) -> None:
    arrays = GrowingArrays()
    history = [{"id": f"step-{n}"} for n in range(50)]
    arrays.dumps("task-1", history)
    written: list[Any] = []
    real_dumps = jsoncodec.dumps_bytes
    monkeypatch.setattr(jsoncodec, "dumps_bytes", lambda value: (written.append(value), real_dumps(value))[1])
    longer = [*history, {"id": "step-50"}]
    assert arrays.dumps("task-1", longer).raw == real_dumps(longer)
    assert written == [[{"id": "step-50"}]]  # the new step alone


def test_a_list_that_does_not_extend_the_last_one_is_written_whole() -> None:
    """Equal-looking is not enough: only the same element objects are known to have the same text."""
    arrays = GrowingArrays()
    arrays.dumps("task-1", [{"id": "a"}, {"id": "b"}])
    for other in ([{"id": "a"}, {"id": "B"}, {"id": "c"}], [{"id": "a"}], [], [{"id": "x"}, {"id": "b"}]):
        assert arrays.dumps("task-1", other).raw == dumps_bytes(other)
        assert arrays.dumps("task-2", other).raw == dumps_bytes(other)  # a key never seen


def test_growing_arrays_keep_a_bounded_amount_of_text() -> None:
    arrays = GrowingArrays(max_bytes=4_000)
    for key in range(100):
        arrays.dumps(f"task-{key}", [{"id": "x" * 90}])
    assert arrays._written._length <= 4_000
    kept = list(arrays._written._entries)  # least recently used first
    assert "task-99" in kept and "task-0" not in kept  # least recently written first out


def test_the_restart_history_texts_survive_tasks_restarted_in_turn(monkeypatch: pytest.MonkeyPatch) -> None:
    """`make bench` restarts 250 demo tasks in turn until their histories pass 250 steps (~45 KB each). An LRU
    smaller than all of them misses on every restart (each task's text was evicted by the 249 restarts since its
    last), and writes each history whole again: the restart's cache (`storage.restarts`) holds them all."""
    from accessgov.storage import restarts as restart

    arrays = GrowingArrays(max_bytes=restart._HISTORIES._written.max_length)
    step = {
        "id": "step-0123456789abcdef0123",
        "policyGenerationId": "1",
        "state": "POLICY_STEP_STATE_DONE",
        "approval": {"approverIds": ["user-alice"], "requireApprovalReason": False, "allowReassignment": True},
    }
    histories = {f"task-{n}": [dict(step) for _ in range(250)] for n in range(250)}
    for key, history in histories.items():
        arrays.dumps(key, history)
    whole: list[int] = []
    real_dumps = jsoncodec.dumps_bytes
    monkeypatch.setattr(jsoncodec, "dumps_bytes", lambda value: (whole.append(len(value)), real_dumps(value))[1])
    for key, history in histories.items():  # one more restart of each, in turn
        arrays.dumps(key, [*history, dict(step)])
    assert whole == [1] * len(histories)  # the new step alone, every time


@pytest.mark.parametrize("value", ["\ud800", {"\udfff": ["a\ud83db", 2**70]}, ["x" * 3, "\ude00\ud83d"]])
def test_a_lone_surrogate_is_written_as_its_json_escape(value: Any) -> None:
    # orjson refuses it and UTF-8 cannot hold it: written as \\uXXXX, read back to the same value, never an error.
    written = jsoncodec.dumps_bytes(value)
    assert b"\\u" in written
    assert json.loads(written) == value
