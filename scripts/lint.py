"""House lint rules for the bundled contract: one small function per rule, each finding names its file.

Run: `python -m scripts.lint [generated/openapi.yaml]`. Exit 1 when any rule reports a finding.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

REPO = Path(__file__).resolve().parent.parent
HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
CAMEL_CASE = re.compile(r"^(@type|[a-z][a-zA-Z0-9]*)$")
UPPER_SNAKE = re.compile(r"^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$")
BUNDLE_URI = "urn:accessgov:bundle"


@dataclass(frozen=True)
class Finding:
    rule: str
    file: str
    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}: {self.where}: [{self.rule}] {self.message}"


class SourceMap:
    """Maps a location in the bundle back to the file of `spec/` it was written in."""

    def __init__(self, spec_root: Path) -> None:
        self.spec_root = spec_root
        root = yaml.safe_load((spec_root / "openapi.yaml").read_text(encoding="utf-8"))
        self.path_files = {p: item.get("$ref", "openapi.yaml") for p, item in (root.get("paths") or {}).items()}
        self.component_files = {
            (kind, name): entry.get("$ref", "openapi.yaml")
            for kind, entries in (root.get("components") or {}).items()
            for name, entry in (entries or {}).items()
        }

    def file_for(self, pointer: tuple[str, ...]) -> str:
        rel = "openapi.yaml"
        if len(pointer) >= 2 and pointer[0] == "paths":
            rel = self.path_files.get(pointer[1], rel)
        elif len(pointer) >= 3 and pointer[0] == "components":
            rel = self.component_files.get((pointer[1], pointer[2]), rel)
        path = (self.spec_root / rel).resolve()
        return str(path.relative_to(REPO) if path.is_relative_to(REPO) else path)


class Context:
    """The bundle plus what the rules need to look things up in it."""

    def __init__(self, doc: dict[str, Any], spec_root: Path) -> None:
        self.doc = doc
        self.sources = SourceMap(spec_root)
        self.registry = Registry().with_resource(
            BUNDLE_URI, Resource.from_contents(doc, default_specification=DRAFT202012)
        )

    def finding(self, rule: str, pointer: tuple[str, ...], message: str) -> Finding:
        return Finding(rule, self.sources.file_for(pointer), ".".join(pointer), message)

    def deref(self, node: Any) -> tuple[Any, tuple[str, ...] | None]:
        """Follow a local `$ref`; return the target and its pointer (None when not a ref)."""
        pointer = None
        seen: set[str] = set()
        while isinstance(node, dict) and isinstance(node.get("$ref"), str) and node["$ref"].startswith("#/"):
            ref = node["$ref"]
            if ref in seen:
                break
            seen.add(ref)
            pointer = tuple(part.replace("~1", "/").replace("~0", "~") for part in ref[2:].split("/"))
            node = self.doc
            for part in pointer:
                node = node[part]
        return node, pointer

    def validator_for(self, pointer: tuple[str, ...]) -> Draft202012Validator:
        escaped = "/".join(p.replace("~", "~0").replace("/", "~1") for p in pointer)
        return Draft202012Validator(
            {"$ref": f"{BUNDLE_URI}#/{escaped}"},
            registry=self.registry,
            format_checker=Draft202012Validator.FORMAT_CHECKER,
        )

    def operations(self) -> Iterator[tuple[tuple[str, ...], dict[str, Any]]]:
        for path, item in (self.doc.get("paths") or {}).items():
            for method in HTTP_METHODS:
                if isinstance(item.get(method), dict):
                    yield ("paths", path, method), item[method]


def walk(node: Any, pointer: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    yield pointer, node
    if isinstance(node, dict):
        for key, value in node.items():
            yield from walk(value, (*pointer, str(key)))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from walk(value, (*pointer, str(index)))


def schemas_in(ctx: Context) -> Iterator[tuple[tuple[str, ...], dict[str, Any]]]:
    """Every named component schema and every schema nested in one (properties, items, unions)."""
    for name, schema in (ctx.doc.get("components", {}).get("schemas") or {}).items():
        yield from _subschemas(schema, ("components", "schemas", name))


def _subschemas(schema: Any, pointer: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], dict[str, Any]]]:
    if not isinstance(schema, dict) or "$ref" in schema:
        return
    yield pointer, schema
    for key in ("properties", "patternProperties"):
        for name, sub in (schema.get(key) or {}).items():
            yield from _subschemas(sub, (*pointer, key, name))
    for key in ("items", "additionalProperties", "not", "propertyNames"):
        yield from _subschemas(schema.get(key), (*pointer, key))
    for key in ("allOf", "anyOf", "oneOf"):
        for index, sub in enumerate(schema.get(key) or []):
            yield from _subschemas(sub, (*pointer, key, str(index)))


def skipped(schema: dict[str, Any], rule: str) -> bool:
    """A schema may opt out of a rule with `x-lint-skip: [rule]` (with a description saying why)."""
    return rule in (schema.get("x-lint-skip") or [])


# --- rules ------------------------------------------------------------------------------------------


def operation_metadata(ctx: Context) -> Iterator[Finding]:
    """Each operation has an operationId, tags and a summary."""
    for pointer, op in ctx.operations():
        for key in ("operationId", "tags", "summary"):
            if not op.get(key):
                yield ctx.finding("operation-metadata", pointer, f"operation has no {key}")


def error_bodies_documented(ctx: Context) -> Iterator[Finding]:
    """Every 4xx/5xx response of every operation documents a JSON body with a schema."""
    for pointer, op in ctx.operations():
        for status, response in (op.get("responses") or {}).items():
            if not str(status).startswith(("4", "5")):
                continue
            resolved, _ = ctx.deref(response)
            media = (resolved.get("content") or {}).get("application/json") or {}
            if "schema" not in media:
                yield ctx.finding(
                    "error-body", (*pointer, "responses", str(status)), "error response has no JSON body schema"
                )


def examples_valid(ctx: Context) -> Iterator[Finding]:
    """Every example (media type, parameter, schema) validates against the schema it illustrates."""
    for pointer, node in walk(ctx.doc):
        if not isinstance(node, dict) or "schema" not in node:
            continue
        if not ("example" in node or "examples" in node):
            continue
        schema_pointer = (*pointer, "schema")
        samples: list[tuple[tuple[str, ...], Any]] = []
        if "example" in node:
            samples.append(((*pointer, "example"), node["example"]))
        for name, example in (node.get("examples") or {}).items():
            target, target_pointer = ctx.deref(example)
            if isinstance(target, dict) and "value" in target:
                samples.append((target_pointer or (*pointer, "examples", name), target["value"]))
        yield from _check_samples(ctx, "example-valid", schema_pointer, samples)
    for pointer, schema in schemas_in(ctx):
        samples = [((*pointer, "examples", str(i)), value) for i, value in enumerate(schema.get("examples") or [])]
        yield from _check_samples(ctx, "example-valid", pointer, samples)


def _check_samples(
    ctx: Context, rule: str, schema_pointer: tuple[str, ...], samples: list[tuple[tuple[str, ...], Any]]
) -> Iterator[Finding]:
    if not samples:
        return
    validator = ctx.validator_for(schema_pointer)
    for where, value in samples:
        # best_match descends into anyOf/oneOf to the error that explains the failure, not the whole value.
        error = best_match(validator.iter_errors(value))
        if error is not None:
            at = "/" + "/".join(map(str, error.absolute_path))
            message = error.message if len(error.message) <= 160 else error.message[:157] + "..."
            yield ctx.finding(rule, where, f"example does not match its schema at {at}: {message}")


def no_unused_components(ctx: Context) -> Iterator[Finding]:
    """Every component is referenced (security schemes: by a security requirement)."""
    text_refs = {node["$ref"] for _, node in walk(ctx.doc) if isinstance(node, dict) and "$ref" in node}
    used_schemes = {
        name
        for _, op in ctx.operations()
        for requirement in op.get("security", ctx.doc.get("security", [])) or []
        for name in requirement
    }
    for kind, entries in (ctx.doc.get("components") or {}).items():
        for name in entries or {}:
            used = name in used_schemes if kind == "securitySchemes" else f"#/components/{kind}/{name}" in text_refs
            if not used:
                yield ctx.finding("no-unused-components", ("components", kind, name), "component is never used")


def camel_case_properties(ctx: Context) -> Iterator[Finding]:
    """Property names are lowerCamelCase (or `@type`)."""
    for pointer, schema in schemas_in(ctx):
        if skipped(ctx.doc["components"]["schemas"][pointer[2]], "camel-case-properties"):
            continue
        for name in schema.get("properties") or {}:
            if not CAMEL_CASE.match(name):
                yield ctx.finding(
                    "camel-case-properties", (*pointer, "properties", name), f"property {name!r} is not lowerCamelCase"
                )


def open_enums(ctx: Context) -> Iterator[Finding]:
    """Enums are open (`anyOf` known values + plain string), UPPER_SNAKE, led by an UNSPECIFIED value.

    Closed enums are allowed only where the server must reject unknown values: in request-only schemas.
    """
    response_schemas = _response_reachable_schemas(ctx)
    open_members: set[tuple[str, ...]] = set()
    for pointer, schema in schemas_in(ctx):
        variants = schema.get("anyOf") or []
        known = [v for v in variants if isinstance(v, dict) and "enum" in v]
        if known:
            open_members.update((*pointer, "anyOf", str(i)) for i in range(len(variants)))
            open_alternative = any(v.get("type") == "string" and "enum" not in v for v in variants)
            if not open_alternative or not schema.get("x-open-enum"):
                yield ctx.finding("open-enum", pointer, "enum must be `anyOf: [{enum}, {type: string}]` + x-open-enum")
            values = known[0]["enum"]
            bad = [v for v in values if not UPPER_SNAKE.match(str(v))]
            if bad:
                yield ctx.finding("open-enum", pointer, f"enum values are not UPPER_SNAKE: {bad}")
            if values and not str(values[0]).endswith("UNSPECIFIED"):
                yield ctx.finding("open-enum", pointer, "the first enum value must be the *_UNSPECIFIED member")
        elif "enum" in schema and pointer not in open_members and pointer[2] in response_schemas:
            yield ctx.finding("open-enum", pointer, "closed enum in a schema that appears in responses")


def _response_reachable_schemas(ctx: Context) -> set[str]:
    """Names of component schemas reachable from any response."""
    pending = [
        node
        for pointer, op in ctx.operations()
        for status, response in (op.get("responses") or {}).items()
        for node in [ctx.deref(response)[0]]
    ]
    names: set[str] = set()
    while pending:
        node = pending.pop()
        for _, sub in walk(node):
            if isinstance(sub, dict) and str(sub.get("$ref", "")).startswith("#/components/"):
                target, pointer = ctx.deref(sub)
                if pointer and pointer[1] in ("schemas", "responses") and pointer[2] not in names:
                    if pointer[1] == "schemas":
                        names.add(pointer[2])
                    pending.append(target)
    return names


def arrays_have_items(ctx: Context) -> Iterator[Finding]:
    """Every array schema says what its items are."""
    for pointer, schema in schemas_in(ctx):
        types = schema.get("type")
        is_array = types == "array" or (isinstance(types, list) and "array" in types)
        if is_array and "items" not in schema:
            yield ctx.finding("array-items", pointer, "array schema has no items")


RULES: tuple[Callable[[Context], Iterator[Finding]], ...] = (
    operation_metadata,
    error_bodies_documented,
    examples_valid,
    no_unused_components,
    camel_case_properties,
    open_enums,
    arrays_have_items,
)


def lint(doc: dict[str, Any], spec_root: Path = REPO / "spec") -> list[Finding]:
    """All findings of all rules for the bundle `doc` built from `spec_root`."""
    ctx = Context(doc, spec_root)
    return [finding for rule in RULES for finding in rule(ctx)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Lint the bundled contract with the house rules.")
    parser.add_argument("bundle", nargs="?", type=Path, default=REPO / "generated" / "openapi.yaml")
    parser.add_argument("--spec-root", type=Path, default=REPO / "spec")
    args = parser.parse_args(argv)
    findings = lint(yaml.safe_load(args.bundle.read_text(encoding="utf-8")), args.spec_root)
    for finding in findings:
        print(finding)
    print(f"lint: {len(findings)} finding(s) in {args.bundle}")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
