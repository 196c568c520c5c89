"""`page_size`: clamped into the accepted range, never rejected for being out of range."""

from __future__ import annotations

from accessgov.bundle.reader import parse_integer
from accessgov.errors import quoted
from accessgov.paging.errors import PageSizeError
from accessgov.paging.limits import DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, MIN_PAGE_SIZE


def clamp_page_size(
    value: int | str | None,
    *,
    minimum: int = MIN_PAGE_SIZE,
    maximum: int = MAX_PAGE_SIZE,
    default: int = DEFAULT_PAGE_SIZE,
) -> int:
    """The page size to serve for the client's `value`, clamped into ``minimum..maximum``.

    - ``None`` (parameter absent) and ``""`` (``?page_size=`` with no value) mean `default`.
    - A string must be an optional sign and ASCII digits, nothing else: no whitespace, no ``1.5``, no ``1e3``
      (the parameter grammar of `accessgov.bundle.reader.parse_integer`, which the engine checked it by).
    - An int is taken as is; a float only if integral (JSON Schema counts ``10.0`` as an integer), so a
      POST body's ``1.5`` is rejected. Bools and every other type are rejected.

    Raises `PageSizeError` (``code == "INVALID_PAGE_SIZE"``) for a value that is not an integer.
    """
    if not minimum <= default <= maximum:
        raise ValueError(f"need minimum <= default <= maximum, got {minimum}, {default}, {maximum}")
    if value is None or value == "":
        return default
    number: int
    if isinstance(value, bool):
        raise PageSizeError(f"page_size must be an integer, got {str(value).lower()}")
    if isinstance(value, int):
        number = value
    elif isinstance(value, float):
        if not value.is_integer():
            raise PageSizeError(f"page_size must be an integer, got {value!r}")
        number = int(value)
    elif isinstance(value, str):
        parsed = parse_integer(value)
        if parsed is None:
            raise PageSizeError(f"page_size must be an integer, got {quoted(value)}")
        number = parsed
    else:
        raise PageSizeError(f"page_size must be an integer, got {type(value).__name__}")
    return max(minimum, min(maximum, number))
