"""The kit's one Markdown renderer: what the target sent (its error messages and codes, header values, body
excerpts inside a reason) shown as data in `summary.md`, never as markup. A value is a code span whose fence is
longer than any backtick run in it (it cannot close the span), on one line (a line break would end a table row:
line breaks and other control characters are shown as `\\n`, `\\x1b`...), with `|` escaped (GitHub's tables split
cells on it, inside code spans too). A block of text (a failure's reason and reproduce lines) is a fenced code
block whose fence no line of it can close. Inside either, `<!--`, `#`, `|` and HTML are text.

Both cut what they show at a bound and say so (`… (N more characters)`).
"""

from __future__ import annotations

import re

_BACKTICKS = re.compile(r"`+")
# What would break a line or is invisible: C0 controls, DEL, C1 controls, and Unicode's line and paragraph
# separators (tab kept in blocks only).
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _shown(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    return f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"


def visible(text: str, keep: str = "") -> str:
    """`text` with each control character (but those in `keep`) written as an escape (`\\n`, `\\x1b`): what no
    report may hold raw (a Markdown line break, a character XML 1.0 forbids, a terminal's escape sequence)."""
    return _CONTROL.sub(lambda match: match.group() if match.group() in keep else _shown(match), text)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text) - limit} more characters)"


def _fence(content: str, least: int) -> str:
    longest = max((len(run) for run in _BACKTICKS.findall(content)), default=0)
    return "`" * max(least, longest + 1)


def value(text: object, limit: int = 300) -> str:
    """`text` as an inline code span on one line (in a table cell too), at most `limit` characters of it."""
    content = visible(_cut(str(text), limit))
    if not content:
        return ""
    # CommonMark strips one space from each end of a span that begins and ends with one: pad so that a value
    # beginning or ending with a backtick or a space reads back exactly.
    pad = " " if (content[0] in "` " or content[-1] in "` ") and content.strip(" ") else ""
    fence = _fence(content, 1)
    return f"{fence}{pad}{content}{pad}{fence}".replace("|", "\\|")


def own(text: str) -> str:
    """The kit's own words (a rule's title, a spec pointer) in a table cell: their markup kept, on one line, `|`
    escaped. Never for what the target sent (`value`)."""
    return " ".join(text.splitlines()).replace("|", "\\|")


def block(text: str, info: str = "", limit: int = 64 * 1024) -> str:
    """`text` as a fenced code block (lines of it kept, other control characters shown), at most `limit`
    characters of it; its fence longer than any backtick run in it, so no line of it ends the block."""
    content = _cut(text.replace("\r\n", "\n"), limit)
    content = visible(content, keep="\n\t")
    fence = _fence(content, 3)
    return f"{fence}{info}\n{content}\n{fence}"
