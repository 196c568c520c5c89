"""Read an OpenAPI, overlay or configuration document as the standards define it: JSON or YAML 1.2.

One loader for the diff, the changelog and release check, the overlay engine, the bundler and the configs:

- **JSON** (a `.json` file, or YAML-named text that is a JSON document) goes through Python's JSON parser, so
  every escape is read as RFC 8259 says, `"\\ud83d\\ude00"` included (libyaml refuses surrogate escapes).
  `NaN`/`Infinity` are refused (not JSON).
- **YAML** is read with the YAML 1.2 core schema: only `true`/`false` (any case form the schema lists) are
  booleans (`yes`, `on` stay strings), `0o17` is octal and `017` decimal, dates stay strings (1.2 has no
  timestamp type), `null`/`~`/empty are null. An anchor may be redefined later in the document; an alias refers
  to the most recent definition (YAML 1.2, 3.2.2.2). Merge keys (`<<`, a YAML 1.1 type most tools still apply)
  are kept.
- Errors are `LoadError`s that name the file, line and column.

Speed: libyaml's parser and composer build the node tree (only a document that redefines an anchor, which
libyaml's composer refuses, is composed again by PyYAML's Python composer over libyaml's events); the core
schema's nodes are turned into values directly, and `load_with_nodes` hands the same tree to a caller that
needs line numbers, so a document is parsed once. Composing is what is left: about 0.35 s of CPU per MB.
"""

from __future__ import annotations

import importlib
import json
import math
import re
from pathlib import Path
from typing import Any

import yaml
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.resolver import BaseResolver

from accessgov_tools.budget import Exceeded, measure, measure_value, tree_within, value_children
from accessgov_tools.limits import Limits, hint
from accessgov_tools.limits import current as current_limits

# libyaml's parser and composer (PyYAML's C extension); None when PyYAML was built without it.
_Parser: Any = importlib.import_module("yaml.cyaml").CParser if yaml.__with_libyaml__ else None


class LoadError(ValueError):
    """A document that is not valid JSON or YAML; the message starts with `file:line:column:`."""


class RuleError(LoadError):
    """A document that parses but is not JSON data (a tag, a repeated key, a number or string JSON cannot hold,
    text that is not UTF-8); the message names `file:line:column` and `document rule NAME`."""


class LimitError(LoadError):
    """A document over one of its limits (`accessgov_tools/limits.py`); the message names the limit."""

    def __init__(self, message: str, limit: str) -> None:
        super().__init__(message)
        self.limit = limit


class _Resolver12(BaseResolver):
    """Plain scalars resolved by the YAML 1.2 core schema (10.3), plus the widely used merge key.

    libyaml's composer calls `resolve` once per node; BaseResolver's generic version (path resolvers, wildcard
    lists concatenated on each call) was a sixth of reading a large document, so this one does only what the
    core schema needs: a look-up by first character, then the regular expressions of that character."""

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
        if kind is yaml.ScalarNode:
            if implicit[0]:
                for tag, regexp in self.yaml_implicit_resolvers.get(value[:1], ()):
                    if regexp.match(value):
                        return str(tag)
            return _STR
        return _SEQ if kind is yaml.SequenceNode else _MAP

    def descend_resolver(self, current_node: Any, current_index: Any) -> None:
        """No path resolvers are registered: nothing to track per level."""

    def ascend_resolver(self) -> None:
        """No path resolvers are registered: nothing to track per level."""


_STR, _SEQ, _MAP = (f"tag:yaml.org,2002:{name}" for name in ("str", "seq", "map"))
_INT, _FLOAT, _BOOL, _NULL = (f"tag:yaml.org,2002:{name}" for name in ("int", "float", "bool", "null"))


# (tag, pattern, first characters): YAML 1.2 core schema; the bundle's dumper quotes strings these would read.
CORE_SCHEMA: list[tuple[str, str, str]] = [
    ("bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    ("int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
    (
        "float",
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
        "-+.0123456789",
    ),
    ("null", r"^(?:~|null|Null|NULL|)$", "~nN"),
    ("merge", r"^<<$", "<"),
]
for _tag, _pattern, _first in CORE_SCHEMA:
    _Resolver12.add_implicit_resolver(f"tag:yaml.org,2002:{_tag}", re.compile(_pattern), [*_first, ""])


class _Constructor12(SafeConstructor):
    """YAML 1.2 integers: `0o` octal, `0x` hexadecimal, anything else decimal (a leading zero is not octal)."""

    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
        text = str(self.construct_scalar(node)).replace("_", "")
        sign, digits = (-1, text[1:]) if text[:1] == "-" else (1, text.lstrip("+"))
        base = {"0o": 8, "0x": 16}.get(digits[:2].lower(), 10)
        return sign * int(digits[2:] if base != 10 else digits, base)


_Constructor12.add_constructor("tag:yaml.org,2002:int", _Constructor12.construct_yaml_int)  # type: ignore[type-var]


if _Parser is not None:

    class _FastLoader(_Parser, _Constructor12, _Resolver12):  # type: ignore[misc]
        """libyaml's parser and composer with the 1.2 resolver and constructor."""

        def __init__(self, stream: str) -> None:
            _Parser.__init__(self, stream)
            _Constructor12.__init__(self)
            _Resolver12.__init__(self)

else:  # pragma: no cover - PyYAML built without libyaml

    class _FastLoader(  # type: ignore[no-redef]
        yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser, Composer, _Constructor12, _Resolver12
    ):
        def __init__(self, stream: str) -> None:
            yaml.reader.Reader.__init__(self, stream)
            yaml.scanner.Scanner.__init__(self)
            yaml.parser.Parser.__init__(self)
            Composer.__init__(self)
            _Constructor12.__init__(self)
            _Resolver12.__init__(self)


class _RedefiningComposer(Composer):
    """A composer where a later anchor of the same name replaces the earlier one (YAML 1.2)."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        events: Any = self  # the parser half of the loader class below
        if not events.check_event(yaml.AliasEvent):
            anchor = events.peek_event().anchor
            if anchor is not None:
                self.anchors.pop(anchor, None)
        return super().compose_node(parent, index)


class _RedefiningLoader(_RedefiningComposer, _FastLoader):
    def __init__(self, stream: str) -> None:
        _FastLoader.__init__(self, stream)
        Composer.__init__(self)


def _yaml_error(source: str, error: yaml.YAMLError, text: str | None = None) -> LoadError:
    if isinstance(error, yaml.reader.ReaderError):  # a character YAML does not allow in a stream (NUL, ESC, ...)
        where = f"{source}:1:1"
        if text is not None and isinstance(error.position, int):
            line, column = _position(text, error.position)
            where = f"{source}:{line}:{column}"
        character = error.character if isinstance(error.character, str) else chr(error.character)
        return RuleError(
            f"{where}: document rule yaml-character: the character U+{ord(character):04X} is not allowed in a YAML "
            "document"
        )
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    where = f"{source}:{mark.line + 1}:{mark.column + 1}" if mark is not None else source
    problem = getattr(error, "problem", None) or str(error)
    context = getattr(error, "context", None)
    return LoadError(f"{where}: {problem}" + (f" ({context})" if context else ""))


def _run(loader: type[Any], text: str, *, compose: bool) -> Any:
    instance = loader(text)
    try:
        return instance.get_single_node() if compose else instance.get_single_data()
    finally:
        instance.dispose()


def _redefines_anchor(error: yaml.YAMLError) -> bool:
    return isinstance(error, yaml.composer.ComposerError) and "duplicate anchor" in str(error.context or "")


def _compose(text: str, source: str, limits: Limits | None = None) -> yaml.Node | None:
    """The node tree of `text`, held to `limits` (the current ones by default) before and after composing."""
    limits = limits or current_limits()
    _check_nesting(text, source, limits)
    try:
        try:
            node = _run(_FastLoader, text, compose=True)
        except yaml.YAMLError as error:
            if not _redefines_anchor(error):
                raise
            node = _run(_RedefiningLoader, text, compose=True)
    except yaml.YAMLError as error:
        raise _yaml_error(source, error, text) from None
    if node is not None:
        _check_nodes(node, source, limits)
    if node is not None and not (not _has_anchor(text) and _tree_within(node, limits)):
        try:
            measure(node, _node_children, limits, keys=_node_keys, leaf=_node_leaf, text=_node_text)
        except Exceeded as exceeded:
            raise _limit_error(source, _node_mark(node, exceeded), exceeded) from None
    return node  # type: ignore[no-any-return]


# libyaml's composer recurses in C once per level of nesting, so text nested deeper than this never reaches it
# unchecked (it overflows the C stack somewhere past 20,000 levels): well below, and far above any real document.
_COMPOSER_SAFE_DEPTH = 5_000
# Where a line's block collections start: after its indentation and any compact `- `, `? `, `: ` indicators.
_BLOCK_START = re.compile(r"^(?:---[ \t]+)?[ ]*(?:[-?:][ \t]+)*", re.MULTILINE)


# An anchor (`&name`) where a node can start: after whitespace, a line's start or a flow indicator. Without one a
# document has no alias, so its node tree is a tree.
_AMPERSAND = re.compile(r"&(?=\S)")


def _has_anchor(text: str) -> bool:
    return any(at == 0 or text[at - 1] in " \t\r\n[{," for at in (m.start() for m in _AMPERSAND.finditer(text)))


def _tree_within(root: yaml.Node, limits: Limits) -> bool:
    """Whether a node tree with no alias (no anchor in its text) is within `limits`: one quick walk, counting as
    `measure` does; `measure` is run when it is not, to say where."""
    max_depth, max_keys, max_nodes = limits.max_depth, limits.max_keys, limits.max_nodes
    nodes, stack = 1, [(root, 1)]
    scalar = yaml.ScalarNode
    while stack:
        node, depth = stack.pop()
        if node.__class__ is scalar:
            continue
        if depth > max_depth:
            return False
        kids = node.value
        if node.__class__ is yaml.MappingNode:
            if len(kids) > max_keys:
                return False
            nodes += 2 * len(kids)
            deeper = depth + 1
            for key, value in kids:
                if key.__class__ is not scalar:
                    stack.append((key, deeper))
                if value.__class__ is not scalar:
                    stack.append((value, deeper))
        else:
            nodes += len(kids)
            deeper = depth + 1
            stack.extend((kid, deeper) for kid in kids if kid.__class__ is not scalar)
        if nodes > max_nodes:
            return False
    return True


def _nesting_bound(text: str) -> int:
    """At least as deep as the text nests: flow collections at most as deep as there are `[` and `{`, block
    collections two levels per column of indentation (compact `- `, `? `, `: ` counted as indentation)."""
    return text.count("[") + text.count("{") + 2 * (max(map(len, _BLOCK_START.findall(text)), default=0) + 1)


def _check_nesting(text: str, source: str, limits: Limits) -> None:
    """Refuse text nested deeper than `limits.max_depth` before libyaml's composer recurses into it.

    A cheap bound first: flow collections nest at most as deep as there are `[` and `{`, block collections two
    levels per column of indentation. Only text whose bound is high (100,000 `[` in a row, or a real document
    with many flow collections) is measured exactly, by libyaml's parser alone (its events, no recursion)."""
    if _nesting_bound(text) <= _COMPOSER_SAFE_DEPTH:
        return  # composed, then measured exactly (aliases expanded) by `measure`
    if _Parser is None:  # pragma: no cover - PyYAML's pure-Python composer fails with a RecursionError instead
        return
    parser = _Parser(text)
    depth = 0
    raw = text
    try:
        while (event := parser.get_event()) is not None and not isinstance(event, yaml.StreamEndEvent):
            if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                depth += 1
                if depth > limits.max_depth:
                    mark = event.start_mark
                    line, column = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
                    raise LimitError(
                        f"{source}:{line}:{column}: document limit max-depth: nested deeper than "
                        f"{limits.max_depth} levels{hint('max-depth')}",
                        "max-depth",
                    )
            elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                depth -= 1
    except yaml.YAMLError as error:
        raise _yaml_error(source, error, raw) from None
    finally:
        parser.dispose()


def _node_children(node: yaml.Node) -> list[yaml.Node] | None:
    if isinstance(node, yaml.MappingNode):
        return [part for entry in node.value for part in entry]
    if isinstance(node, yaml.SequenceNode):
        return node.value  # type: ignore[no-any-return]
    return None


def _node_leaf(node: yaml.Node) -> bool:
    return node.__class__ is yaml.ScalarNode


_MERGE = "tag:yaml.org,2002:merge"
_ALLOWED_TAGS = frozenset((_STR, _INT, _FLOAT, _BOOL, _NULL, _SEQ, _MAP, _MERGE))
# Python refuses to turn a decimal integer of more digits than this into text (ValueError): refused when read.
MAX_INTEGER_DIGITS = 4_300


def _mark(node: yaml.Node) -> str:
    return f"{node.start_mark.line + 1}:{node.start_mark.column + 1}"


def _refuse(source: str, node: yaml.Node, rule: str, text: str) -> LoadError:
    return RuleError(f"{source}:{_mark(node)}: document rule {rule}: {text}")


def _check_nodes(root: yaml.Node, source: str, limits: Limits) -> None:
    """Refuse what is not JSON data, each distinct node looked at once (an alias's target once): a tag beyond the
    YAML 1.2 core schema (`!!python/...`, `!!binary`, `!!set`, `!!timestamp`, `!custom`: the OpenAPI Specification
    limits tags to the JSON schema's), a key that is a collection or repeats within its mapping, a number JSON has
    no value for (`.inf`, `.nan`, `1e400`) or an integer of more than 4,300 characters, and a string longer than
    `max-text`."""
    seen: set[int] = set()
    stack = [root]
    max_text = limits.max_text
    scalar_class = yaml.ScalarNode
    while stack:
        node = stack.pop()
        if node.__class__ is scalar_class:
            tag = node.tag
            if tag == _STR:
                if len(node.value) > max_text:
                    raise LimitError(
                        f"{source}:{_mark(node)}: document limit max-text: a string of {len(node.value):,} "
                        f"characters, more than {max_text:,}{hint('max-text')}",
                        "max-text",
                    )
            elif tag == _INT:
                if len(node.value) > MAX_INTEGER_DIGITS:
                    raise _refuse(
                        source, node, "json-number", f"an integer of {len(node.value):,} characters (at most "
                        f"{MAX_INTEGER_DIGITS:,})"
                    )  # fmt: skip
            elif tag == _FLOAT:
                if not _finite(node.value):
                    raise _refuse(source, node, "json-number", f"{node.value[:40]!r} is a number JSON cannot hold")
            elif tag not in _ALLOWED_TAGS:
                raise _refuse(source, node, "yaml-tag", f"the tag {tag[:100]!r} is not JSON data (core schema only)")
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        if node.tag not in _ALLOWED_TAGS or node.tag == _MERGE:
            raise _refuse(source, node, "yaml-tag", f"the tag {node.tag[:100]!r} is not JSON data (core schema only)")
        if node.__class__ is yaml.MappingNode:
            keys: set[tuple[str, str]] = set()
            for key, value in node.value:
                if key.__class__ is not scalar_class:
                    raise _refuse(source, key, "yaml-key", "a mapping key that is a collection (keys are strings)")
                if key.tag != _MERGE:
                    name = (key.tag, key.value)
                    if name in keys:
                        raise _refuse(source, key, "duplicate-key", f"the key {key.value[:100]!r} is repeated")
                    keys.add(name)
                stack.append(key)
                stack.append(value)
        else:
            stack.extend(node.value)


def _finite(text: str) -> bool:
    try:
        return math.isfinite(float(text.replace("_", "")))
    except ValueError:
        return False


def _node_text(node: yaml.Node) -> int:
    return len(node.value) if node.tag == _STR else 0


def _node_keys(node: yaml.Node) -> int:
    return len(node.value) if isinstance(node, yaml.MappingNode) else 0


def _node_mark(root: yaml.Node, exceeded: Exceeded) -> tuple[int, int]:
    """(line, column), 1-based, of the place a limit was hit: a mapping entry's key, a sequence's item (the
    sequence itself when the item is an alias: an alias keeps no position of its own)."""
    if not exceeded.path:
        mark = root.start_mark
        return mark.line + 1, mark.column + 1
    container, index = exceeded.path[-1]
    for step, (outer, at) in enumerate(exceeded.path):  # the outermost alias on the way: where it expands
        kids = _node_children(outer) or []
        if at < len(kids) and id(kids[at]) in exceeded.shared and step < len(exceeded.path) - 1:
            container, index = outer, at
            break
    if isinstance(container, yaml.MappingNode):
        entries = container.value
        node = entries[min(index // 2, len(entries) - 1)][0]
    else:
        item = container.value[min(index, len(container.value) - 1)]
        node = container if id(item) in exceeded.shared else item
    return node.start_mark.line + 1, node.start_mark.column + 1


def _limit_error(source: str, where: tuple[int, int], exceeded: Exceeded) -> LimitError:
    line, column = where
    return LimitError(
        f"{source}:{line}:{column}: document limit {exceeded.limit}: {exceeded.detail}{hint(exceeded.limit)}",
        exceeded.limit,
    )


class _Unusual(Exception):
    """A node `_values` leaves to PyYAML's constructor (a merge key, a collection as a key, another tag)."""


def _values(node: yaml.Node, scalars: _Constructor12, made: dict[int, Any]) -> Any:
    """The node's plain value, for the core schema's tags; shared (aliased) collections stay one object."""
    tag = node.tag
    if isinstance(node, yaml.ScalarNode):
        if tag == _STR:
            return node.value
        if tag == _INT:
            return scalars.construct_yaml_int(node)
        if tag == _NULL:
            return None
        if tag == _BOOL:
            return scalars.construct_yaml_bool(node)
        if tag == _FLOAT:
            return scalars.construct_yaml_float(node)
        raise _Unusual(tag)
    if id(node) in made:
        return made[id(node)]
    if tag == _MAP and isinstance(node, yaml.MappingNode):
        mapping: dict[Any, Any] = {}
        made[id(node)] = mapping
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag not in _PLAIN_KEYS:
                raise _Unusual(key_node.tag)
            mapping[_values(key_node, scalars, made)] = _values(value_node, scalars, made)
        return mapping
    if tag == _SEQ and isinstance(node, yaml.SequenceNode):
        sequence: list[Any] = []
        made[id(node)] = sequence
        sequence.extend(_values(item, scalars, made) for item in node.value)
        return sequence
    raise _Unusual(tag)


_PLAIN_KEYS = frozenset((_STR, _INT, _NULL, _BOOL, _FLOAT))


def construct(node: yaml.Node | None, source: str = "<string>") -> Any:
    """The plain Python values of a composed node tree (what `loads` returns for the same text).

    The core schema's tags are built directly (PyYAML's generic constructor was a third of reading a large
    document); a tree with anything else (merge keys, explicit tags such as `!!binary`, a collection as a key)
    is built by PyYAML's constructor with the same 1.2 rules, so the result never depends on the path."""
    if node is None:
        return None
    scalars = _Constructor12()
    try:
        try:
            return _values(node, scalars, {})
        except (_Unusual, RecursionError):
            return _Constructor12().construct_document(node)
    except yaml.YAMLError as error:
        raise _yaml_error(source, error) from None
    except (ValueError, TypeError) as error:  # a constructor refusing a scalar (an explicit tag that does not fit)
        raise LoadError(f"{source}: {error}") from None


def _yaml(text: str, source: str, limits: Limits | None = None) -> Any:
    return construct(_compose(text, source, limits), source)


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not a JSON value")


class _Refused(ValueError):
    """A JSON value the loader refuses, with the text to find it by (its position is found after the parse)."""

    def __init__(self, rule: str, message: str, token: str) -> None:
        super().__init__(message)
        self.rule, self.token = rule, token


def _json_int(text: str) -> int:
    if len(text) > MAX_INTEGER_DIGITS:
        raise _Refused("json-number", f"an integer of {len(text):,} characters (at most {MAX_INTEGER_DIGITS:,})", text)
    return int(text)


def _json_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Refused("json-number", f"{text[:40]!r} is a number JSON cannot hold (it reads as {value})", text)
    return value


def _json_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    mapping = dict(pairs)
    if len(mapping) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Refused("duplicate-key", f"the key {key[:100]!r} is repeated", json.dumps(key))
            seen.add(key)
    return mapping


def _token_position(text: str, token: str, nth: int = 1) -> tuple[int, int]:
    """(line, column) of the `nth` occurrence of `token` in `text` (1, 1 when it is not found)."""
    at = -1
    for _ in range(nth):
        at = text.find(token, at + 1)
        if at < 0:
            return 1, 1
    return _position(text, at)


# A surrogate escape not part of a pair: a high one not followed by a low one, or a low one not after a high one.
_LONE_SURROGATE = re.compile(
    r"(?<!\\)(?:\\\\)*\\u(?:d[89ab][0-9a-f]{2}(?!\\ud[c-f][0-9a-f]{2})|(?<!\\ud[89ab][0-9a-f]{2}\\u)d[c-f][0-9a-f]{2})",
    re.IGNORECASE,
)


def _check_strings(value: Any, text: str, source: str, limits: Limits) -> None:
    """Refuse a string (a key or a value) longer than `max-text`, and one holding a lone surrogate (`"\\ud800"`:
    no character, not UTF-8, which every writer of the document would fail on)."""
    max_text = limits.max_text
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            strings: Any = node
            stack.extend(item for item in node.values() if not isinstance(item, (int, float, bool)) and item)
        elif isinstance(node, list):
            strings = node
            stack.extend(item for item in node if isinstance(item, (dict, list)))
        else:
            strings = (node,)
        for string in strings:
            if not isinstance(string, str) or (len(string) <= max_text and string.isascii()):
                continue
            if len(string) > max_text:
                line, column = _token_position(text, json.dumps(string[:60], ensure_ascii=False)[:-1])
                raise LimitError(
                    f"{source}:{line}:{column}: document limit max-text: a string of {len(string):,} characters, "
                    f"more than {max_text:,}{hint('max-text')}",
                    "max-text",
                )
            try:
                string.encode("utf-8")
            except UnicodeEncodeError:
                match = _LONE_SURROGATE.search(text)
                line, column = _position(text, match.start()) if match else (1, 1)
                raise RuleError(
                    f"{source}:{line}:{column}: document rule unicode: a string holding a lone surrogate "
                    f"(\\u{ord(string[_surrogate_at(string)]):04x}), which is no character"
                ) from None


def _surrogate_at(string: str) -> int:
    return next((i for i, char in enumerate(string) if "\ud800" <= char <= "\udfff"), 0)


def _json(text: str, source: str, limits: Limits | None = None) -> Any:
    limits = limits or current_limits()
    try:
        value = json.loads(
            text,
            parse_constant=_not_json,
            parse_int=_json_int,
            parse_float=_json_float,
            object_pairs_hook=_json_object,
        )
    except json.JSONDecodeError as error:
        raise LoadError(f"{source}:{error.lineno}:{error.colno}: {error.msg}") from None
    except RecursionError:  # nested deeper than Python's JSON reader goes: always deeper than max-depth
        raise _json_depth_error(text, source, limits) from None
    except _Refused as refused:
        line, column = _token_position(text, refused.token, 2 if refused.rule == "duplicate-key" else 1)
        raise RuleError(f"{source}:{line}:{column}: document rule {refused.rule}: {refused}") from None
    except ValueError as error:
        raise LoadError(f"{source}:1:1: {error}") from None
    if tree_within(value, limits):
        _check_strings(value, text, source, limits)
        return value
    try:
        measure_value(value, limits)
    except Exceeded as exceeded:
        raise _limit_error(source, _json_mark(text, _preorder_index(exceeded)), exceeded) from None
    _check_strings(value, text, source, limits)
    return value


# A JSON value's first character: a string (a key too), a collection, or a scalar literal (number, true, ...).
_JSON_NODE = re.compile(r'"(?:[^"\\]|\\.)*"|[\[{]|[^\s,:\[\]{}"]+')
_JSON_BRACKET = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def _preorder_index(exceeded: Exceeded) -> int:
    """The position, in document order (keys counted), of the node a limit was hit at."""
    index = 0
    for container, position in exceeded.path:
        kids = value_children(container) or []
        index += 1 + sum(exceeded.size(kid, value_children) for kid in kids[:position])
    return index


def _position(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _json_mark(text: str, index: int) -> tuple[int, int]:
    """(line, column) of the `index`-th node of a JSON text in document order."""
    for count, match in enumerate(_JSON_NODE.finditer(text)):
        if count == index:
            return _position(text, match.start())
    return 1, 1


def _json_depth_error(text: str, source: str, limits: Limits) -> LimitError:
    depth = 0
    for match in _JSON_BRACKET.finditer(text):
        bracket = match.group()
        if bracket in "[{":
            depth += 1
            if depth > limits.max_depth:
                line, column = _position(text, match.start())
                break
        elif bracket in "]}":
            depth -= 1
    else:
        line, column = 1, 1
    return LimitError(
        f"{source}:{line}:{column}: document limit max-depth: nested deeper than {limits.max_depth} levels"
        f"{hint('max-depth')}",
        "max-depth",
    )


def _looks_like_json(text: str) -> bool:
    return text.lstrip()[:1] in ("{", "[")


def loads(text: str, source: str = "<string>", *, json_only: bool = False, limits: Limits | None = None) -> Any:
    """The document in `text`: JSON when `json_only` or when it reads as JSON, else YAML 1.2; held to `limits`
    (the current ones, `accessgov_tools/limits.py`, by default)."""
    limits = limits or current_limits()
    if len(text) > limits.max_bytes:  # characters: at most as many as the bytes they were read from
        raise _size_error(source, len(text), limits)
    text = text.removeprefix("\ufeff")
    if json_only:
        return _json(text, source, limits)
    if _looks_like_json(text):
        try:
            return _json(text, source, limits)
        except (LimitError, RuleError):
            raise
        except LoadError:
            pass  # a YAML flow collection, or broken JSON: YAML's error says where
    return _yaml(text, source, limits)


def _size_error(source: str, size: int, limits: Limits) -> LimitError:
    return LimitError(
        f"{source}:1:1: document limit max-bytes: {size:,} bytes, more than {limits.max_bytes:,}{hint('max-bytes')}",
        "max-bytes",
    )


def read_text(path: Path, limits: Limits | None = None) -> str:
    """The file's UTF-8 text; a file that is not UTF-8 is a `LoadError` naming the line of the first bad byte, one
    larger than `limits.max_bytes` a `LimitError` (its size is looked at before it is read)."""
    limits = limits or current_limits()
    try:
        with path.open("rb") as stream:
            size = path.stat().st_size
            if size > limits.max_bytes:
                raise _size_error(str(path), size, limits)
            data = stream.read(limits.max_bytes + 1)  # not a regular file (a pipe, a device): read no further
    except OSError as error:
        raise LoadError(f"{path}: cannot read: {error.strerror or error}") from None
    if len(data) > limits.max_bytes:
        raise _size_error(str(path), len(data), limits)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise _not_utf8(str(path), data, error) from None


_OTHER_BOMS = (
    (b"\xff\xfe\x00\x00", "UTF-32"),
    (b"\x00\x00\xfe\xff", "UTF-32"),
    (b"\xff\xfe", "UTF-16"),
    (b"\xfe\xff", "UTF-16"),
)


def _not_utf8(source: str, data: bytes, error: UnicodeDecodeError) -> LoadError:
    """`file:line:column: document rule utf-8: ...`: where the first byte that is not UTF-8 is (the column in
    characters of the line's valid text before it), and the encoding when a byte-order mark names another one."""
    start = data.rfind(b"\n", 0, error.start) + 1
    line = data.count(b"\n", 0, error.start) + 1
    column = len(data[start : error.start].decode("utf-8", "replace")) + 1
    bom = next((name for mark, name in _OTHER_BOMS if data.startswith(mark)), None)
    what = f"{bom} text (its byte-order mark says so)" if bom else f"byte 0x{data[error.start]:02x} ({error.reason})"
    return RuleError(f"{source}:{line}:{column}: document rule utf-8: not UTF-8 text: {what}")


def load_document(path: Path, limits: Limits | None = None) -> Any:
    """A JSON (`.json`) or YAML file as plain Python values (dict, list, str, int, float, bool, None)."""
    return loads(read_text(path, limits), str(path), json_only=path.suffix.lower() == ".json", limits=limits)


def load_with_nodes(path: Path, limits: Limits | None = None) -> tuple[Any, yaml.Node | None]:
    """`load_document(path)` and, for YAML, the node tree it was built from (each node's line, as `compose`
    gives), so a tool that points at lines reads the file once. JSON gives None: it is read by the JSON
    parser, and `compose` reads its lines only if they are asked for. A tree with merge keys has them merged
    in (PyYAML's constructor flattens them in place)."""
    text = read_text(path, limits).removeprefix("\ufeff")
    if path.suffix.lower() == ".json" or _looks_like_json(text):
        return loads(text, str(path), json_only=path.suffix.lower() == ".json", limits=limits), None
    node = _compose(text, str(path), limits)
    return construct(node, str(path)), node


_SURROGATE_PAIR = re.compile(r"(?<!\\)((?:\\\\)*)\\u(d[89ab][0-9a-f]{2})\\u(d[c-f][0-9a-f]{2})", re.IGNORECASE)


def _pair(match: re.Match[str]) -> str:
    return match[1] + (chr(int(match[2], 16)) + chr(int(match[3], 16))).encode("utf-16", "surrogatepass").decode(
        "utf-16"
    )


def compose(path: Path) -> yaml.Node | None:
    """The YAML node tree of a file, with each node's line and column (for pointing a reader at a line).

    JSON is YAML 1.2, except that libyaml refuses escaped surrogate pairs: they are written as the character
    they encode first (on the same line, so every line number stays right)."""
    text = read_text(path).removeprefix("\ufeff")
    if path.suffix.lower() == ".json" or _looks_like_json(text):
        text = _SURROGATE_PAIR.sub(_pair, text)
    return _compose(text, str(path))
