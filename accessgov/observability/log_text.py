"""What reaches a log line is escaped, so nobody can forge one: `escape` (the one function) turns control
characters (C0, DEL, C1), the Unicode line and paragraph separators, lone surrogates, quotes and backslashes into
visible escapes. The server's warnings are JSON lines like the access log (`JsonLineFormatter`, installed once on
the `accessgov` logger by `install`), their values escaped by `escape` before they enter the message, so a client's
`client_id` holding a newline and a JSON object stays inside one line and one string. docs/operations.md ("Logs").
"""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import orjson

# Anything a terminal, a log shipper or a line-based reader could take for structure: C0 controls, `"` and `\`,
# DEL and C1 controls, U+2028/U+2029 (line breaks to JavaScript readers), lone surrogates (not encodable).
_UNSAFE = re.compile('[\x00-\x1f"\\\\\x7f-\x9f\u2028\u2029\ud800-\udfff]')
_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t", '"': '\\"', "\\": "\\\\"}


def _escaped(match: re.Match[str]) -> str:
    char = match.group()
    short = _SHORT.get(char)
    if short is not None:
        return short
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def escape(value: object) -> str:
    """`value` as text that is one line and quotes nothing: control characters, line separators, quotes and
    backslashes become `\\n`, `\\x1b`, `\\u2028`, `\\"`, `\\\\`. Text that needs none is returned as it is (one
    regex search: the access log's hot path calls it)."""
    text = value if isinstance(value, str) else str(value)
    if _UNSAFE.search(text) is None:
        return text
    return _UNSAFE.sub(_escaped, text)


def _escaped_arg(value: object) -> object:
    """A log call's argument as it enters the message: numbers as they are (for `%d`, `%.1f`), the rest escaped."""
    if isinstance(value, int | float):
        return value
    return escape(value)


def message_of(record: logging.LogRecord) -> str:
    """The record's message with every argument escaped (the format string is the code's own)."""
    args = record.args
    if not args:  # a literal (escaping changes only its quotes) or text built before the call: escaped whole
        return escape(record.msg)
    escaped: tuple[object, ...] | dict[str, object]
    if isinstance(args, Mapping):
        escaped = {str(key): _escaped_arg(value) for key, value in args.items()}
    else:
        escaped = tuple(_escaped_arg(value) for value in args)
    try:
        return str(str(record.msg) % escaped)
    except (TypeError, ValueError):  # a format that wanted the original type: escape the whole message instead
        return escape(record.getMessage())


class JsonLineFormatter(logging.Formatter):
    """One JSON object per record, on one line: `ts`, `level`, `event: "log"`, `logger`, `message` (escaped
    arguments), and `exception` (the traceback, a JSON string) when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "event": "log",
            "logger": record.name,
            "message": message_of(record),
        }
        if record.exc_info:
            line["exception"] = escape(self.formatException(record.exc_info))
        return orjson.dumps(line).decode()


class _StderrHandler(logging.Handler):
    """Writes each record as one line to the current `sys.stderr` (a test's capture included)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            sys.stderr.write(self.format(record) + "\n")
            sys.stderr.flush()
        except Exception:
            self.handleError(record)


_installed: list[logging.Handler] = []


def install(logger_name: str = "accessgov") -> None:
    """Give the server's loggers their one JSON-line handler on stderr (warnings and above, as Python's default
    handler wrote them before). Idempotent: every app and CLI command calls it."""
    if _installed:
        return
    handler = _StderrHandler(logging.WARNING)
    handler.setFormatter(JsonLineFormatter())
    logging.getLogger(logger_name).addHandler(handler)
    _installed.append(handler)
