"""I-Regexp (RFC 9485), the regular expressions of JSONPath's `match()` and `search()` (RFC 9535), run by RE2.

RE2 has no backtracking: a match costs time linear in the text, whatever the pattern (`(a+)+$` included), which
Python's `re` does not promise. A pattern is first checked against I-Regexp's grammar (`iregexp-check`); then, as
RFC 9485 section 5.4 says for RE2, every unescaped `.` outside a character class becomes `[^\\n\\r]`, and `^` and `$`,
which are ordinary characters in I-Regexp, are escaped. `match` anchors the whole value (`\\A(?:...)\\z`), `search`
finds it anywhere. A pattern that is not I-Regexp, or that RE2 cannot compile within its memory budget (a repetition
over 1,000, say), matches nothing (LogicalFalse, RFC 9535 2.4.6 and 2.4.7); so does a value RE2 cannot read (a lone
surrogate).
"""

from __future__ import annotations

import functools
from typing import Any

import re2
from iregexp_check import check

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False  # a pattern RE2 refuses is an ordinary outcome here, not something to print
_OPTIONS.max_mem = 8 << 20  # bytes for one compiled pattern (RE2's default): a larger one matches nothing


def translate(pattern: str) -> str:
    """The RE2 syntax of an I-Regexp pattern (assumed valid I-Regexp)."""
    parts: list[str] = []
    escaped = in_class = False
    for char in pattern:
        if escaped:
            parts.append(char)
            escaped = False
        elif char == "\\":
            parts.append(char)
            escaped = True
        elif in_class:
            parts.append(char)
            in_class = char != "]"
        elif char == "[":
            parts.append(char)
            in_class = True
        elif char == ".":
            parts.append("[^\\n\\r]")
        elif char in "^$":
            parts.append("\\" + char)
        else:
            parts.append(char)
    return "".join(parts)


@functools.lru_cache(maxsize=512)
def compiled(pattern: str, *, whole: bool) -> Any | None:
    """The compiled RE2 pattern (anchored when `whole`), or None when it is not I-Regexp or RE2 refuses it."""
    if not check(pattern):
        return None
    body = translate(pattern)
    try:
        return re2.compile(rf"\A(?:{body})\z" if whole else body, _OPTIONS)
    except re2.error:
        return None


def matches(value: object, pattern: object, *, whole: bool) -> bool:
    """RFC 9535's `match()` (`whole`) or `search()`: False for anything but a string and a valid pattern."""
    if not isinstance(value, str) or not isinstance(pattern, str):
        return False
    regex = compiled(pattern, whole=whole)
    if regex is None:
        return False
    try:
        return regex.search(value) is not None
    except UnicodeEncodeError:  # a lone surrogate: not text RE2 can read
        return False
