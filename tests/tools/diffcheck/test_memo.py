"""The pair memo: each pair compared once, and every pair reaches exactly the findings below it, cycles included."""

from __future__ import annotations

import random
from typing import Any

import pytest

from accessgov_tools.diffcheck.compare import compare
from accessgov_tools.diffcheck.memo import PairMemo
from accessgov_tools.diffcheck.subsume import Subsumption

Graph = dict[str, list[str]]


def _walk(memo: PairMemo[str, str], graph: Graph, findings: dict[str, set[str]], node: str, seen: list[str]) -> None:
    if not memo.enter(node):
        return
    seen.append(node)
    memo.record(findings.get(node, set()))
    for child in graph.get(node, []):
        _walk(memo, graph, findings, child, seen)
    memo.leave()


def _closure(graph: Graph, findings: dict[str, set[str]], start: str) -> set[str]:
    reached, stack, found = {start}, [start], set()
    while stack:
        node = stack.pop()
        found |= findings.get(node, set())
        for child in graph.get(node, []):
            if child not in reached:
                reached.add(child)
                stack.append(child)
    return found


def _reach(memo: PairMemo[str, str], graph: Graph, findings: dict[str, set[str]], start: str) -> set[str]:
    """What one walk from `start` gathers (an operation's walk): the sink collects it."""
    sink: set[str] = set()
    memo.sink = sink
    _walk(memo, graph, findings, start, [])
    memo.sink = None
    return sink


def test_a_cycle_is_compared_once_and_every_member_reaches_the_whole_cycle() -> None:
    graph = {"a": ["b"], "b": ["c"], "c": ["a", "d"], "d": []}
    findings = {"b": {"b1"}, "d": {"d1"}}
    memo: PairMemo[str, str] = PairMemo()
    seen: list[str] = []
    memo.sink = set()
    _walk(memo, graph, findings, "a", seen)
    assert memo.sink == {"b1", "d1"}
    assert seen == ["a", "b", "c", "d"]
    # Entered again from outside, at any member: nothing is compared again, all of it is reached.
    for start in ("b", "c"):
        again: list[str] = []
        memo.sink = set()
        _walk(memo, graph, findings, start, again)
        assert (again, memo.sink) == ([], {"b1", "d1"})
    memo.sink = set()
    _walk(memo, graph, findings, "d", [])
    assert memo.sink == {"d1"}
    assert len(memo) == 4


def test_a_pair_left_open_inside_a_cycle_reaches_what_its_cycle_reaches() -> None:
    """`c` is finished before the cycle's head `a` is: met again through `e`, it still gives all of `a`'s."""
    graph = {"a": ["b", "e"], "b": ["c"], "c": ["a"], "e": ["c", "f"], "f": []}
    findings = {"a": {"a1"}, "f": {"f1"}}
    memo: PairMemo[str, str] = PairMemo()
    assert _reach(memo, graph, findings, "a") == {"a1", "f1"}
    for node in graph:
        assert _reach(memo, graph, findings, node) == _closure(graph, findings, node), node


@pytest.mark.parametrize("seed", range(40))
def test_random_graphs_reach_their_transitive_closure(seed: int) -> None:
    rng = random.Random(seed)
    nodes = [f"n{i}" for i in range(rng.randint(2, 14))]
    graph = {n: rng.sample(nodes, rng.randint(0, min(3, len(nodes)))) for n in nodes}
    findings = {n: {f"{n}!"} for n in nodes if rng.random() < 0.3}
    memo: PairMemo[str, str] = PairMemo()
    order = nodes[:]
    rng.shuffle(order)
    for start in order:
        assert _reach(memo, graph, findings, start) == _closure(graph, findings, start), (start, graph)
    assert len(memo) == len({n for start in order for n in _reachable(graph, start)})


def _reachable(graph: Graph, start: str) -> set[str]:
    seen, stack = {start}, [start]
    while stack:
        for child in graph.get(stack.pop(), []):
            if child not in seen:
                seen.add(child)
                stack.append(child)
    return seen


def _chain(depth: int, name: str, max_length: int, alias: bool) -> dict[str, Any]:
    """Schemas `<name>0..<name><depth>`: each level an object whose two properties are the level below, as one
    Python object (a YAML alias: what the loader makes of `*L`) or as two `$ref`s to it. 2**depth paths."""
    levels: dict[str, Any] = {f"{name}0": {"type": "string", "maxLength": max_length}}
    for k in range(1, depth + 1):
        below = levels[f"{name}{k - 1}"] if alias else {"$ref": f"#/components/schemas/{name}{k - 1}"}
        levels[f"{name}{k}"] = {"type": "object", "properties": {"a": below, "b": below}}
    return levels


def _contract(schemas: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
    content = {"application/json": {"schema": body}}
    return {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "paths": {"/a": {"post": {"requestBody": {"content": content}, "responses": {"200": {"description": "OK"}}}}},
        "components": {"schemas": schemas},
    }


@pytest.fixture
def compared_pairs(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every pair of schemas the comparison enters (compares below), as `PairMemo.enter` admits it."""
    entered: list[object] = []
    enter = PairMemo.enter

    def counting(self: PairMemo[Any, Any], key: Any) -> bool:
        admitted = enter(self, key)
        if admitted:
            entered.append(key)
        return admitted

    monkeypatch.setattr(PairMemo, "enter", counting)
    return entered


@pytest.mark.parametrize("alias", [True, False], ids=["yaml-alias", "ref"])
def test_a_schema_dag_is_compared_once_per_pair_not_once_per_path(alias: bool, compared_pairs: list[object]) -> None:
    """Each level reaches the one below twice: 2**depth paths, depth + 1 pairs; the one change is one finding
    (with aliases, the same Python object under every path: it is one schema, wherever it is met)."""
    depth = 16
    top = {"$ref": f"#/components/schemas/L{depth}"}
    base = _contract(_chain(depth, "L", 10, alias), top)
    head = _contract(_chain(depth, "L", 5, alias), top)
    found = compare(base, head)
    assert [f.check for f in found if f.severity.breaks] == ["request-property-max-length-decreased"]
    assert len(compared_pairs) <= depth + 2


def test_union_members_of_a_schema_dag_are_paired_once_per_pair(
    compared_pairs: list[object], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A member `$ref L<depth>` replaced by `$ref M<depth>`, a copy of it that accepts more (maxLength 10 -> 20 at
    the bottom): the member is paired by subsumption, which asks each pair of levels once, not once per path."""
    asked: list[object] = []
    views = Subsumption._views

    def counting(self: Subsumption, w: Any, n: Any, depth: int) -> bool:
        asked.append((w.pointer, n.pointer))
        return views(self, w, n, depth)

    monkeypatch.setattr(Subsumption, "_views", counting)
    depth = 16
    schemas = _chain(depth, "L", 10, alias=False) | _chain(depth, "M", 20, alias=False)
    base = _contract(schemas, {"anyOf": [{"$ref": f"#/components/schemas/L{depth}"}, {"type": "integer"}]})
    head = _contract(schemas, {"anyOf": [{"$ref": f"#/components/schemas/M{depth}"}, {"type": "integer"}]})
    found = compare(base, head)
    assert {f.check for f in found} == {"request-property-max-length-increased"}
    assert len(asked) <= 2 * (depth + 2)
