"""Shared look-ups over the committed bundle for the tests of the generated code."""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from typing import Any

from pydantic import BaseModel

from accessgov_tools.generate import REPO, at_most_one_members, one_of_member_groups, open_enum_names, schemas_of
from generated import models

BUNDLE_PATH = REPO / "generated" / "openapi.json"
CLIENT_DIR = REPO / "generated" / "client"
SCHEMA_PREFIX = "#/components/schemas/"

__all__ = ["CLIENT_DIR", "at_most_one_members", "one_of_member_groups", "open_enum_names"]


@cache
def bundle() -> dict[str, Any]:
    """The committed bundle (parsed once)."""
    return json.loads(BUNDLE_PATH.read_text(encoding="utf-8"))


def schemas() -> dict[str, dict[str, Any]]:
    return schemas_of(bundle())


def model_for(schema_name: str) -> type[BaseModel] | None:
    """The generated pydantic model of a named schema (`Field` is `FieldModel`: `Field` is pydantic's), if any."""
    for candidate in (schema_name, f"{schema_name}Model"):
        found = getattr(models, candidate, None)
        if isinstance(found, type) and issubclass(found, BaseModel):
            return found
    return None


def resolve(node: dict[str, Any]) -> dict[str, Any]:
    """Follow a local `$ref` (repeatedly)."""
    while "$ref" in node:
        target: Any = bundle()
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        node = target
    return node


def referenced_schema(node: dict[str, Any] | None) -> str | None:
    """The components schema a schema node names: `$ref`, or `anyOf: [$ref, {type: null}]`."""
    if not node:
        return None
    if "$ref" in node and node["$ref"].startswith(SCHEMA_PREFIX):
        return node["$ref"].removeprefix(SCHEMA_PREFIX)
    refs = [branch for branch in node.get("anyOf", []) if "$ref" in branch]
    if len(refs) == 1 and len(node["anyOf"]) == 2 and {"type": "null"} in node["anyOf"]:
        return referenced_schema(refs[0])
    return None


def _media_examples(where: str, content: dict[str, Any]) -> Iterator[tuple[str, str, Any]]:
    for media_type, media in content.items():
        schema_name = referenced_schema(media.get("schema"))
        for example_name, example in (media.get("examples") or {}).items():
            label = f"{where} {media_type} examples.{example_name}"
            if "$ref" in example:
                label += f" ({example['$ref'].removeprefix('#/components/')})"
            yield label, schema_name or "", resolve(example)["value"]


def documented_examples() -> list[tuple[str, str, Any]]:
    """(label, schema name, value) for every media-type example (components/examples through their references
    included) and every schema-level `examples` entry of the bundle."""
    doc = bundle()
    found: list[tuple[str, str, Any]] = []
    for path, item in doc["paths"].items():
        for method, operation in item.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            if "requestBody" in operation:
                content = resolve(operation["requestBody"])["content"]
                found += _media_examples(f"{method.upper()} {path} request", content)
            for status, response in operation["responses"].items():
                content = resolve(response).get("content") or {}
                found += _media_examples(f"{method.upper()} {path} {status}", content)
    for name, schema in schemas().items():
        for index, value in enumerate(schema.get("examples") or []):
            found.append((f"schema {name} examples[{index}]", name, value))
    unique: dict[str, tuple[str, str, Any]] = {}
    for label, name, value in found:
        unique.setdefault(label, (label, name, value))
    return list(unique.values())


def component_examples_used() -> set[str]:
    """Names of the components/examples some media type refers to."""
    text = json.dumps(bundle()["paths"]) + json.dumps(bundle()["components"].get("responses", {}))
    return {name for name in bundle()["components"].get("examples", {}) if f"#/components/examples/{name}" in text}


def member_schema(schema_name: str, member: str) -> str:
    """The schema a union member property of `schema_name` refers to."""
    name = referenced_schema(schemas()[schema_name]["properties"][member])
    assert name, f"{schema_name}.{member} does not refer to a named schema"
    return name


def minimal_instance(schema_name: str) -> dict[str, Any]:
    """The smallest valid JSON object for an object schema: its required properties (objects) and, for each
    "exactly one of" group, the first member."""
    schema = schemas()[schema_name]
    instance: dict[str, Any] = {}
    for group in one_of_member_groups(schema):
        instance[group[0]] = minimal_instance(member_schema(schema_name, group[0]))
    for required in schema.get("required", []):
        target = referenced_schema(schema["properties"][required])
        assert target, f"{schema_name}.{required}: add a value for it here"
        instance.setdefault(required, minimal_instance(target))
    return instance
