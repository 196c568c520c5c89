"""The statements of an OpenAPI document, as the traceability table's `spec:` part traces them: every sentence of
every `description` and `summary`, and every constraint of every schema an operation reaches.

`sentences(document)` cuts each text into blocks (paragraphs, list items, table rows; headings and a table's
header are no statements) and each block into sentences; a sentence is its JSON pointer and its text with
whitespace collapsed, which is what a row of `statements.yaml` names. `constraints(document)` walks every
operation's parameters, request body and responses through their `$ref`s and yields one `Constraint` per
keyword that constrains a value (one per member of `required`, one per member of `oneOf`/`anyOf`), at the JSON
pointer of the schema that states it, with the directions it is met in (a request the server must judge by it, a
response the server must produce within it).
"""

from __future__ import annotations

import enum
import hashlib
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import yaml

from . import yaml_tables

TEXT_KEYS = ("description", "summary")
# The keywords that constrain a value; `type` only in its nullable form (a list naming "null").
CONSTRAINT_KEYWORDS = (
    "maxLength",
    "minLength",
    "pattern",
    "format",
    "enum",
    "const",
    "required",
    "uniqueItems",
    "readOnly",
    "writeOnly",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minItems",
    "maxItems",
    "minProperties",
    "maxProperties",
    "multipleOf",
    "additionalProperties",
    "propertyNames",
    "oneOf",
    "anyOf",
    "default",
    "deprecated",
)
SKIPPED = frozenset({"example", "value", "x-hmac-test-vector"})  # values (an example's too), not statements
# A sentence ends at . ! or ? followed by whitespace and what starts a sentence (a capital, a code span, a
# quote, a parenthesis, a digit); never inside a code span (the caller masks them first).
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`\"(\[*_\x00])")
ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.", "cf.")
LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+\.)\s+")
TABLE_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{3,}")


def escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def normalise(text: str) -> str:
    """Whitespace collapsed: what a row's `text` is compared with."""
    return " ".join(text.split())


def digest(text: str) -> str:
    """A short stable hash of a normalised sentence (the row key where the text is long)."""
    return hashlib.sha256(normalise(text).encode()).hexdigest()[:12]


@dataclass(frozen=True, order=True)
class Sentence:
    pointer: str  # JSON pointer of the description or summary
    text: str  # normalised

    @property
    def key(self) -> tuple[str, str]:
        return self.pointer, self.text


def _blocks(text: str) -> Iterator[str]:
    """Paragraphs, list items and table rows of a Markdown text; headings and table header rows left out."""
    lines = text.splitlines()
    block: list[str] = []
    fence = False

    def flush() -> Iterator[str]:
        if block:
            joined = normalise(" ".join(block))
            block.clear()
            if joined:
                yield joined

    for index, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith("```"):
            yield from flush()
            fence = not fence
            continue
        if fence:
            continue  # a code block is an example, not a statement
        if not stripped or stripped.startswith("#"):
            yield from flush()
        elif stripped.startswith("|"):
            yield from flush()
            following = lines[index + 1].strip() if index + 1 < len(lines) else ""
            if TABLE_SEPARATOR.match(stripped) or TABLE_SEPARATOR.match(following):
                continue  # the separator, or the header row above it
            yield normalise(stripped)
        elif LIST_ITEM.match(line):
            yield from flush()
            block.append(stripped)
        else:
            block.append(stripped)
    yield from flush()


def _block_sentences(block: str) -> list[str]:
    """A block's sentences; code spans and abbreviations are masked so their dots and spaces end nothing."""
    spans = re.findall(r"`[^`]*`", block)
    masked = block
    for index, span in enumerate(spans):
        masked = masked.replace(span, f"\x00{index}\x00", 1)
    for abbreviation in ABBREVIATIONS:
        masked = masked.replace(abbreviation + " ", abbreviation + "\x01")
    found = []
    for piece in SENTENCE_END.split(masked):
        for index, span in enumerate(spans):
            piece = piece.replace(f"\x00{index}\x00", span)
        piece = piece.replace("\x01", " ").strip()
        if piece:
            found.append(piece)
    return found


def split_sentences(text: str) -> list[str]:
    """The sentences of a description: block by block (a table row is one), cut at sentence ends outside code
    spans."""
    found: list[str] = []
    for block in _blocks(text):
        found.extend([block] if block.startswith("|") else _block_sentences(block))
    return found


def sentences(document: Any) -> list[Sentence]:
    """Every sentence of every description and summary of `document`, in document order."""
    found: list[Sentence] = []

    def walk(node: Any, pointer: str) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                where = f"{pointer}/{escape(str(key))}"
                if key in TEXT_KEYS and isinstance(value, str):
                    found.extend(Sentence(where, text) for text in split_sentences(value))
                elif key not in SKIPPED:
                    walk(value, where)
        elif isinstance(node, list):
            for index, value in enumerate(node):
                walk(value, f"{pointer}/{index}")

    walk(document, "")
    return found


@dataclass(frozen=True)
class Constraint:
    """One constraint of a schema an operation reaches."""

    pointer: str  # JSON pointer of the keyword (of the member, for required / oneOf / anyOf)
    keyword: str
    value: Any = field(compare=False)
    directions: frozenset[str] = field(compare=False, default=frozenset())  # "request", "response"

    @property
    def key(self) -> str:
        return self.pointer


def _resolve(document: Any, reference: str) -> tuple[Any, str]:
    node = document
    for part in reference.removeprefix("#/").split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node, reference.removeprefix("#")


def constraints(document: Any) -> list[Constraint]:
    """Every constraint of every schema reachable from an operation of `document`, with its directions."""
    found: dict[str, tuple[str, Any, set[str]]] = {}
    visited: set[tuple[str, str]] = set()

    def note(pointer: str, keyword: str, value: Any, direction: str) -> None:
        entry = found.setdefault(pointer, (keyword, value, set()))
        entry[2].add(direction)

    def schema(node: Any, pointer: str, direction: str) -> None:
        if not isinstance(node, dict):
            return
        if "$ref" in node:
            target, where = _resolve(document, node["$ref"])
            if (where, direction) not in visited:
                visited.add((where, direction))
                schema(target, where, direction)
        for keyword in CONSTRAINT_KEYWORDS:
            if keyword not in node:
                continue
            value = node[keyword]
            where = f"{pointer}/{keyword}"
            if keyword == "required" and isinstance(value, list):
                for index, name in enumerate(value):
                    note(f"{where}/{index}", keyword, name, direction)
            elif keyword in ("oneOf", "anyOf") and isinstance(value, list):
                for index, member in enumerate(value):
                    note(f"{where}/{index}", keyword, member, direction)
            elif keyword == "additionalProperties" and isinstance(value, dict):
                note(where, keyword, value, direction)
            else:
                note(where, keyword, value, direction)
        kind = node.get("type")
        if isinstance(kind, list) and "null" in kind:
            note(f"{pointer}/type", "type", kind, direction)
        for keyword in ("properties", "patternProperties", "$defs"):
            for name, member in (node.get(keyword) or {}).items():
                schema(member, f"{pointer}/{keyword}/{escape(name)}", direction)
        for keyword in ("items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else"):
            if isinstance(node.get(keyword), dict):
                schema(node[keyword], f"{pointer}/{keyword}", direction)
        for keyword in ("allOf", "anyOf", "oneOf", "prefixItems"):
            for index, member in enumerate(node.get(keyword) or []):
                schema(member, f"{pointer}/{keyword}/{index}", direction)

    def parameter(node: Any, pointer: str) -> None:
        if "$ref" in node:
            node, pointer = _resolve(document, node["$ref"])
        if isinstance(node.get("schema"), dict):
            schema(node["schema"], f"{pointer}/schema", "request")

    def content(node: Any, pointer: str, direction: str) -> None:
        for media, entry in (node.get("content") or {}).items():
            if isinstance(entry, dict) and isinstance(entry.get("schema"), dict):
                schema(entry["schema"], f"{pointer}/content/{escape(media)}/schema", direction)

    for path, item in (document.get("paths") or {}).items():
        item_pointer = f"/paths/{escape(path)}"
        shared = item.get("parameters") or []
        for method, operation in item.items():
            if not isinstance(operation, dict) or method == "parameters":
                continue
            where = f"{item_pointer}/{method}"
            for index, node in enumerate(shared):
                parameter(node, f"{item_pointer}/parameters/{index}")
            for index, node in enumerate(operation.get("parameters") or []):
                parameter(node, f"{where}/parameters/{index}")
            body = operation.get("requestBody")
            if isinstance(body, dict):
                if "$ref" in body:
                    body, body_pointer = _resolve(document, body["$ref"])
                else:
                    body_pointer = f"{where}/requestBody"
                content(body, body_pointer, "request")
            for status, response in (operation.get("responses") or {}).items():
                response_pointer = f"{where}/responses/{escape(str(status))}"
                if "$ref" in response:
                    response, response_pointer = _resolve(document, response["$ref"])
                content(response, response_pointer, "response")
                for name, header in (response.get("headers") or {}).items():
                    header_pointer = f"{response_pointer}/headers/{escape(name)}"
                    if "$ref" in header:
                        header, header_pointer = _resolve(document, header["$ref"])
                    if isinstance(header.get("schema"), dict):
                        schema(header["schema"], f"{header_pointer}/schema", "response")
    return [
        Constraint(pointer, keyword, value, frozenset(directions))
        for pointer, (keyword, value, directions) in sorted(found.items())
    ]


def statuses(document: Any) -> list[str]:
    """The JSON pointer of every documented response of every operation (`/paths/~1x/post/responses/404`)."""
    found = []
    for path, item in (document.get("paths") or {}).items():
        for method, operation in item.items():
            if isinstance(operation, dict) and method != "parameters":
                for status in operation.get("responses") or {}:
                    found.append(f"/paths/{escape(path)}/{method}/responses/{escape(str(status))}")
    return found


# --- the table: statements.yaml --------------------------------------------------------------------------------

RESOURCE = "statements.yaml"
PARTS = ("sentences", "constraints", "statuses")
ROW_KEYS = {"at", "text", "by", "informative", "unobservable"}


class Kind(enum.StrEnum):
    CHECKED = "checked"
    PARTIAL = "partial"
    INFORMATIVE = "informative"
    UNOBSERVABLE = "unobservable"


@dataclass(frozen=True)
class Row:
    """One row of the table: the statement(s) it traces (`at` pointers, a sentence's `text`) and what holds
    them: the requirements of traceability.yaml whose rules check them, or why none does."""

    part: str
    at: tuple[str, ...]
    text: str = ""
    by: tuple[str, ...] = ()
    informative: str = ""
    unobservable: str = ""

    def traced(self) -> list[tuple[str, str]]:
        return [(pointer, self.text) for pointer in self.at]


class TableError(ValueError):
    """statements.yaml is malformed; the message names the part and row."""


def parse_rows(text: str) -> list[Row]:
    try:
        document = yaml_tables.load(text)
    except yaml.YAMLError as error:
        raise TableError(f"not valid YAML: {error}") from error
    if not isinstance(document, dict) or set(document) - set(PARTS):
        raise TableError(f"the document maps {', '.join(PARTS)} to lists of rows")
    rows = []
    for part in PARTS:
        entries = document.get(part) or []
        if not isinstance(entries, list):
            raise TableError(f"{part}: must be a list of rows")
        for index, entry in enumerate(entries):
            where = f"{part}, row {index + 1}"
            if not isinstance(entry, dict) or set(entry) - ROW_KEYS:
                raise TableError(f"{where}: a row maps {', '.join(sorted(ROW_KEYS))}, got {entry!r}")
            at = entry.get("at")
            pointers = [at] if isinstance(at, str) else at
            if not isinstance(pointers, list) or not pointers or not all(isinstance(p, str) for p in pointers):
                raise TableError(f"{where}: `at` is a JSON pointer or a list of them, got {at!r}")
            by = entry.get("by") or []
            by = [by] if isinstance(by, str) else by
            reasons = [key for key in ("informative", "unobservable") if entry.get(key)]
            if bool(by) + len(reasons) != 1:
                raise TableError(f"{where} ({pointers[0]}): give exactly one of by, informative, unobservable")
            text = entry.get("text", "")
            if part == "sentences" and not (isinstance(text, str) and text.strip()):
                raise TableError(f"{where} ({pointers[0]}): a sentence row gives the sentence's `text`")
            rows.append(
                Row(
                    part,
                    tuple(pointers),
                    normalise(str(text)),
                    tuple(str(item) for item in by),
                    normalise(str(entry.get("informative", ""))),
                    normalise(str(entry.get("unobservable", ""))),
                )
            )
    return rows


def load_rows() -> list[Row]:
    """The kit's own table (`statements.yaml` in the package)."""
    return parse_rows(resources.files("accessgov_conformance").joinpath(RESOURCE).read_text(encoding="utf-8"))


def kind(row: Row, requirements: Mapping[str, Any]) -> Kind:
    """checked when every requirement it names is checked, unobservable when every one is, else partial."""
    if row.informative:
        return Kind.INFORMATIVE
    if row.unobservable:
        return Kind.UNOBSERVABLE
    statuses = {str(getattr(requirements[name], "status", "uncovered")) for name in row.by if name in requirements}
    if statuses == {"checked"}:
        return Kind.CHECKED
    if statuses == {"unobservable"}:
        return Kind.UNOBSERVABLE
    return Kind.PARTIAL


def statements(document: Any) -> dict[str, set[tuple[str, str]]]:
    """The keys the table must hold, per part: (pointer, sentence text), (constraint pointer, ""), (response
    pointer, "")."""
    return {
        "sentences": {item.key for item in sentences(document)},
        "constraints": {(item.pointer, "") for item in constraints(document)},
        "statuses": {(pointer, "") for pointer in statuses(document)},
    }


def table_problems(rows: list[Row], document: Any, requirements: Mapping[str, Any], *, stale: bool = True) -> list[str]:
    """What keeps the table from tracing `document`: a statement without a row, a row naming an unknown
    requirement, two rows for one statement, and (`stale`) a row for a statement the document does not make."""
    found: list[str] = []
    wanted = statements(document)
    seen: dict[tuple[str, str, str], int] = {}
    for row in rows:
        for name in row.by:
            if name not in requirements:
                found.append(f"{row.part}: {row.at[0]}: names requirement {name}, which traceability.yaml lacks")
        for pointer, text in row.traced():
            key = (row.part, pointer, text)
            seen[key] = seen.get(key, 0) + 1
            if seen[key] == 2:
                found.append(f"{row.part}: {pointer}: two rows for {text or 'it'!r}")
            if stale and (pointer, text) not in wanted[row.part]:
                shown = f": {text[:80]!r}" if text else ""
                found.append(f"{row.part}: {pointer}: a row for a statement the contract does not make{shown}")
    for part, keys in wanted.items():
        for pointer, text in sorted(keys):
            if (part, pointer, text) not in seen:
                shown = f" {text!r}" if text else ""
                found.append(f"{part}: {pointer}: no row traces{shown or ' it'}")
    return found


def tally(rows: list[Row], document: Any, requirements: Mapping[str, Any]) -> dict[str, dict[Kind, int]]:
    """Per part, how many of the document's statements have each kind (a statement counts once)."""
    wanted = statements(document)
    counts: dict[str, dict[Kind, int]] = {part: dict.fromkeys(Kind, 0) for part in PARTS}
    for row in rows:
        for key in row.traced():
            if key in wanted[row.part]:
                counts[row.part][kind(row, requirements)] += 1
    return counts


def tally_line(counts: dict[str, dict[Kind, int]]) -> str:
    """`N sentences: a checked, b partial, c informative, d unobservable; M constraints: ...` (the README quotes
    it)."""
    return "; ".join(
        f"{sum(by_kind.values())} {part}: " + ", ".join(f"{by_kind[item]} {item}" for item in Kind)
        for part, by_kind in counts.items()
    )
