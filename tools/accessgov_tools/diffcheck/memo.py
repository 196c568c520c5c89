"""Each pair of schemas compared once, cycles included: the findings every pair reaches, memoised.

The comparison of two schemas reaches the findings of every pair below it. A pair met again while it is still
being compared is assumed equal there (co-inductively, as type checkers compare recursive types): its findings
are gathered where it is being compared. The pairs that reach each other form a strongly connected component of
the pair graph (Tarjan's algorithm, run as the comparison walks it), and every pair of one component reaches the
same findings: those its first-entered pair gathered. So each component is memoised once it is finished, and the
walk costs one visit per pair and one look-up per edge, however many paths lead through the cycles.
"""

from __future__ import annotations

from collections.abc import Hashable, Set
from dataclasses import dataclass, field
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)  # a pair's key
F = TypeVar("F", bound=Hashable)  # a finding's key

_NONE: frozenset[object] = frozenset()


@dataclass
class _Open(Generic[K, F]):
    key: K
    index: int  # the order it was entered in
    low: int  # the smallest index it reaches among open pairs: `index` when it heads its component
    found: set[F] = field(default_factory=set)


class PairMemo(Generic[K, F]):
    """The findings each compared pair reaches; `sink` (when set) collects everything reached while it is set."""

    def __init__(self) -> None:
        self.sink: set[F] | None = None
        self._done: dict[K, Set[F]] = {}
        self._open: dict[K, _Open[K, F]] = {}  # entered, component not finished (being compared or waiting)
        self._stack: list[_Open[K, F]] = []  # the pairs being compared, innermost last
        self._component: list[_Open[K, F]] = []  # Tarjan's stack: open pairs in the order entered
        self._entered = 0

    def __len__(self) -> int:
        """How many pairs have been compared (for measurements and tests)."""
        return self._entered

    def record(self, keys: Set[F]) -> None:
        """Findings reached here: they belong to the innermost pair being compared (and to the sink)."""
        if self._stack:
            self._stack[-1].found |= keys
        elif self.sink is not None:
            self.sink |= keys

    def enter(self, key: K) -> bool:
        """True: compare the pair now, then `leave()`. False: it is known (its findings are recorded here) or is
        being compared further out (assumed equal here; what it finds reaches this pair through its component)."""
        if (known := self._done.get(key)) is not None:
            self.record(known)
            return False
        if (open_ := self._open.get(key)) is not None:
            top = self._stack[-1]  # a pair is open only while its component's head is being compared
            top.low = min(top.low, open_.index)
            return False
        frame: _Open[K, F] = _Open(key, self._entered, self._entered)
        self._entered += 1
        self._open[key] = frame
        self._stack.append(frame)
        self._component.append(frame)
        return True

    def leave(self) -> None:
        """The innermost pair is compared: hand its findings outwards; memoise its component once finished."""
        frame = self._stack.pop()
        if self._stack:
            outer = self._stack[-1]
            outer.found |= frame.found
            outer.low = min(outer.low, frame.low)
        elif self.sink is not None:
            self.sink |= frame.found
        if frame.low != frame.index:
            return  # part of a component headed further out: it reaches what the head gathers
        found: Set[F] = frame.found or _NONE  # type: ignore[assignment]
        while True:
            member = self._component.pop()
            del self._open[member.key]
            self._done[member.key] = found
            if member is frame:
                return
