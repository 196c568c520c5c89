"""The contract the kit checks against: the public OpenAPI document, and response validation against it.

The installed kit carries its own copy (`openapi.json`, put into the wheel from `generated/variants/public.json`);
run from a checkout, the kit reads that file in the repository.
"""

from __future__ import annotations

import collections
import functools
import json
import re
import threading
from pathlib import Path
from typing import Any

import jsonschema

PACKAGED = Path(__file__).resolve().parent / "openapi.json"
IN_REPOSITORY = Path(__file__).resolve().parents[2] / "generated" / "variants" / "public.json"

RESTART = "/api/v1/tasks/{task_id}/action/restart"
LIST_ENTITLEMENTS = "/api/v1/apps/{app_id}/entitlements"
WEBHOOK = "/api/v1/webhooks/incoming/{listener_id}"
TOKEN = "/auth/v1/token"
OPERATIONS = {("POST", RESTART), ("GET", LIST_ENTITLEMENTS), ("POST", WEBHOOK), ("POST", TOKEN)}


def default_spec_path() -> Path:
    """The packaged contract, or the repository's public variant when run from a checkout."""
    return PACKAGED if PACKAGED.exists() else IN_REPOSITORY


@functools.cache
def load(path: str | None = None) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(Path(path or default_spec_path()).read_text(encoding="utf-8"))
    return document


SOURCE_FILE = re.compile(r"(spec/[^\s#;(),]+?(?:\.yaml)?|generated/variants/public\.json)(?=[\s#;(),]|$)(#[^\s;(),]*)?")


def escape(key: str) -> str:
    """A JSON pointer segment (RFC 6901)."""
    return key.replace("~", "~0").replace("/", "~1")


def contract_pointers(text: str, document: dict[str, Any] | None = None) -> str:
    """`text` with each source file of the contract (`spec/...yaml#/pointer`, `generated/variants/public.json`)
    written as the JSON pointer of that place in the contract itself (`#/components/schemas/Task/...`): what an
    implementer, who has the contract but not this repository's sources, can look up."""
    document = document or load()
    by_file = {path.strip("/").replace("/", "_"): f"/paths/{escape(path)}" for path in document.get("paths", {})}

    def pointer(match: re.Match[str]) -> str:
        file, fragment = match.group(1).removesuffix(".yaml"), (match.group(2) or "#")[1:]
        if file.startswith("generated/") or file == "spec/openapi":
            base = ""
        elif file.startswith("spec/paths/"):
            base = by_file.get(file.removeprefix("spec/paths/"), "")
            if not base:
                return match.group(0)
        else:
            kind, _, name = file.removeprefix("spec/components/").partition("/")
            base = f"/components/{kind}/{escape(name)}"
        return f"#{base}{fragment}"

    return SOURCE_FILE.sub(pointer, text)


def resolve_pointer(document: Any, pointer: str) -> Any:
    """The node at the JSON pointer `pointer` (`#/a/b` or `/a/b`); KeyError or IndexError when there is none."""
    node = document
    for part in pointer.lstrip("#").split("/")[1:] if pointer.strip("#") else []:
        key = part.replace("~1", "/").replace("~0", "~")
        node = node[int(key)] if isinstance(node, list) else node[key]
    return node


def _resolve(document: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        pointer = node["$ref"].removeprefix("#/").split("/")
        node = functools.reduce(lambda part, key: part[key], pointer, document)
    return node


def response_schema(method: str, path: str, status: int, document: dict[str, Any] | None = None) -> Any:
    """The JSON schema of the documented `status` response of the operation, `{}` when it has no JSON body,
    `None` when the status is not documented for the operation."""
    document = document or load()
    operation = document["paths"][path][method.lower()]
    responses = operation.get("responses", {})
    node = responses.get(str(status)) or responses.get(f"{str(status)[0]}XX") or responses.get("default")
    if node is None:
        return None
    node = _resolve(document, node)
    content = node.get("content", {}).get("application/json")
    return content.get("schema", {}) if content else {}


# The formats the contract uses beyond JSON Schema's own (`int32`, `int64`: OpenAPI's; a decimal string for 64 bits,
# "64-bit integers travel as decimal strings"), and `duration` (ISO 8601), whose stock checker needs a package the
# kit does not depend on: each is checked, never passed unread.
DURATION = re.compile(
    r"^P(?!$)(\d+(\.\d+)?Y)?(\d+(\.\d+)?M)?(\d+(\.\d+)?W)?(\d+(\.\d+)?D)?"
    r"(T(?=\d)(\d+(\.\d+)?H)?(\d+(\.\d+)?M)?(\d+(\.\d+)?S)?)?$"
)
FORMATS = jsonschema.FormatChecker()


@FORMATS.checks("int32")
def _int32(value: object) -> bool:
    return not isinstance(value, int) or isinstance(value, bool) or -(2**31) <= value < 2**31


@FORMATS.checks("int64")
def _int64(value: object) -> bool:
    if isinstance(value, str):
        return re.fullmatch(r"-?[0-9]+", value) is not None and -(2**63) <= int(value) < 2**63
    return not isinstance(value, int) or isinstance(value, bool) or -(2**63) <= value < 2**63


@FORMATS.checks("duration")
def _duration(value: object) -> bool:
    return not isinstance(value, str) or DURATION.match(value) is not None


# What `schema_errors` found for the answers seen last (a run asks the same pages again and again: walks, first
# pages, the same listing by many rules; a process running the kit many times, its self-test, more so): keyed by the
# schema and the answer's exact JSON text, bounded in entries and in the bytes of the texts kept.
MEMO_ENTRIES = 4096
MEMO_BYTES = 16 * 1024 * 1024
MEMO_LARGEST = 256 * 1024  # an answer's JSON text above this is validated every time, never kept
_memo: collections.OrderedDict[tuple[str, str], tuple[dict[str, Any], list[str]]] = collections.OrderedDict()
_memo_bytes = 0
_memo_lock = threading.Lock()


def schema_errors(schema: Any, instance: Any, document: dict[str, Any] | None = None) -> list[str]:
    """Where `instance` breaks `schema` (JSON Schema 2020-12, `$ref`s into the document's components, every format
    the contract names checked). The same schema and JSON text against the same document give the same answer,
    kept for the next time (`MEMO_ENTRIES`)."""
    global _memo_bytes
    document = document or load()
    try:
        key = (json.dumps(schema, sort_keys=True), json.dumps(instance))
    except (TypeError, ValueError):  # not JSON (a caller's own value): validated as it is, never kept
        return _schema_errors(schema, instance, document)
    with _memo_lock:  # the schema part's hooks may validate from Schemathesis' threads
        kept = _memo.get(key)
        if kept is not None and kept[0] is document:
            _memo.move_to_end(key)
            return list(kept[1])
    errors = _schema_errors(schema, instance, document)
    size = len(key[0]) + len(key[1])
    if size <= MEMO_LARGEST:
        with _memo_lock:
            if key in _memo:
                _memo_bytes -= size
            _memo[key] = (document, errors)
            _memo_bytes += size
            while len(_memo) > MEMO_ENTRIES or _memo_bytes > MEMO_BYTES:
                old, _ = _memo.popitem(last=False)
                _memo_bytes -= len(old[0]) + len(old[1])
    return list(errors)


def _schema_errors(schema: Any, instance: Any, document: dict[str, Any]) -> list[str]:
    wrapped = {"$defs": {}, "components": document.get("components", {}), "allOf": [schema]}
    validator = jsonschema.Draft202012Validator(wrapped, format_checker=FORMATS)
    return [
        f"{'/'.join(str(part) for part in error.absolute_path) or '(root)'}: {error.message}"[:300]
        for error in sorted(validator.iter_errors(instance), key=lambda error: list(error.absolute_path))[:5]
    ]
