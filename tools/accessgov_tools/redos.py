"""Whether a regular expression can backtrack catastrophically: read, never run.

A contract's `pattern` (and `patternProperties`' names) is run by the server, the SDK and the mock on engines that
backtrack (Python's `re`, ECMAScript's): `(a+)+$` against thirty `a`s and a `b` takes longer than the universe has
existed. This module parses a pattern with Python's own regular-expression parser (parsing is linear: nothing is
matched) and reports the shapes that make a backtracking engine exponential or highly polynomial:

- a repetition inside a repetition, where the inner one can repeat without bound and match text (`(a+)+`, `(a*)*`,
  `(\\w+\\s?)*`, `(.*)*`): the outer and the inner one can split the same text in exponentially many ways;
- a repeated alternation whose alternatives can start with the same character (`(a|aa)*`, `(\\d|\\w)+`,
  `(x|x?)+`): each repetition may take either;
- more than `MAX_ADJACENT` unbounded repetitions in a row that can match the same character (`.*.*.*.*x`).

ECMAScript syntax Python's parser does not know (`\\p{L}`, `(?<name>...)`) is read as its nearest Python
equivalent. A pattern the parser refuses, or nests too deeply to parse, is reported as such (`unreadable`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

_parser: Any = __import__("re._parser", fromlist=["parse"])
_constants: Any = __import__("re._constants", fromlist=["MAXREPEAT"])

MAXREPEAT = _constants.MAXREPEAT
MAX_ADJACENT = 3
MAX_PATTERN = 10_000  # characters of a pattern read; a longer one is reported unread
_REPEATS = {"MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"}
_ALPHABET = [chr(code) for code in range(128)] + ["é", "ß", "中", "\u00a0", "\u2028"]  # first characters sampled
_ECMA = ((re.compile(r"\\[pP]\{[^}]*\}"), r"\\w"), (re.compile(r"\(\?<(?=[A-Za-z_])"), "(?P<"))


def problem(pattern: str) -> str | None:
    """Why `pattern` can backtrack catastrophically (one sentence), or None when no such shape is found."""
    if len(pattern) > MAX_PATTERN:
        return f"unreadable: a pattern of {len(pattern):,} characters (at most {MAX_PATTERN:,} are read)"
    text = pattern
    for ecma, python in _ECMA:
        text = ecma.sub(python, text)
    try:
        parsed = _parser.parse(text)
    except RecursionError:
        return "unreadable: groups nested too deeply to read"
    except (re.error, OverflowError, ValueError) as error:
        return f"unreadable: {error}"
    try:
        return _raw_alternations(text) or _walk(list(parsed), inside_repeat=False)
    except RecursionError:
        return "unreadable: groups nested too deeply to read"


def _name(op: Any) -> str:
    return str(op)


def _walk(items: list[tuple[Any, Any]], *, inside_repeat: bool) -> str | None:
    adjacent: list[set[str]] = []
    for op, av in items:
        name = _name(op)
        if name in _REPEATS:
            _, high, body = av
            body = list(body)
            unbounded = high == MAXREPEAT or high > 100
            if inside_repeat and unbounded and _matches_text(body):
                return "a repetition inside a repetition (nested quantifiers, like `(a+)+`)"
            if unbounded or high > 1:
                if (found := _overlapping_alternatives(body)) is not None:
                    return found
                nested = high > 1 and _matches_text(body) and not _separated(body)
                if (found := _walk(body, inside_repeat=inside_repeat or nested)) is not None:
                    return found
            elif (found := _walk(body, inside_repeat=inside_repeat)) is not None:
                return found
            if unbounded and _matches_text(body):
                first = _first(body)
                adjacent = [s for s in adjacent if s & first] + [first]
                if len(adjacent) > MAX_ADJACENT:
                    return f"more than {MAX_ADJACENT} unbounded repetitions in a row over the same characters"
            continue
        if _first_fixed(op, av):
            adjacent = []
        for body in _bodies(name, av):
            if (found := _walk(body, inside_repeat=inside_repeat)) is not None:
                return found
    return None


def _separated(body: list[tuple[Any, Any]]) -> bool:
    """Whether each repetition of `body` must match a character that no unbounded repetition inside it can match
    (`(-[a-z]+)*`, `([a-z0-9-]+\\.)+`): the repetitions cannot split the same text two ways."""
    while len(body) == 1 and _name(body[0][0]) == "SUBPATTERN":
        body = list(body[0][1][-1])
    inner: set[str] = set()
    for op, av in body:
        if _name(op) in _REPEATS and (av[1] == MAXREPEAT or av[1] > 100):
            inner |= _first(list(av[2])) | _all_chars(list(av[2]))
    if not inner:
        return False
    for op, av in body:
        if _name(op) in ("LITERAL", "IN", "NOT_LITERAL", "ANY") and not (_first([(op, av)]) & inner):
            return True
    return False


def _all_chars(items: list[tuple[Any, Any]]) -> set[str]:
    """The sampled characters anywhere in a match of `items` (over-approximated)."""
    found: set[str] = set()
    for op, av in items:
        name = _name(op)
        if name in ("LITERAL", "NOT_LITERAL", "ANY", "IN"):
            found |= _first([(op, av)])
        elif name in _REPEATS:
            found |= _all_chars(list(av[2]))
        elif name in ("AT",):
            continue
        else:
            bodies = list(_bodies(name, av))
            if not bodies:
                return set(_ALPHABET)
            for body in bodies:
                found |= _all_chars(body)
    return found


# A repeated group holding an alternation and no other group, as written (Python's parser merges `a|a` into one
# character set and factors `a|aa` into `a(?:|a)`, which hides from the parsed form what an ECMAScript engine
# backtracks over).
_RAW_ALTERNATION = re.compile(
    r"\((?:\?:|\?P?<[A-Za-z_]\w*>)?"  # a group, maybe named
    r"((?:[^()\\]|\\.)*\|(?:[^()\\]|\\.)*)"  # holding `|` and no other group
    r"\)(?:[*+]|\{\d*,\d*\})"  # repeated
)


def _raw_alternations(text: str) -> str | None:
    for match in _RAW_ALTERNATION.finditer(text):
        branches, depth, part, escaped, in_class = [], 0, [], False, False
        for char in match.group(1):
            if escaped:
                part.append(char)
                escaped = False
            elif char == "\\":
                part.append(char)
                escaped = True
            elif in_class:
                part.append(char)
                in_class = char != "]"
            elif char == "[":
                part.append(char)
                in_class = True
            elif char == "|" and depth == 0:
                branches.append("".join(part))
                part = []
            else:
                part.append(char)
        branches.append("".join(part))
        seen: set[str] = set()
        for branch in branches:
            try:
                parsed = list(_parser.parse(branch))
            except (re.error, RecursionError, OverflowError, ValueError):
                return None
            first = _first(parsed) if _matches_text(parsed) else set()
            if not first or first & seen:
                return "a repeated alternation whose alternatives can match the same text (like `(a|aa)*`)"
            seen |= first
    return None


def _bodies(name: str, av: Any) -> Iterable[list[tuple[Any, Any]]]:
    if name == "SUBPATTERN":
        yield list(av[-1])
    elif name == "BRANCH":
        for branch in av[1]:
            yield list(branch)
    elif name in ("ASSERT", "ASSERT_NOT"):
        yield list(av[1])
    elif name == "ATOMIC_GROUP":
        yield list(av)
    elif name == "GROUPREF_EXISTS":
        for branch in av[1:]:
            if branch is not None:
                yield list(branch)


def _first_fixed(op: Any, av: Any) -> bool:
    """Whether the item always matches one character (which ends a run of adjacent repetitions)."""
    return _name(op) in ("LITERAL", "NOT_LITERAL", "IN", "ANY")


def _matches_text(items: list[tuple[Any, Any]]) -> bool:
    """Whether the items can match a non-empty text (approximately: they hold anything that consumes)."""
    for op, av in items:
        name = _name(op)
        if name in ("LITERAL", "NOT_LITERAL", "IN", "ANY", "CATEGORY", "GROUPREF"):
            return True
        if name in _REPEATS and av[1] > 0 and _matches_text(list(av[2])):
            return True
        if any(_matches_text(body) for body in _bodies(name, av)) and name != "ASSERT" and name != "ASSERT_NOT":
            return True
    return False


def _overlapping_alternatives(body: list[tuple[Any, Any]]) -> str | None:
    """A repeated body that is (or is a group holding) an alternation whose alternatives can start alike."""
    while len(body) == 1 and _name(body[0][0]) == "SUBPATTERN":
        body = list(body[0][1][-1])
    if len(body) == 1 and _name(body[0][0]) == "BRANCH":
        branches = [list(branch) for branch in body[0][1][1]]
        seen: set[str] = set()
        for branch in branches:
            first = _first(branch) if _matches_text(branch) else set()
            if not _matches_text(branch) or first & seen:
                return "a repeated alternation whose alternatives can match the same text (like `(a|aa)*`)"
            seen |= first
    return None


def _first(items: list[tuple[Any, Any]]) -> set[str]:
    """The sampled characters a match of `items` can start with (over-approximated)."""
    found: set[str] = set()
    for op, av in items:
        name = _name(op)
        if name == "LITERAL":
            return found | {chr(av)}
        if name == "NOT_LITERAL":
            return found | {c for c in _ALPHABET if c != chr(av)}
        if name == "ANY":
            return found | set(_ALPHABET)
        if name == "IN":
            return found | {c for c in _ALPHABET if _in(av, c)}
        if name in _REPEATS:
            found |= _first(list(av[2]))
            if av[0] > 0:
                return found
            continue
        if name == "SUBPATTERN":
            inner = list(av[-1])
            found |= _first(inner)
            if _matches_text(inner):
                return found
            continue
        if name == "BRANCH":
            for branch in av[1]:
                found |= _first(list(branch))
            return found
        if name in ("AT", "ASSERT", "ASSERT_NOT"):
            continue
        return found | set(_ALPHABET)  # anything else: assume it can start with anything
    return found


def _in(av: list[tuple[Any, Any]], char: str) -> bool:
    negate, hit = False, False
    for op, value in av:
        name = _name(op)
        if name == "NEGATE":
            negate = True
        elif name == "LITERAL":
            hit |= char == chr(value)
        elif name == "RANGE":
            hit |= value[0] <= ord(char) <= value[1]
        elif name == "CATEGORY":
            hit |= _category(str(value), char)
    return hit != negate


def _category(name: str, char: str) -> bool:
    checks = {
        "CATEGORY_DIGIT": char.isdigit(),
        "CATEGORY_NOT_DIGIT": not char.isdigit(),
        "CATEGORY_SPACE": char.isspace(),
        "CATEGORY_NOT_SPACE": not char.isspace(),
        "CATEGORY_WORD": char.isalnum() or char == "_",
        "CATEGORY_NOT_WORD": not (char.isalnum() or char == "_"),
    }
    return checks.get(name, True)
