"""Whether a `format` excludes anything the schema's other constraints allow.

`format: int32` on an integer already bounded to 0..21600, or `format: date` on an enumeration of dates, refuses
no value the schema accepted without it: adding, removing or changing such a format narrows or widens nothing (a
typed client may still map it to another type, which its own check grades). The formats of the OpenAPI format
registry with a numeric range are judged by the bounds (`minimum`/`maximum`, exclusive or not) or the values
(`enum`, `const`); string formats by the values alone, with jsonschema's format checker.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from typing_extensions import TypeIs

if TYPE_CHECKING:
    from jsonschema import FormatChecker

    from accessgov_tools.diffcheck.resolve import View

# format -> the closed range of the values it admits; `integral`: only whole numbers.
_RANGES: dict[str, tuple[float, float, bool]] = {
    "int8": (-(2**7), 2**7 - 1, True),
    "int16": (-(2**15), 2**15 - 1, True),
    "int32": (-(2**31), 2**31 - 1, True),
    "int64": (-(2**63), 2**63 - 1, True),
    "uint8": (0, 2**8 - 1, True),
    "uint16": (0, 2**16 - 1, True),
    "uint32": (0, 2**32 - 1, True),
    "uint64": (0, 2**64 - 1, True),
    "float": (-3.4028234663852886e38, 3.4028234663852886e38, False),
    "double": (-1.7976931348623157e308, 1.7976931348623157e308, False),
}


@functools.cache
def _checker() -> FormatChecker:
    """jsonschema's format checker, imported when first needed: its import costs more than most diffs."""
    from jsonschema import FormatChecker

    return FormatChecker()


def _number(value: Any) -> TypeIs[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _conforms(fmt: str, value: Any) -> bool:
    """Whether one value satisfies `fmt` (False for a format this module cannot judge)."""
    if fmt in _RANGES:
        low, high, integral = _RANGES[fmt]
        if not _number(value) or (integral and not float(value).is_integer()):
            return False
        return bool(low <= value <= high)
    if isinstance(value, str) and fmt in _checker().checkers:
        return _checker().conforms(value, fmt)
    return False


def _bounds(view: View) -> tuple[float | None, float | None]:
    """The closed interval the numeric keywords allow (exclusive bounds count as the bound itself)."""
    kw = view.keywords
    lows: list[float] = [v for v in (kw.get("minimum"), kw.get("exclusiveMinimum")) if _number(v)]
    highs: list[float] = [v for v in (kw.get("maximum"), kw.get("exclusiveMaximum")) if _number(v)]
    return (max(lows) if lows else None), (min(highs) if highs else None)


def excludes_nothing(fmt: Any, view: View) -> bool:
    """True when every value `view` accepts without `format` also satisfies `fmt`; False when one may not (or
    when that cannot be told)."""
    if not isinstance(fmt, str):
        return False
    if view.enum is not None and not view.open_enum:
        return bool(view.enum) and all(_conforms(fmt, v) for v in view.enum)
    if "const" in view.keywords:
        return _conforms(fmt, view.keywords["const"])
    if fmt not in _RANGES or view.types is None:
        return False
    low, high, integral = _RANGES[fmt]
    if integral and view.types != {"integer"}:
        return False  # a `number` may be fractional, which an integer format refuses
    if not integral and not view.types <= {"integer", "number"}:
        return False
    least, most = _bounds(view)
    return least is not None and most is not None and least >= low and most <= high
