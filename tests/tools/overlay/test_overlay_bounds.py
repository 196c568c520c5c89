"""The overlay engine on untrusted overlays: regular expressions on RE2 with I-Regexp's meaning, and every action's
result (and every query) within the node budget."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from accessgov_tools.iregexp import matches
from accessgov_tools.limits import Limits
from accessgov_tools.loader import LimitError
from accessgov_tools.overlay import _select, apply_overlay, load_overlay, parse_overlay


def _overlay(*actions: dict[str, Any]) -> Any:
    return parse_overlay({"overlay": "1.1.0", "info": {"title": "t", "version": "1"}, "actions": list(actions)}, "o")


@pytest.mark.parametrize(
    ("value", "pattern", "whole", "expected"),
    [
        ("abc", "a.c", True, True),
        ("a\nc", "a.c", True, False),  # I-Regexp's `.` is neither \n nor \r
        ("a\rc", "a.c", False, False),
        ("xaby", "ab", False, True),
        ("xaby", "ab", True, False),
        ("^a$", "^a$", True, True),  # `^` and `$` are ordinary characters in I-Regexp
        ("a", "^a", True, False),
        ("Ab", r"\p{Lu}b", True, True),
        ("7", r"\d", True, False),  # not I-Regexp: LogicalFalse
        ("a", "(?i)A", True, False),
        ("a", "a{1001}", True, False),  # more than RE2 repeats: matches nothing
        ("\ud800", ".", True, False),
        (3, "3", True, False),
    ],
)
def test_regular_expressions_mean_what_i_regexp_says(value: object, pattern: str, whole: bool, expected: bool) -> None:
    assert matches(value, pattern, whole=whole) is expected


def test_a_pattern_that_backtracks_catastrophically_runs_in_linear_time() -> None:
    text = "a" * 20_000  # Python's re needs 2**n steps for these; RE2 one pass
    assert not matches(text, "(a|aa)*(a|aa)*b", whole=True)
    assert not matches(text + "!", "(a+)+b", whole=False)
    overlay = _overlay({"target": '$..[?search(@.d, "(a|aa)*(a|aa)*b")]', "update": {"x-hit": True}})
    assert apply_overlay(overlay, {"p": [{"d": text}, {"d": "aab"}]}) == {
        "p": [{"d": text}, {"d": "aab", "x-hit": True}]
    }


def test_copies_that_double_an_array_stop_at_the_node_budget(tmp_path: Path) -> None:
    path = tmp_path / "double.yaml"
    actions = "".join(f"  - target: '$.a'\n    copy: '$.a'\n    description: c{i}\n" for i in range(30))
    path.write_text(f"overlay: 1.1.0\ninfo: {{title: t, version: '1'}}\nactions:\n{actions}", encoding="utf-8")
    with pytest.raises(LimitError) as raised:
        apply_overlay(load_overlay(path), {"a": [1, 2]}, Limits(max_nodes=10_000))
    assert raised.value.limit == "max-nodes"
    assert str(raised.value).startswith(f"{path}:") and "actions[12]" in str(raised.value)


def test_an_update_carrying_an_alias_bomb_is_refused_before_it_is_applied(tmp_path: Path) -> None:
    path = tmp_path / "bomb.yaml"
    levels = "".join(f"      {n}: &{n} [{', '.join([f'*{p}'] * 10)}]\n" for p, n in zip("abcd", "bcde", strict=True))
    path.write_text(
        "overlay: 1.1.0\ninfo: {title: t, version: '1'}\nactions:\n  - target: '$.paths[*]'\n    update:\n"
        f"      a: &a [x, x, x, x, x, x, x, x, x, x]\n{levels}",
        encoding="utf-8",
    )
    document = {"paths": {f"/p{i}": {} for i in range(50)}}  # 50 targets of a 111,111-node value
    with pytest.raises(LimitError, match="max-nodes: the result would have more than 2,000,000 nodes"):
        apply_overlay(load_overlay(path), document)


def test_a_copy_nested_into_itself_stops_at_the_depth_limit() -> None:
    actions = [{"target": "$" + ".a" * (i + 1), "copy": "$", "description": str(i)} for i in range(3)]
    with pytest.raises(LimitError, match="max-depth"):
        apply_overlay(_overlay(*actions), {"a": {"a": {"a": {"a": {}}}}}, Limits(max_depth=8))


def test_a_query_visits_at_most_the_node_budget() -> None:
    """A filter that runs a descent below every node visits the sum of every subtree: quadratic in the depth."""
    document: dict[str, Any] = {}
    for _ in range(60):
        document = {"a": document}  # 121 nodes; the query visits 60 * 61 / 2 = 1,830
    overlay = _overlay({"target": "$..[?count(@..*) > 100]", "remove": True, "x-allow-empty": True})
    with pytest.raises(LimitError, match=r"query .* visits more than 1,000 nodes"):
        _select(document, overlay.actions[0].target, "o", Limits(max_nodes=1_000))
    with pytest.raises(LimitError, match=r"query .*: the overlay's queries visit more than 25 nodes in all"):
        apply_overlay(overlay, document, Limits(max_nodes=1_000))  # all its queries together: max-nodes / 40
    assert apply_overlay(overlay, document, Limits(max_nodes=100_000)) is not None
