"""Document text as the reports show it: data, never markup.

A pull request writes the names, values and descriptions its reports quote, so the text of a report must not be
able to change the report: end a code span early, start a line (a heading, a list item, a verdict of its own), open
an HTML comment or tag that hides what follows, break a table cell, smuggle bidi or other invisible characters, or
run to megabytes. Every renderer (the diff's text, markdown and GitHub annotations, the changelog, release-check,
the CI job summary) passes document text through this module:

- `visible(text)`: controls (newlines, NUL, escape sequences), bidi controls (U+202A-U+202E, U+2066-U+2069, ...),
  zero-width and other format characters are written as `⟨U+202E⟩`; a long value is cut with a visible
  `…⟨+N characters⟩`. What is left is what a reader sees, so nothing is hidden and nothing reorders.
- `quote(value)`: how a message quotes a value (backticks, fenced as below) so that `text()` finds it again.
- `code(text)`: a CommonMark code span whose fence is longer than the longest backtick run inside (padded with a
  space when the text starts or ends with a backtick or a space); `table=True` escapes `|` for GFM table cells.
- `text(message)`: markdown for a message in which backticks delimit values (the diff engine's convention): each
  value as `code()`, everything else escaped wherever it could be markup (no `#`, `-`, `>`, `1.`, `<`, `&`, `|`,
  `[`, `*`, `$` can mean anything); `plain(message)` is exactly the text a reader then sees.
- `annotation(text)` / `annotation_property(text)`: GitHub workflow-command escaping of the visible text.
- `html(text)`: the visible text escaped for HTML.
- `TerminalSafe`: every tool's stdout and stderr (`cli.guarded`): no character a terminal acts on (ESC sequences,
  CR, backspace, C1 controls, bidi controls) is written raw, and no line reads as a GitHub workflow command unless
  `write_commands()` wrote it (the diff's `--format github`).
"""

from __future__ import annotations

import html as _html
import re
import sys
import unicodedata
from collections.abc import Iterable
from typing import Any

MAX_VALUE = 300  # characters of one quoted value before it is cut
MAX_TEXT = 2_000  # characters of one message

# Characters a reader would not see as themselves: C0 and C1 controls (newline, tab, NUL, ESC), DEL, and every
# format character (bidi embeddings, overrides and isolates, zero-width space and joiners, BOM, soft hyphen, ...);
# lone surrogates, and the line and paragraph separators.
_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp", "Co", "Cn"})
# What can start markup inside a line: escapes, code, emphasis and strikethrough, links and link definitions, HTML
# and autolinks, table cells, GitHub's math (`$...$` can colour text white). An `&` only before what reads as an
# entity; `#`, `-`, `+`, `>` and `1.`/`1)` only where a line would start (see `escape`).
_MARKUP = re.compile(r"[\\`*_~\[\]<>|$]|&(?=#?\w+;)")
_LINE_START = re.compile(r"^([#>+-]|\d{1,9}(?=[.)]))")
_BACKTICKS = re.compile(r"`+")


def _shown(char: str) -> str:
    if char == " " or (char.isprintable() and unicodedata.category(char) not in _INVISIBLE_CATEGORIES):
        return char
    return f"⟨U+{ord(char):04X}⟩"


def visible(value: object, limit: int = MAX_TEXT) -> str:
    """`value` as text a reader sees as it is: invisible characters spelled out, cut after `limit` characters."""
    text = value if isinstance(value, str) else str(value)
    cut = len(text) - limit if len(text) > limit else 0
    if cut:
        text = text[:limit]
    shown = "".join(_shown(char) for char in text) if not text.isascii() or not text.isprintable() else text
    return shown + (f"…⟨+{cut:,} characters⟩" if cut else "")


def _fence(content: str) -> str:
    longest = max((len(run) for run in _BACKTICKS.findall(content)), default=0)
    return "`" * (longest + 1)


def code(value: object, *, table: bool = False, limit: int = MAX_VALUE) -> str:
    """A markdown code span showing `value` (visible, cut after `limit` characters) and nothing else."""
    content = visible(value, limit)
    if not content:
        return "*(empty)*"
    if table:
        content = content.replace("|", "\\|")
    pad = " " if (content[0] in "` " or content[-1] in "` ") and content.strip(" ") else ""
    fence = _fence(content)
    return f"{fence}{pad}{content}{pad}{fence}"


def quote(value: object) -> str:
    """`value` between backticks, as a message quotes a value so that `text()` finds it again exactly: the fence
    longer than any backtick run in it, padded when it starts or ends with a backtick or a space."""
    content = value if isinstance(value, str) else str(value)
    pad = " " if content and (content[0] in "` " or content[-1] in "` ") and content.strip(" ") else ""
    fence = _fence(content)
    return f"{fence}{pad}{content}{pad}{fence}"


def _mark_line_start(match: re.Match[str]) -> str:
    found = match.group()
    return found + "\\" if found[0].isdigit() else "\\" + found


def escape(value: object, limit: int = MAX_TEXT, *, line_start: bool = True) -> str:
    """Markdown text that reads as `visible(value)` and is nothing but text: each character that can start markup
    in a line backslash-escaped, and what would start a block at the start of a line (a heading, a quote, a list
    item: `#`, `>`, `-`, `+`, `1.`) escaped there; a leading space written as an entity (four of them would start
    a code block)."""
    content = visible(value, limit)
    escaped = _MARKUP.sub(lambda match: "\\" + match.group(), content)
    if not line_start:
        return escaped
    escaped = _LINE_START.sub(_mark_line_start, escaped)
    return "&#32;" + escaped[1:] if escaped.startswith(" ") else escaped


def _segments(message: str) -> list[tuple[bool, str]]:
    """(is a value, text) parts of a message, read as CommonMark reads code spans: a run of n backticks opens a
    value that the next run of exactly n backticks closes; a run with no partner is text."""
    parts: list[tuple[bool, str]] = []
    runs = list(_BACKTICKS.finditer(message))
    at = index = 0
    while index < len(runs):
        opening = runs[index]
        partner = next((j for j in range(index + 1, len(runs)) if len(runs[j].group()) == len(opening.group())), None)
        if partner is None:
            index += 1
            continue
        closing = runs[partner]
        if opening.start() > at:
            parts.append((False, message[at : opening.start()]))
        value = message[opening.end() : closing.start()]
        if len(value) > 1 and value[0] == value[-1] == " " and value.strip(" "):
            value = value[1:-1]  # the padding `quote` adds (CommonMark strips it the same way)
        parts.append((True, value))
        at = closing.end()
        index = partner + 1
    if at < len(message):
        parts.append((False, message[at:]))
    return parts


def _parts(message: object) -> list[tuple[bool, str]]:
    return _segments(visible(message, MAX_TEXT))


def text(message: object, *, table: bool = False) -> str:
    """Markdown for a message whose backticks delimit values: values as `code()`, the rest as `escape()`."""
    rendered = []
    for index, (is_value, part) in enumerate(_parts(message)):
        if is_value:
            rendered.append(code(part, table=table, limit=MAX_VALUE))
        else:
            rendered.append(escape(part, len(part), line_start=index == 0))
    return "".join(rendered)


def plain(message: object) -> str:
    """The text a reader sees of `text(message)` once rendered (what a report's round trip must give back)."""
    shown = []
    for is_value, part in _parts(message):
        if is_value:
            shown.append(visible(part, MAX_VALUE) if part else "(empty)")
        else:
            shown.append(part)
    return "".join(shown)


def annotation(value: object) -> str:
    """The message of a GitHub workflow command (`::error ...::message`)."""
    return visible(value).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def annotation_property(value: object) -> str:
    """A property of a GitHub workflow command (`file=`, `title=`)."""
    return annotation(value).replace(":", "%3A").replace(",", "%2C")


def html(value: object, limit: int = MAX_TEXT) -> str:
    """The visible text escaped for HTML (an element's content or an attribute)."""
    return _html.escape(visible(value, limit), quote=True)


# What a terminal (or GitHub's log viewer) acts on rather than shows: C0 controls but tab and newline (ESC starts an
# escape sequence, CR and backspace overwrite what was written, BEL rings), DEL, C1 controls (U+009B is CSI on an
# 8-bit terminal), bidi embeddings, overrides, isolates and marks, and the line and paragraph separators.
_TERMINAL_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
# A line GitHub's runner reads as a workflow command (`::error ...::`, `::add-mask::`, `::stop-commands::`).
_COMMAND_LINE = re.compile(r"(?m)^([ \t]*)::")


def terminal(text: str) -> str:
    """`text` with every character a terminal would act on spelled out (`⟨U+001B⟩`), newlines and tabs kept."""
    return _TERMINAL_UNSAFE.sub(lambda match: f"⟨U+{ord(match.group()):04X}⟩", text)


class TerminalSafe:
    """A text stream that writes what it is given as `terminal()` shows it, and writes no line that GitHub's runner
    would read as a workflow command (a leading `::` is written `: :`) unless `commands()` writes it: every tool's
    stdout and stderr, so that no document text, in whatever message, reaches a terminal or a CI log raw."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self._line_start = True

    def write(self, text: str) -> int:
        return self._write(text, commands=False)

    def commands(self, text: str) -> int:
        """Write workflow commands the caller rendered (each value escaped with `annotation()`)."""
        return self._write(text, commands=True)

    def _write(self, text: str, *, commands: bool) -> int:
        shown = terminal(text) if _TERMINAL_UNSAFE.search(text) else text
        if not commands and "::" in shown:
            if self._line_start and shown.lstrip(" \t").startswith("::"):
                shown = shown.replace("::", ": :", 1)
            shown = _COMMAND_LINE.sub(r"\1: :", shown) if "\n" in shown else shown
        if shown:
            self._line_start = shown.endswith("\n")
        self._stream.write(shown)
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def write_commands(text: str, stream: Any = None) -> None:
    """Write GitHub workflow commands to `stream` (stdout): through `TerminalSafe.commands` when it is one."""
    stream = stream if stream is not None else sys.stdout
    (stream.commands if isinstance(stream, TerminalSafe) else stream.write)(text)
