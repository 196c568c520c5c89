"""Reading deprecation and stability as oasdiff has them: `x-sunset` dates and `x-stability-level`.

`deprecated: true` may carry `x-sunset` (an RFC 3339 date or date-time): the date the thing may be removed.
`x-stability-level` is one of draft, alpha, beta, stable (none means stable). What a change of either means is
graded by the deprecation rules (`rules/deprecation.py`).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

STABILITY_LEVELS = ("draft", "alpha", "beta", "stable")
INVALID = "invalid"  # what an unreadable x-sunset or x-stability-level reads as


def sunset(node: dict[str, Any]) -> dt.date | str | None:
    """The `x-sunset` date of a node, None when it has none, INVALID when it cannot be read."""
    value = node.get("x-sunset")
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    text = str(value)
    for parse in (dt.date.fromisoformat, lambda t: dt.datetime.fromisoformat(t.replace("Z", "+00:00")).date()):
        try:
            return parse(text)
        except ValueError:
            continue
    return INVALID


def stability(node: dict[str, Any]) -> str | None:
    """The `x-stability-level` of a node, None when it has none, INVALID when it is not a known level."""
    value = node.get("x-stability-level")
    if value is None:
        return None
    return value if value in STABILITY_LEVELS else INVALID


def rank(level: str | None) -> int:
    """draft 0 < alpha 1 < beta 2 < stable 3 (none is stable)."""
    return STABILITY_LEVELS.index(level) if level in STABILITY_LEVELS else len(STABILITY_LEVELS) - 1
