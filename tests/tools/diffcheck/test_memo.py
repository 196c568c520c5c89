"""The pair memo: each pair compared once, and every pair reaches exactly the findings below it, cycles included."""

from __future__ import annotations

import random

import pytest

from accessgov_tools.diffcheck.memo import PairMemo

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
