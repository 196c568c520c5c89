"""A task's policy history, stored as rows of `task_history_steps` apart from the task's document: a restart appends
one row instead of rewriting a document that grows with every restart (docs/architecture.md, "Storage settings and
their measurements"). The document keeps `[]` where the history was (its keys stay in order); `split` and `join`
convert between the two forms.

Step rows are immutable and a history replaced as a whole goes to new positions, so the steps at [start, start +
length) are always the same: `HistoryCache` keeps them by task, checked against the task row's start and length
(read under its row lock), and only once their transaction committed (`TaskWrites.publish`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from accessgov.text_lru import TextLru

HISTORY_KEY = "history"


def _policy_with_history(document: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The document's policy instance when it has a history list (what `split` and `join` move), else None."""
    policy = document.get("policy")
    return policy if isinstance(policy, Mapping) and isinstance(policy.get(HISTORY_KEY), list) else None


def split(document: Mapping[str, Any]) -> tuple[dict[str, Any], list[Any] | None]:
    """(the document with `[]` for its policy's history, the history's steps); steps is None when the document has
    no history list (no policy, or a history that is not a list: stored as it is)."""
    policy = _policy_with_history(document)
    if policy is None:
        return dict(document), None
    return {**document, "policy": {**policy, HISTORY_KEY: []}}, policy[HISTORY_KEY]


def join(stored: Mapping[str, Any], steps: list[Any]) -> dict[str, Any]:
    """The task `stored` (as `split` left it) with its history's `steps` back in place."""
    policy = _policy_with_history(stored)
    if policy is None:
        return dict(stored)
    return {**stored, "policy": {**policy, HISTORY_KEY: steps}}


class HistoryCache:
    """The parsed steps of tasks' histories, by task, with the position of the first (`start`). Bounded by the
    number of steps kept; least recently used first out. Thread-safe (PostgreSQL's writer threads). The step
    objects are shared: never modified (a restart builds new documents around them)."""

    def __init__(self, max_steps: int = 200_000) -> None:
        self._kept: TextLru[list[Any], int] = TextLru(max_steps)

    def known(self, task_id: str, start: int, length: int) -> list[Any] | None:
        """The steps kept of the history [start, start + length): all of them, or the first ones when the history
        has grown since; None when nothing kept for `task_id` belongs to that history."""
        entry = self._kept.get(task_id)
        if entry is None or entry[1] != start or len(entry[0]) > length:
            return None
        return entry[0]

    def keep(self, task_id: str, start: int, steps: list[Any]) -> None:
        self._kept.put(task_id, steps, start)
