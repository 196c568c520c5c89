"""Arbitrary JSON documents for property tests, and equality that also compares types (1, 1.0 and True differ)."""

from __future__ import annotations

import math
from typing import Any

from hypothesis import strategies as st

scalars = (
    st.none()
    | st.booleans()
    | st.integers()  # unbounded: beyond 64 bits too
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
documents = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4), max_leaves=25
)


def same(a: Any, b: Any) -> bool:
    """Equal, of the same type at every level, keys included and in the same order."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return (
            len(a) == len(b)
            and all(same(x, y) for x, y in zip(a, b, strict=True))
            and all(same(a[key], b[key]) for key in a)
        )
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return a == b
