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

Speed: libyaml's parser and composer do the work (about 0.9 s of CPU for 4 MB); only a document that redefines
an anchor, which libyaml's composer refuses, is composed again by PyYAML's Python composer over libyaml's events.
"""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path
from typing import Any

import yaml
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.resolver import BaseResolver

# libyaml's parser and composer (PyYAML's C extension); None when PyYAML was built without it.
_Parser: Any = importlib.import_module("yaml.cyaml").CParser if yaml.__with_libyaml__ else None


class LoadError(ValueError):
    """A document that is not valid JSON or YAML; the message starts with `file:line:column:`."""


class _Resolver12(BaseResolver):
    """Plain scalars resolved by the YAML 1.2 core schema (10.3), plus the widely used merge key."""


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


def _yaml_error(source: str, error: yaml.YAMLError) -> LoadError:
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    where = f"{source}:{mark.line + 1}:{mark.column + 1}" if mark is not None else source
    problem = getattr(error, "problem", None) or str(error)
    context = getattr(error, "context", None)
    return LoadError(f"{where}: {problem}" + (f" ({context})" if context else ""))


def _run(loader: type[Any], text: str, compose: bool) -> Any:
    instance = loader(text)
    try:
        return instance.get_single_node() if compose else instance.get_single_data()
    finally:
        instance.dispose()


def _redefines_anchor(error: yaml.YAMLError) -> bool:
    return isinstance(error, yaml.composer.ComposerError) and "duplicate anchor" in str(error.context or "")


def _yaml(text: str, source: str, *, compose: bool = False) -> Any:
    try:
        try:
            return _run(_FastLoader, text, compose)
        except yaml.YAMLError as error:
            if not _redefines_anchor(error):
                raise
            return _run(_RedefiningLoader, text, compose)
    except yaml.YAMLError as error:
        raise _yaml_error(source, error) from None
    except (ValueError, TypeError) as error:  # a constructor refusing a scalar (an explicit tag that does not fit)
        raise LoadError(f"{source}: {error}") from None


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not a JSON value")


def _json(text: str, source: str) -> Any:
    try:
        return json.loads(text, parse_constant=_not_json)
    except json.JSONDecodeError as error:
        raise LoadError(f"{source}:{error.lineno}:{error.colno}: {error.msg}") from None
    except ValueError as error:
        raise LoadError(f"{source}: {error}") from None


def _looks_like_json(text: str) -> bool:
    return text.lstrip()[:1] in ("{", "[")


def loads(text: str, source: str = "<string>", *, json_only: bool = False) -> Any:
    """The document in `text`: JSON when `json_only` or when it reads as JSON, else YAML 1.2."""
    text = text.removeprefix("\ufeff")
    if json_only:
        return _json(text, source)
    if _looks_like_json(text):
        try:
            return _json(text, source)
        except LoadError:
            pass  # a YAML flow collection, or broken JSON: YAML's error says where
    return _yaml(text, source)


def read_text(path: Path) -> str:
    """The file's UTF-8 text; a file that is not UTF-8 is a `LoadError` naming the line of the first bad byte."""
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise LoadError(f"{path}:{line}: not UTF-8 text ({error.reason} at byte {error.start})") from None


def load_document(path: Path) -> Any:
    """A JSON (`.json`) or YAML file as plain Python values (dict, list, str, int, float, bool, None)."""
    return loads(read_text(path), str(path), json_only=path.suffix.lower() == ".json")


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
    node: yaml.Node | None = _yaml(text, str(path), compose=True)
    return node
