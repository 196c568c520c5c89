"""The one escaping function of log lines and the JSON-line formatter of the server's warnings."""

from __future__ import annotations

import json
import logging

import pytest

from accessgov.observability.log_text import JsonLineFormatter, escape


@pytest.mark.parametrize(
    ("value", "escaped"),
    [
        ("wh_demo-1.2:3", "wh_demo-1.2:3"),  # nothing to escape: the same text
        ("a\nb\rc\td", "a\\nb\\rc\\td"),
        ('say "hi"', 'say \\"hi\\"'),
        ("back\\slash", "back\\\\slash"),
        ("\x00\x1b[2K\x7f", "\\x00\\x1b[2K\\x7f"),
        ("\x85\x9b", "\\x85\\x9b"),  # C1 controls (NEL, CSI)
        ("\u2028\u2029", "\\u2028\\u2029"),
        ("\ud800", "\\ud800"),  # a lone surrogate: not encodable as UTF-8
        ("é ü 日本", "é ü 日本"),  # printable non-ASCII stays readable
        (42, "42"),
    ],
)
def test_escape(value: object, escaped: str) -> None:
    assert escape(value) == escaped
    assert "\n" not in escape(value) and '"' not in escape(value).replace('\\"', "")


def record(msg: str, *args: object, exc: bool = False) -> logging.LogRecord:
    exc_info = None
    if exc:
        try:
            raise ValueError('bad\n{"event":"forged"}')
        except ValueError as error:
            exc_info = (type(error), error, error.__traceback__)
    return logging.LogRecord("accessgov.test", logging.WARNING, __file__, 1, msg, args, exc_info)


def test_a_record_is_one_json_line_with_its_arguments_escaped() -> None:
    line = JsonLineFormatter().format(record("credential %s: more than %d in %.1f s", 'c\n{"event":"forged"}', 5, 2.5))
    assert "\n" not in line
    parsed = json.loads(line)
    assert parsed["message"] == 'credential c\\n{\\"event\\":\\"forged\\"}: more than 5 in 2.5 s'
    assert (parsed["level"], parsed["event"], parsed["logger"]) == ("warning", "log", "accessgov.test")


def test_a_traceback_stays_inside_its_record() -> None:
    line = JsonLineFormatter().format(record("round failed", exc=True))
    assert "\n" not in line
    parsed = json.loads(line)
    assert "\n" not in parsed["exception"] and 'ValueError: bad\\n{\\"event' in parsed["exception"]


def test_a_message_built_before_the_call_is_escaped_whole() -> None:
    parsed = json.loads(JsonLineFormatter().format(record('path /a\n{"event":"forged"}')))
    assert parsed["message"] == 'path /a\\n{\\"event\\":\\"forged\\"}'
