"""`domain.cel.json_to_cel` builds CEL values itself (celpy's is slow): for any JSON document it must give what
celpy's gives, value for value and type for type, and fail where celpy fails."""

from __future__ import annotations

import datetime
from typing import Any

import celpy
import pytest
from hypothesis import given, settings

from accessgov.domain.cel import ExpressionError, json_to_cel, to_cel
from tests.server.json_documents import documents, same


def outcome(convert: Any, value: Any) -> tuple[str, Any]:
    try:
        return "value", convert(value)
    except (ValueError, TypeError, OverflowError) as error:
        return "error", type(error)


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(documents)
def test_any_json_document_converts_as_celpy_converts_it(value: Any) -> None:
    ours, theirs = outcome(json_to_cel, value), outcome(celpy.json_to_cel, value)
    assert ours[0] == theirs[0]
    if ours[0] == "value":
        assert same(ours[1], theirs[1])
    else:
        assert ours[1] is theirs[1]


@pytest.mark.parametrize(
    "value",
    [
        (1, "two"),  # a tuple: celpy's conversion, as before
        {"at": datetime.datetime(2026, 11, 24, tzinfo=datetime.UTC)},
        {"span": datetime.timedelta(seconds=90)},
        [2**63 - 1, -(2**63), True, 0.5, None, ""],
    ],
)
def test_values_json_does_not_produce_go_through_celpy(value: Any) -> None:
    assert same(json_to_cel(value), celpy.json_to_cel(value))


def test_an_integer_beyond_int64_is_widened_by_to_cel() -> None:
    converted = to_cel({"n": 2**63, "m": [10**400], "k": 7})
    assert same(converted["n"], celpy.json_to_cel(float(2**63)))
    assert same(converted["m"], celpy.json_to_cel([str(10**400)]))
    assert same(converted["k"], celpy.json_to_cel(7))


def test_data_nested_beyond_the_recursion_limit_is_an_expression_error() -> None:
    deep: Any = 1
    for _ in range(100_000):
        deep = [deep]
    with pytest.raises(ExpressionError):
        to_cel({"deep": deep})
