"""House lint rules for the bundled contract: what Redocly CLI's rules (`redocly.yaml`) cannot express.

Redocly lints operation metadata, examples, unused components, error bodies and `x-error-code` (see
`redocly.yaml`). These rules need more than one node at a time: camelCase properties with a documented opt-out,
open enums in every schema a response can reach, array items, and `required` names declared in the schema or in
the schema that composes it (Redocly's own rule misreads this contract's unions on the bundle).

Run: `make lint` (`accessgov-tools lint --redocly [generated/openapi.yaml]`). Exit 1 when Redocly CLI reports an
error or any house rule a finding; the summary line counts both linters' findings.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from accessgov_tools import display, redos
from accessgov_tools.loader import LoadError, load_document
from accessgov_tools.paths import REPO, shown
from accessgov_tools.refs import References

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
CAMEL_CASE = re.compile(r"^(@type|[a-z][a-zA-Z0-9]*)$")
UPPER_SNAKE = re.compile(r"^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$")


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
        root = load_document(spec_root / "openapi.yaml")
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
        return shown(self.spec_root / rel)


class Context:
    """The bundle plus what the rules need to look things up in it."""

    def __init__(self, doc: dict[str, Any], spec_root: Path) -> None:
        self.doc = doc
        self.sources = SourceMap(spec_root)

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
            pointer = tuple(part.replace("~1", "/").replace("~0", "~") for part in unquote(ref[2:]).split("/"))
            target: Any = self.doc
            for part in pointer:
                if isinstance(target, dict) and part in target:
                    target = target[part]
                elif isinstance(target, list) and part.isdigit() and int(part) < len(target):
                    target = target[int(part)]
                else:
                    return {}, None  # a reference to nothing: validate says so; no rule has anything to read
            node = target
        return node, pointer

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


def required_properties_defined(ctx: Context) -> Iterator[Finding]:
    """Each `required` name is a property of the schema or of a schema composing it (`oneOf` over `required`)."""
    for pointer, schema in schemas_in(ctx):
        declared = _declared(ctx, schema)
        for name in schema.get("required") or []:
            if name in declared or any(name in _declared(ctx, outer) for outer in _enclosing(ctx, pointer)):
                continue
            yield ctx.finding(
                "required-properties-defined", (*pointer, "required"), f"required {name!r} is not a property"
            )


def _declared(ctx: Context, schema: dict[str, Any]) -> set[str]:
    """Property names of `schema`, its `$ref` target and its `allOf` parts."""
    names: set[str] = set()
    pending, seen = [schema], 0
    while pending and seen < 64:
        node, _ = ctx.deref(pending.pop())
        seen += 1
        if isinstance(node, dict):
            names.update(node.get("properties") or {})
            pending.extend(node.get("allOf") or [])
    return names


def _enclosing(ctx: Context, pointer: tuple[str, ...]) -> Iterator[dict[str, Any]]:
    """The schemas that hold `pointer` as an `allOf`/`anyOf`/`oneOf` member, innermost first."""
    while len(pointer) >= 5 and pointer[-2] in ("allOf", "anyOf", "oneOf"):
        pointer = pointer[:-2]
        node: Any = ctx.doc
        for token in pointer:
            node = node[int(token)] if isinstance(node, list) else node[token]
        yield node


def patterns_run_in_linear_time(ctx: Context) -> Iterator[Finding]:
    """Every `pattern` and `patternProperties` name can be run by a backtracking engine (the server's and the SDK's
    Python `re`, a TypeScript client's RegExp) in reasonable time: no nested or overlapping repetitions
    (`accessgov_tools/redos.py` reads the pattern; nothing runs it)."""
    for pointer, node in walk(ctx.doc):
        if not isinstance(node, dict) or (pointer and pointer[-1] in ("properties", "examples", "example")):
            continue
        found: list[tuple[tuple[str, ...], str]] = []
        if isinstance(node.get("pattern"), str):
            found.append(((*pointer, "pattern"), node["pattern"]))
        if isinstance(node.get("patternProperties"), dict):
            found.extend(((*pointer, "patternProperties", str(name)), str(name)) for name in node["patternProperties"])
        for where, pattern in found:
            if (why := redos.problem(pattern)) is not None:
                yield ctx.finding(
                    "pattern-backtracking",
                    where,
                    f"pattern {display.quote(display.visible(pattern, 200))} can backtrack catastrophically in a "
                    f"backtracking engine: {why}",
                )


RULES: tuple[Callable[[Context], Iterator[Finding]], ...] = (
    camel_case_properties,
    open_enums,
    arrays_have_items,
    required_properties_defined,
    patterns_run_in_linear_time,
)


def lint(doc: dict[str, Any], spec_root: Path = REPO / "spec") -> list[Finding]:
    """All findings of all rules for the bundle `doc` built from `spec_root`."""
    ctx = Context(doc, spec_root)
    return [finding for rule in RULES for finding in rule(ctx)]


def preflight(config: Path = REPO / "redocly.yaml", targets: list[str] | None = None) -> None:
    """Read every document Redocly CLI will lint with the one loader and resolver first (`accessgov_tools/refs.py`):
    Redocly follows `$ref`s itself, so a file outside an API's directory, a network reference or a document over a
    limit is refused here (a `LoadError`) before it runs. A configuration that would make Redocly run code
    (`plugins`) or read a configuration from the network (`extends` with a URL) is refused too."""
    settings = load_document(config) or {}
    if not isinstance(settings, dict):
        raise LoadError(f"{shown(config)}:1:1: a Redocly configuration is a mapping")
    if settings.get("plugins"):
        raise LoadError(f"{shown(config)}: `plugins` would run code named by the configuration; not allowed here")
    for entry in settings.get("extends") or []:
        if "://" in str(entry):
            raise LoadError(f"{shown(config)}: `extends: {entry}` would read a configuration from the network")
    # The documents named on the command line are the user's choice; the roots the configuration names (a pull
    # request may change it) must stay beside it, inside its repository.
    configured = [
        config.parent / str(api.get("root", ""))
        for api in (settings.get("apis") or {}).values()
        if isinstance(api, dict)
    ]
    home = config.resolve().parent
    for root in configured:
        if not root.resolve().is_relative_to(home):
            raise LoadError(f"{shown(config)}: API root {root} is outside {shown(home)}, the configuration's folder")
    for root in [REPO / target for target in targets or []] or configured:
        References(root.resolve().parent).check_chains(root)


def redocly_lint(
    targets: list[str] | None = None, config: Path = REPO / "redocly.yaml", capture: bool = False
) -> subprocess.CompletedProcess[str]:
    """Run Redocly CLI's lint with `config` on every API it names (or on `targets`), once `preflight` passed."""
    from accessgov_tools.build_docs import DOCS_TOOLING, REDOCLY

    preflight(config, targets)

    if not REDOCLY.exists():
        raise SystemExit(
            f"error: {REDOCLY} is missing: `make lint` installs it (npm ci --prefix {DOCS_TOOLING.relative_to(REPO)})"
        )
    env = {**os.environ, "REDOCLY_TELEMETRY": "off", "REDOCLY_SUPPRESS_UPDATE_NOTICE": "true", "NO_COLOR": "1"}
    # Every problem listed (Redocly shows 100 by default), so the summary's count is what the reader saw.
    command = [str(REDOCLY), "lint", *(targets or []), "--config", str(config), "--format", "stylish"]
    command += ["--max-problems", "1000000"]
    return subprocess.run(command, cwd=REPO, env=env, capture_output=capture, text=True, check=False)


# A problem line of Redocly's `stylish` format: `  4:3  error    operation-summary  Operation object ...`.
_STYLISH = re.compile(r"^\s+\d+:\d+\s+(error|warning)\s+\S", re.MULTILINE)


def redocly_counts(output: str) -> tuple[int, int]:
    """(errors, warnings) among the problems Redocly CLI's `stylish` output lists."""
    levels = _STYLISH.findall(output)
    return levels.count("error"), levels.count("warning")


def summary(house: int, redocly: tuple[int, int] | None, bundle: Path) -> str:
    """`lint: 3 finding(s): Redocly CLI 2 (2 errors, 0 warnings), house rules 1 in generated/openapi.yaml`."""
    if redocly is None:
        return f"lint: {house} finding(s) (house rules) in {bundle}"
    errors, warnings = redocly
    return (
        f"lint: {house + errors + warnings} finding(s): Redocly CLI {errors + warnings} ({errors} error(s), "
        f"{warnings} warning(s)), house rules {house} in {bundle}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Lint the bundled contract with the house rules.")
    parser.add_argument("bundle", nargs="?", type=Path, default=REPO / "generated" / "openapi.yaml")
    parser.add_argument("--spec-root", type=Path, default=REPO / "spec")
    parser.add_argument("--redocly", action="store_true", help="first run Redocly CLI's lint (redocly.yaml)")
    args = parser.parse_args(argv)
    redocly_status, redocly = 0, None
    try:
        if args.redocly:
            result = redocly_lint(capture=True)
            sys.stdout.write(result.stdout)
            sys.stderr.write(result.stderr)
            redocly_status, redocly = result.returncode, redocly_counts(result.stdout)
        findings = lint(load_document(args.bundle), args.spec_root)
    except LoadError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    for finding in findings:
        print(finding)
    print(summary(len(findings), redocly, args.bundle))
    return 1 if findings or redocly_status else 0


if __name__ == "__main__":
    sys.exit(main())
