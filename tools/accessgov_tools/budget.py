"""How big a document is once its aliases are expanded, counted without expanding them.

A YAML alias (or a value an engine shares between places) makes one node appear wherever it is referenced, so a
kilobyte can stand for billions of nodes. Like yaml.v3's alias budget, each shared node is measured once and its
size added at every reference: the walk costs one visit per distinct node and one addition per reference, however
large the expansion. The same walk measures the nesting depth as it would be expanded, refuses a node that contains
itself (a recursive alias) and the mappings with too many keys.

`measure` works on any graph given a function that lists a node's children: the loader's YAML node trees (with
their marks) and plain Python values (the JSON reader's, an overlay's results, the bundler's).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from accessgov_tools.limits import DEPTH_CEILING, Limits

# A node's children in document order (a mapping's as key, value, key, value, ...), or None for a scalar.
Children = Callable[[Any], Sequence[Any] | None]


@dataclass
class Exceeded(Exception):
    """A limit hit at the node `path` leads to: (container, index among its children) from the root down."""

    limit: str
    detail: str
    path: list[tuple[Any, int]]
    sizes: dict[int, int] = field(default_factory=dict)  # id -> expanded size, of the collections measured
    shared: set[int] = field(default_factory=set)  # ids of the collections referenced more than once

    def size(self, node: Any, children: Children) -> int:
        """The expanded size of `node` (1 for a scalar)."""
        return self.sizes.get(id(node), 1) if children(node) is not None else 1


def value_leaf(value: Any) -> bool:
    """Whether a plain value is a scalar."""
    return not isinstance(value, (dict, list))


def tree_within(value: Any, limits: Limits) -> bool:
    """Whether a tree (no shared parts: what a JSON reader makes) is within `limits`: a quick walk that stops at
    the first limit passed (`measure` then says which and where). Counts as `measure` does."""
    if not isinstance(value, (dict, list)):
        return True
    max_depth, max_keys, max_nodes = limits.max_depth, limits.max_keys, limits.max_nodes
    nodes, stack = 1, [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > max_depth:
            return False
        if isinstance(node, dict):
            if len(node) > max_keys:
                return False
            nodes += 2 * len(node)
            kids: Any = node.values()
        else:
            nodes += len(node)
            kids = node
        if nodes > max_nodes:
            return False
        deeper = depth + 1
        for kid in kids:
            if isinstance(kid, (dict, list)):
                stack.append((kid, deeper))
    return True


def measure_value(value: Any, limits: Limits) -> Extent:
    """`measure` of a plain value (shared parts counted at every place they are)."""
    return measure(value, value_children, limits, leaf=value_leaf, text=value_text)


def value_children(value: Any) -> Sequence[Any] | None:
    """The children of a plain value: a dict's keys and values interleaved, a list's items; None for a scalar."""
    if isinstance(value, dict):
        return [part for item in value.items() for part in item]
    if isinstance(value, list):
        return value
    return None


@dataclass(frozen=True)
class Extent:
    """How big a value is expanded: its nodes (keys included) and how deep its collections nest (0: a scalar)."""

    nodes: int
    depth: int


UNBOUNDED = Limits(max_depth=DEPTH_CEILING, max_nodes=2**62, max_keys=2**62, max_text=2**62, max_text_total=2**62)


def extent(value: Any) -> Extent:
    """The extent of a plain value (no limit but the depth ceiling)."""
    return measure_value(value, UNBOUNDED)


def measure(
    root: Any,
    children: Children,
    limits: Limits,
    *,
    keys: Callable[[Any], int] | None = None,
    leaf: Callable[[Any], bool] | None = None,
    text: Callable[[Any], int] | None = None,
) -> Extent:
    """The expanded extent of `root`; raises `Exceeded` on a limit or a recursive node.

    `keys(node)` is the number of entries of a mapping (0 for anything else), a dict's length by default; `leaf(node)`
    whether a node is a scalar (cheaper than asking for its children), `children(node) is None` by default;
    `text(scalar)` the characters of a scalar (a string's length), counted against `max-text-total` as expanded."""
    count_keys = keys or (lambda node: len(node) if isinstance(node, dict) else 0)
    text_of = text or _no_text
    texts: dict[int, int] = {}  # id -> characters of its strings, expanded (of the collections measured)
    max_text = limits.max_text_total
    is_leaf = leaf or (lambda node: children(node) is None)
    sizes: dict[int, int] = {}
    heights: dict[int, int] = {}
    parents: dict[int, int] = {}
    path_ids: list[int] = []  # the collections being measured, root first (their ids)
    on_path: set[int] = set()
    # (node, its children once they are pushed, else None; the ids of those that are collections; its scalars;
    # their characters)
    stack: list[tuple[Any, Sequence[Any] | None, list[int], int, int]] = [(root, None, [], 0, 0)]
    positions: dict[int, tuple[Any, int]] = {}  # id -> (container, index) where it is being measured
    max_depth = limits.max_depth

    def fail(limit: str, detail: str, node_path: list[tuple[Any, int]]) -> Exceeded:
        shared = {node_id for node_id, count in parents.items() if count > 1}
        return Exceeded(limit, detail, node_path, sizes, shared)

    if is_leaf(root):
        return Extent(1, 0)
    while stack:
        node, kids, collections, scalars, characters = stack[-1]
        node_id = id(node)
        if kids is None:
            if node_id in sizes:  # pushed twice, measured under its other parent meanwhile
                stack.pop()
                if len(path_ids) + heights[node_id] > max_depth:
                    raise fail(
                        "max-depth",
                        f"nested deeper than {max_depth} levels once its aliases are expanded",
                        [*_trail(positions, path_ids), positions[node_id]],
                    )
                continue
            kids = children(node) or ()
            on_path.add(node_id)
            path_ids.append(node_id)
            if len(path_ids) > max_depth:
                raise fail("max-depth", f"nested deeper than {max_depth} levels", _trail(positions, path_ids))
            entries = count_keys(node)
            if entries > limits.max_keys:
                raise fail(
                    "max-keys",
                    f"a mapping with more than {limits.max_keys:,} keys ({entries:,})",
                    [*_trail(positions, path_ids), (node, 2 * limits.max_keys)],
                )
            at = len(stack) - 1
            collections, scalars, characters, pushed = [], 0, 0, False
            for index in range(len(kids) - 1, -1, -1):
                child = kids[index]
                if is_leaf(child):
                    scalars += 1
                    characters += text_of(child)
                    continue
                child_id = id(child)
                collections.append(child_id)
                parents[child_id] = parents.get(child_id, 0) + 1
                if child_id in on_path:
                    raise fail(
                        "recursive-alias",
                        "a node that contains itself (a recursive alias)",
                        [*_trail(positions, path_ids), (node, index)],
                    )
                if child_id in sizes:
                    if len(path_ids) + heights[child_id] > max_depth:
                        raise fail(
                            "max-depth",
                            f"nested deeper than {max_depth} levels once its aliases are expanded",
                            [*_trail(positions, path_ids), (node, index)],
                        )
                    continue
                positions[child_id] = (node, index)  # the last push is the first popped
                stack.append((child, None, [], 0, 0))
                pushed = True
            stack[at] = (node, kids, collections, scalars, characters)
            if pushed:
                continue
        stack.pop()
        size, height = 1 + scalars, 0
        for child_id in collections:
            size += sizes[child_id]
            characters += texts[child_id]
            if heights[child_id] > height:
                height = heights[child_id]
        sizes[node_id] = size
        texts[node_id] = characters
        heights[node_id] = height + 1
        if characters > max_text:
            raise fail(
                "max-text-total",
                f"more than {max_text:,} characters of text once its aliases are expanded",
                _trail(positions, path_ids),
            )
        if size > limits.max_nodes:
            raise fail(
                "max-nodes",
                f"more than {limits.max_nodes:,} nodes once its aliases are expanded",
                _trail(positions, path_ids) + _budget_path(node, children, limits.max_nodes, sizes),
            )
        on_path.discard(node_id)
        path_ids.pop()
    return Extent(sizes[id(root)], heights[id(root)])


def _no_text(node: Any) -> int:
    return 0


def value_text(value: Any) -> int:
    """The characters of a plain scalar: a string's length, 0 for anything else."""
    return len(value) if isinstance(value, str) else 0


def _trail(positions: dict[int, tuple[Any, int]], path_ids: list[int]) -> list[tuple[Any, int]]:
    """The (container, index) steps from the root to the innermost node being measured."""
    return [positions[node_id] for node_id in path_ids[1:] if node_id in positions]


def _budget_path(root: Any, children: Children, budget: int, sizes: dict[int, int]) -> list[tuple[Any, int]]:
    """The steps to the node where a walk in document order, counting expanded nodes, passes `budget`."""
    path: list[tuple[Any, int]] = []
    node, remaining = root, budget
    while True:
        kids = children(node)
        if kids is None:
            return path
        counted = 1
        for index, child in enumerate(kids):
            size = sizes.get(id(child), 1) if children(child) is not None else 1
            if counted + size > remaining:
                path.append((node, index))
                node, remaining = child, remaining - counted
                break
            counted += size
        else:
            return path
