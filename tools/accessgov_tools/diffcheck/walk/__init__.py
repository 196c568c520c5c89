"""The walk: two bundled documents paired part by part, and every difference between them as a typed value.

`walk(base, head)` returns the differences in the order found (`differences.py` says what each one is); it
grades nothing and names no check: the rules (`diffcheck/rules/`) turn differences into findings. `document.py`
walks operations and what they hold, `schemas.py` the schemas met there, `keywords.py` the 2020-12 keywords.
"""

from __future__ import annotations

from typing import Any

from accessgov_tools.diffcheck.walk.differences import Difference
from accessgov_tools.diffcheck.walk.document import DocumentWalk


def walk(base: dict[str, Any], head: dict[str, Any], stability_level: str = "beta") -> list[Difference]:
    """Every difference from `base` to `head`; operations whose stability is below `stability_level` (draft <
    alpha < beta < stable) only for their stability."""
    return DocumentWalk(base, head, stability_level).run()
