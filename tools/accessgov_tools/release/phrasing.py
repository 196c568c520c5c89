"""One finding of the diff engine as a changelog line a reviewer would write.

The engine's messages have a fixed shape (`<context>`<path>`: <text> (<direction>)` for schemas, short sentences
for the rest); each rule below rewrites one shape into plain words ("request field `comment` may now be up to
4,000 characters (was 1,000)"). A message no rule knows is shown as the engine wrote it, so a new check of the
engine still appears, only less polished.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from accessgov_tools.diffcheck.model import REQUEST, Finding

_SCHEMA = re.compile(r"^(?P<context>[^`]*)`(?P<path>[^`]+)`: (?P<text>.+?)(?: \((?P<direction>request|response)\))?$")
# The deprecation and stability checks put the direction after the path: "`Task.note` (response): deprecated".
_SCHEMA_DIRECTION_FIRST = re.compile(
    r"^(?P<context>[^`]*)`(?P<path>[^`]+)` \((?P<direction>request|response)\): (?P<text>.+)$"
)
_INLINE = re.compile(r"^(?P<where>request body|response \S+) (?P<media>\S+?)(?:\.(?P<field>[A-Za-z_$\[].*))?$")

# keyword -> (what it limits, unit) for the bound rules.
_UNITS = {
    "maxLength": "characters",
    "minLength": "characters",
    "maxItems": "items",
    "minItems": "items",
    "maxProperties": "entries",
    "minProperties": "entries",
    "maxContains": "matching items",
    "minContains": "matching items",
    "maximum": "",
    "minimum": "",
    "exclusiveMaximum": "",
    "exclusiveMinimum": "",
}
_BOUND_VERB = {
    "maxLength": "may now be up to {n} {unit}",
    "minLength": "must now be at least {n} {unit} long",
    "maxItems": "may now hold up to {n} {unit}",
    "minItems": "must now hold at least {n} {unit}",
    "maxProperties": "may now hold up to {n} {unit}",
    "minProperties": "must now hold at least {n} {unit}",
    "maxContains": "may now hold up to {n} {unit}",
    "minContains": "must now hold at least {n} {unit}",
    "maximum": "may now be up to {n}",
    "minimum": "must now be at least {n}",
    "exclusiveMaximum": "must now be below {n}",
    "exclusiveMinimum": "must now be above {n}",
}
_BOUND_SET = {
    "maxLength": "is now limited to {n} {unit}",
    "minLength": "must now be at least {n} {unit} long",
    "maxItems": "is now limited to {n} {unit}",
    "minItems": "must now hold at least {n} {unit}",
    "maxProperties": "is now limited to {n} {unit}",
    "minProperties": "must now hold at least {n} {unit}",
    "maxContains": "may now hold at most {n} {unit}",
    "minContains": "must now hold at least {n} {unit}",
    "maximum": "may now be at most {n}",
    "minimum": "must now be at least {n}",
    "exclusiveMaximum": "must now be below {n}",
    "exclusiveMinimum": "must now be above {n}",
}
_BOUND_GONE = {
    "maxLength": "no longer has a maximum length",
    "minLength": "no longer has a minimum length",
    "maxItems": "no longer has a maximum number of items",
    "minItems": "no longer has a minimum number of items",
    "maxProperties": "no longer has a maximum number of entries",
    "minProperties": "no longer has a minimum number of entries",
    "maxContains": "no longer has a maximum number of matching items",
    "minContains": "no longer has a minimum number of matching items",
    "maximum": "no longer has a maximum",
    "minimum": "no longer has a minimum",
    "exclusiveMaximum": "no longer has an exclusive maximum",
    "exclusiveMinimum": "no longer has an exclusive minimum",
}
_VALUE = r"`(?P<{}>[^`]*)`"


def _number(text: str) -> str:
    """`4000` -> `4,000`; anything else as written."""
    try:
        value = float(text)
    except ValueError:
        return text
    return f"{int(value):,}" if value.is_integer() else text


def _bound(match: re.Match[str]) -> str:
    keyword = match["keyword"]
    verb = _BOUND_VERB[keyword].format(n=_number(match["new"]), unit=_UNITS[keyword]).rstrip()
    return "{s} " + verb + f" (was {_number(match['old'])})"


def _bound_set(match: re.Match[str]) -> str:
    keyword = match["keyword"]
    return "{s} " + _BOUND_SET[keyword].format(n=_number(match["new"]), unit=_UNITS[keyword]).rstrip()


def _bound_unset(match: re.Match[str]) -> str:
    return "{s} " + _BOUND_GONE[match["keyword"]] + f" (was {_number(match['old'])})"


_KEYWORDS = "|".join(_UNITS)
# (pattern over the schema text, template with {s} for the subject or a function of the match returning one)
_SCHEMA_RULES: list[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]]] = [
    (
        re.compile(rf"^(?P<keyword>{_KEYWORDS}) (increased|decreased) from `(?P<old>[^`]*)` to `(?P<new>[^`]*)`$"),
        _bound,
    ),
    (re.compile(rf"^(?P<keyword>{_KEYWORDS}) set to `(?P<new>[^`]*)`$"), _bound_set),
    (re.compile(rf"^(?P<keyword>{_KEYWORDS}) `(?P<old>[^`]*)` removed$"), _bound_unset),
    (
        re.compile(r"^multipleOf changed from `(?P<old>[^`]*)` to `(?P<new>[^`]*)`$"),
        "{s} must now be a multiple of {new} (was {old})",
    ),
    (re.compile(r"^multipleOf set to `(?P<new>[^`]*)`$"), "{s} must now be a multiple of {new}"),
    (re.compile(r"^multipleOf `(?P<old>[^`]*)` removed$"), "{s} no longer has to be a multiple of {old}"),
    (re.compile(r"^uniqueItems set$"), "{s} must now hold unique items"),
    (re.compile(r"^uniqueItems removed$"), "{s} may now hold repeated items"),
    (re.compile(r"^pattern `(?P<new>.*)` added$"), "{s} must now match `{new}`"),
    (re.compile(r"^pattern `(?P<old>.*)` removed$"), "{s} no longer has to match `{old}`"),
    (re.compile(r"^pattern changed from `(?P<old>.*)` to `(?P<new>.*)`$"), "{s} must now match `{new}` (was `{old}`)"),
    (re.compile(r"^type changed from (?P<old>.+) to (?P<new>.+)$"), "{s} changed type from {old} to {new}"),
    (re.compile(r"^type restricted to (?P<new>.+)$"), "{s} must now be of type {new}"),
    (re.compile(r"^type (?P<old>.+) lifted \(any type now\)$"), "{s} may now be of any type (was {old})"),
    (re.compile(r"^format `(?P<new>[^`]*)` added$"), "{s} now has format `{new}`"),
    (re.compile(r"^format `(?P<old>[^`]*)` removed$"), "{s} no longer has format `{old}`"),
    (
        re.compile(r"^format changed from `(?P<old>[^`]*)` to `(?P<new>[^`]*)`$"),
        "{s} changed format from `{old}` to `{new}`",
    ),
    (re.compile(r"^`null` now allowed$"), "{s} may now be `null`"),
    (re.compile(r"^`null` no longer allowed$"), "{s} may no longer be `null`"),
    (re.compile(r"^values restricted to (?P<new>.+)$"), "{s} now takes only the values {new}"),
    (re.compile(r"^enumeration lifted$"), "{s} is no longer limited to a list of values"),
    (re.compile(r"^enum value `(?P<new>[^`]*)` added$"), "{s} has a new value `{new}`"),
    (re.compile(r"^enum value `(?P<old>[^`]*)` removed$"), "{s} no longer takes the value `{old}`"),
    (re.compile(r"^enumeration is now open$"), "{s} may now gain values without notice (open enumeration)"),
    (re.compile(r"^enumeration is now closed$"), "{s} is now a closed enumeration"),
    (re.compile(r"^default `(?P<new>.*)` added$"), "{s} now defaults to `{new}`"),
    (re.compile(r"^default `(?P<old>.*)` removed$"), "{s} no longer has a default (was `{old}`)"),
    (re.compile(r"^default changed from `(?P<old>.*)` to `(?P<new>.*)`$"), "{s} now defaults to `{new}` (was `{old}`)"),
    (re.compile(r"^deprecated$"), "{s} is deprecated"),
    (re.compile(r"^deprecated, sunset (?P<date>\S+)$"), "{s} is deprecated (sunset {date})"),
    (re.compile(r"^no longer deprecated$"), "{s} is no longer deprecated"),
    (re.compile(r"^(?P<kw>anyOf|oneOf) member `(?P<new>[^`]*)` added$"), "{s} may now also be `{new}` ({kw})"),
    (re.compile(r"^(?P<kw>anyOf|oneOf) member `(?P<old>[^`]*)` removed$"), "{s} may no longer be `{old}` ({kw})"),
    (re.compile(r"^additionalProperties narrowed$"), "{s} now restricts its additional properties"),
    (re.compile(r"^additionalProperties widened$"), "{s} now allows more additional properties"),
    (re.compile(r"^allOf member `(?P<new>[^`]*)` added$"), "{s} must now also match `{new}` (allOf)"),
    (re.compile(r"^allOf member `(?P<old>[^`]*)` removed$"), "{s} no longer has to match `{old}` (allOf)"),
    (re.compile(r"^`const` `(?P<new>.*)` added$"), "{s} must now be `{new}` (const)"),
    (re.compile(r"^`const` `(?P<old>.*)` removed$"), "{s} is no longer fixed to `{old}` (const)"),
    (
        re.compile(r"^`const` changed from `(?P<old>.*)` to `(?P<new>.*)`$"),
        "{s} must now be `{new}` (was `{old}`; const)",
    ),
    (
        re.compile(r"^`(?P<kw>[^`]+)` changed from `(?P<old>.*)` to `(?P<new>.*)`$"),
        "{s} changed `{kw}` from `{old}` to `{new}`",
    ),
    (re.compile(r"^`(?P<kw>[^`]+)` `(?P<new>.*)` added$"), "{s} now has `{kw}` `{new}`"),
    (re.compile(r"^`(?P<kw>[^`]+)` `(?P<old>.*)` removed$"), "{s} no longer has `{kw}` `{old}`"),
    (re.compile(r"^`(?P<kw>[^`]+)` entry `(?P<name>[^`]*)` added$"), "{s} now has a `{kw}` entry `{name}`"),
    (re.compile(r"^`(?P<kw>[^`]+)` entry `(?P<name>[^`]*)` removed$"), "{s} no longer has the `{kw}` entry `{name}`"),
    (re.compile(r"^removed$"), "{s} removed"),
    (re.compile(r"^new (?P<req>required|optional) property$"), "new {req} {s}"),
    (re.compile(r"^now required$"), "{s} is now required"),
    (re.compile(r"^now optional$"), "{s} is now optional"),
    (re.compile(r"^now (?P<flag>readOnly|writeOnly)$"), "{s} is now {flag}"),
    (re.compile(r"^no longer (?P<flag>readOnly|writeOnly)$"), "{s} is no longer {flag}"),
]
_RESPONSE_WORDS = {
    "New required response": "New always-sent response",
    " must now be ": " is now always ",
    " must now hold ": " now always holds ",
    " must now match ": " now always matches ",
    "is now required": "is now always sent",
    "is now optional": "is no longer always sent",
    "is now writeOnly": "is now write-only (no longer sent)",
    "is now readOnly": "is now read-only",
}
_REQUEST_WORDS = {"is now readOnly": "is now read-only (clients can no longer set it)"}


def _accepts(match: re.Match[str]) -> str:
    names, now = match["names"], match["now"]
    credential = names if names == "anonymous access" else f"{names} authentication"
    return f"now also accepts {credential}" if now == "now" else f"no longer accepts {credential}"


_OTHER_RULES: list[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]]] = [
    (re.compile(r"^operationId (?P<name>`[^`]*`) added$"), "new operationId {name}"),
    (re.compile(r"^operationId (?P<rest>.+)$"), "the operationId {rest}"),
    (re.compile(r"^`[^`]+` added$"), "new operation"),
    (re.compile(r"^`[^`]+` removed$"), "operation removed"),
    (re.compile(r"^response status (?P<status>\S+) added$"), "new response status {status}"),
    (re.compile(r"^response status (?P<status>\S+) removed$"), "response status {status} removed"),
    (
        re.compile(r"^response (?P<status>\S+) header `(?P<name>[^`]*)` added$"),
        "new header `{name}` on response {status}",
    ),
    (
        re.compile(r"^response (?P<status>\S+) header `(?P<name>[^`]*)` removed$"),
        "header `{name}` removed from response {status}",
    ),
    (
        re.compile(r"^response (?P<status>\S+): media type `(?P<media>[^`]*)` (?P<what>added|removed)$"),
        "response {status} media type `{media}` {what}",
    ),
    (re.compile(r"^security requirement (?P<names>.+) (?P<now>now|no longer) accepted$"), _accepts),
    (re.compile(r"^operation:? deprecated, sunset (?P<date>\S+)$"), "operation deprecated (sunset {date})"),
    (re.compile(r"^operation:? (?P<rest>.+)$"), "operation {rest}"),
    (re.compile(r"^operation deprecated$"), "operation deprecated"),
    (re.compile(r"^operation no longer deprecated$"), "operation no longer deprecated"),
]


def _field_subject(path: str, direction: str, shared: bool) -> str:
    """`Schema.a.b` -> request field `a.b` (in an operation's section) or `Schema.a.b` (in the shared section)."""
    side = "request" if direction == REQUEST else "response"
    inline = _INLINE.match(path)
    if inline:
        where = "request" if inline["where"] == "request body" else inline["where"]
        if inline["field"]:
            return f"{where} field `{inline['field']}`"
        return f"{inline['where']} ({inline['media']})"
    component, dot, field = path.partition(".")
    if not dot:
        return f"{side} schema `{component}`"
    return f"{side} field `{path}`" if shared else f"{side} field `{field}`"


def _capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]


def phrase(finding: Finding, *, shared: bool = False) -> str:
    """The reviewer's sentence for `finding` (no trailing period); `shared` keeps schema names in field paths."""
    message = finding.message
    for pattern, template in _OTHER_RULES:
        match = pattern.match(message)
        if match:
            return _capitalise(template(match) if callable(template) else template.format(**match.groupdict()))
    schema = _SCHEMA_DIRECTION_FIRST.match(message) or _SCHEMA.match(message)
    if schema is None:
        return _capitalise(message)
    direction = schema["direction"] or ("request" if finding.check.startswith(("request", "new-")) else "response")
    subject = (
        f"{schema['context']}`{schema['path']}`"
        if schema["context"]
        else _field_subject(schema["path"], direction, shared)
    )
    text = schema["text"]
    for pattern, template in _SCHEMA_RULES:
        match = pattern.match(text)
        if match is None:
            continue
        words = template(match) if callable(template) else template
        sentence = _capitalise(words.format(s=subject, **match.groupdict()))
        for before, after in (_RESPONSE_WORDS if direction != REQUEST else _REQUEST_WORDS).items():
            sentence = sentence.replace(before, after)
        return sentence
    return _capitalise(f"{subject}: {text}")
