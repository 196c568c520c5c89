"""Compare the contract at a git ref with the working tree's and classify each change as breaking or not.

    python -m scripts.breaking_changes BASE_REF [--format text|markdown]
    python -m scripts.breaking_changes --base-file A.yaml --head-file B.yaml

Both sides are bundled documents (components kept as `#/components/...` refs); `$ref`s are followed when
comparing, and a change inside a named schema component is reported once under that component.
A change is judged by the direction the data travels: a *request* breaks when it accepts less (removed or newly
required inputs, narrowed types, formats and enums), a *response* breaks when it promises less or sends
something a client cannot expect (removed fields or status codes, a widened type, a changed format).
Removing an enum value breaks in either direction; adding one does not, because every enumeration of this
contract is open (response enums are `anyOf: [{type: string, enum: [...]}, {type: string}]`).

Exit status: 1 when a breaking change is found, unless `ALLOW_BREAKING=1`; 0 otherwise; 2 on usage errors.
"""

from __future__ import annotations

import argparse
import io
import os
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from scripts.bundle import DEFAULT_ROOT, REPO, bundle

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
REQUEST, RESPONSE = "request", "response"


@dataclass(frozen=True, order=True)
class Change:
    """One difference between the two documents.

    `group` is `METHOD path (operationId)`, `schema <Name>` or `document`; `where` locates the change inside it.
    """

    group: str
    where: str
    rule: str
    breaking: bool
    message: str


@dataclass
class Report:
    """The changes found, in discovery order, without duplicates."""

    changes: list[Change] = field(default_factory=list)

    def add(self, change: Change) -> None:
        if change not in self.changes:
            self.changes.append(change)

    @property
    def breaking(self) -> list[Change]:
        return [c for c in self.changes if c.breaking]

    def groups(self) -> dict[str, list[Change]]:
        """Changes by group: the document first, then operations, then schemas (each in discovery order)."""
        order = {"document": 0}
        grouped: dict[str, list[Change]] = {}
        for change in self.changes:
            grouped.setdefault(change.group, []).append(change)
        return dict(
            sorted(
                grouped.items(),
                key=lambda kv: (order.get(kv[0], 2 if kv[0].startswith("schema ") else 1), kv[0]),
            )
        )


def _types(schema: dict[str, Any]) -> set[str] | None:
    value = schema.get("type")
    if value is None:
        return None
    return {value} if isinstance(value, str) else set(value)


def _closed(schema: dict[str, Any]) -> bool:
    return schema.get("additionalProperties") is False or schema.get("unevaluatedProperties") is False


def _fmt(values: Iterable[Any]) -> str:
    return ", ".join(f"`{v}`" for v in values)


class Comparator:
    """Walks two resolved OpenAPI documents side by side and fills a `Report`."""

    def __init__(self, base: dict[str, Any], head: dict[str, Any]) -> None:
        self.base, self.head = base, head
        self.report = Report()
        self._done: set[tuple[str, str]] = set()  # (component name, direction) already compared
        self._active: set[tuple[int, int, str]] = set()  # inline comparisons in progress (cycle guard)

    # --- plumbing -------------------------------------------------------------------------------------------

    @staticmethod
    def _resolve(doc: dict[str, Any], node: Any) -> Any:
        """Follow local `$ref`s (`#/...`) until a non-reference node; a dangling one resolves to `{}`."""
        seen: set[str] = set()
        while isinstance(node, dict) and isinstance(node.get("$ref"), str) and node["$ref"].startswith("#/"):
            ref = node["$ref"]
            if ref in seen:
                return {}
            seen.add(ref)
            target: Any = doc
            for token in ref[2:].split("/"):
                token = token.replace("~1", "/").replace("~0", "~")
                if not isinstance(target, dict) or token not in target:
                    return {}
                target = target[token]
            node = target
        return node

    def _add(self, group: str, where: str, rule: str, breaking: bool, message: str) -> None:
        self.report.add(Change(group, where, rule, breaking, message))

    # --- document and operations ----------------------------------------------------------------------------

    def compare(self) -> Report:
        if _security(self.base.get("security")) != _security(self.head.get("security")):
            self._add(
                "document",
                "security",
                "changed-security",
                True,
                f"global security requirement changed from {_show_security(self.base.get('security'))} "
                f"to {_show_security(self.head.get('security'))}",
            )
        base_ops, head_ops = self._operations(self.base), self._operations(self.head)
        for key, (label, _, _) in base_ops.items():
            if key not in head_ops:
                self._add(label, "", "removed-operation", True, "operation removed")
        for key, (label, _, _) in head_ops.items():
            if key not in base_ops:
                self._add(label, "", "added-operation", False, "operation added")
        for key, (label, base_op, base_item) in base_ops.items():
            if key in head_ops:
                _, head_op, head_item = head_ops[key]
                self._operation(label, base_op, base_item, head_op, head_item)
        return self.report

    @staticmethod
    def _operations(doc: dict[str, Any]) -> dict[tuple[str, str], tuple[str, dict[str, Any], dict[str, Any]]]:
        found = {}
        for path, item in (doc.get("paths") or {}).items():
            for method in HTTP_METHODS:
                op = (item or {}).get(method)
                if isinstance(op, dict):
                    label = f"{method.upper()} {path}" + (f" ({op['operationId']})" if op.get("operationId") else "")
                    found[(method, path)] = (label, op, item)
        return found

    def _operation(
        self, label: str, base_op: dict[str, Any], base_item: dict[str, Any], head_op: dict[str, Any], head_item: dict
    ) -> None:
        if base_op.get("operationId") != head_op.get("operationId"):
            self._add(
                label,
                "operationId",
                "changed-operation-id",
                True,
                f"operationId changed from `{base_op.get('operationId')}` to `{head_op.get('operationId')}` "
                "(generated client method names and links follow it)",
            )
        if _security(base_op.get("security")) != _security(head_op.get("security")):
            self._add(
                label,
                "security",
                "changed-security",
                True,
                f"security requirement changed from {_show_security(base_op.get('security'))} "
                f"to {_show_security(head_op.get('security'))}",
            )
        self._parameters(
            label, self._params(self.base, base_item, base_op), self._params(self.head, head_item, head_op)
        )
        self._request_body(label, base_op.get("requestBody"), head_op.get("requestBody"))
        self._responses(label, base_op.get("responses") or {}, head_op.get("responses") or {})

    def _params(self, doc: dict[str, Any], item: dict[str, Any], op: dict[str, Any]) -> dict[tuple[str, str], dict]:
        params: dict[tuple[str, str], dict[str, Any]] = {}
        for raw in [*(item.get("parameters") or []), *(op.get("parameters") or [])]:
            param = self._resolve(doc, raw)
            if isinstance(param, dict) and "name" in param:
                params[(param.get("in", ""), param["name"])] = param
        return params

    def _parameters(self, label: str, base: dict[tuple[str, str], dict], head: dict[tuple[str, str], dict]) -> None:
        for (where_in, name), param in base.items():
            where = f"{where_in} parameter `{name}`"
            if (where_in, name) not in head:
                self._add(label, where, "removed-parameter", True, f"{where} removed")
                continue
            new = head[(where_in, name)]
            if new.get("required", False) and not param.get("required", False):
                self._add(label, where, "parameter-made-required", True, f"{where} is now required")
            if "schema" in param and "schema" in new:
                self._schema(param["schema"], new["schema"], REQUEST, label, where)
        for (where_in, name), param in head.items():
            if (where_in, name) not in base:
                where = f"{where_in} parameter `{name}`"
                if param.get("required", False):
                    self._add(label, where, "added-required-parameter", True, f"new required {where}")
                else:
                    self._add(label, where, "added-optional-parameter", False, f"new optional {where}")

    def _request_body(self, label: str, base_raw: Any, head_raw: Any) -> None:
        base, head = self._resolve(self.base, base_raw) or {}, self._resolve(self.head, head_raw) or {}
        if not base and not head:
            return
        if not base:
            required = head.get("required", False)
            self._add(
                label,
                "request body",
                "added-required-request-body" if required else "added-optional-request-body",
                required,
                f"new {'required' if required else 'optional'} request body",
            )
            return
        if not head:
            self._add(label, "request body", "removed-request-body", True, "request body removed")
            return
        if head.get("required", False) and not base.get("required", False):
            self._add(label, "request body", "request-body-made-required", True, "request body is now required")
        base_content, head_content = base.get("content") or {}, head.get("content") or {}
        for media, entry in base_content.items():
            where = f"request body {media}"
            if media not in head_content:
                self._add(label, where, "removed-request-media-type", True, f"request media type `{media}` removed")
            elif "schema" in entry and "schema" in head_content[media]:
                self._schema(entry["schema"], head_content[media]["schema"], REQUEST, label, where)
        for media in head_content:
            if media not in base_content:
                self._add(
                    label, f"request body {media}", "added-request-media-type", False, f"request media type `{media}`"
                )

    def _responses(self, label: str, base: dict[str, Any], head: dict[str, Any]) -> None:
        for status, raw in base.items():
            where = f"response {status}"
            if status not in head:
                self._add(label, where, "removed-response-status", True, f"response status {status} removed")
                continue
            base_content = (self._resolve(self.base, raw) or {}).get("content") or {}
            head_content = (self._resolve(self.head, head[status]) or {}).get("content") or {}
            for media, entry in base_content.items():
                if media not in head_content:
                    self._add(
                        label,
                        f"{where} {media}",
                        "removed-response-media-type",
                        True,
                        f"response {status} no longer offers `{media}`",
                    )
                elif "schema" in entry and "schema" in head_content[media]:
                    self._schema(entry["schema"], head_content[media]["schema"], RESPONSE, label, f"{where} {media}")
        for status in head:
            if status not in base:
                self._add(
                    label, f"response {status}", "added-response-status", False, f"response status {status} added"
                )

    # --- schemas --------------------------------------------------------------------------------------------

    def _schema(self, base: Any, head: Any, direction: str, group: str, where: str) -> None:
        """Compare two schemas met in `direction`; named components are reported under their own group."""
        if not isinstance(base, dict) or not isinstance(head, dict):
            return
        base_ref, head_ref = base.get("$ref"), head.get("$ref")
        prefix = "#/components/schemas/"
        if isinstance(base_ref, str) and base_ref == head_ref and base_ref.startswith(prefix):
            name = base_ref[len(prefix) :]
            if (name, direction) in self._done:
                return
            self._done.add((name, direction))
            self._schema_body(
                self._resolve(self.base, base), self._resolve(self.head, head), direction, f"schema {name}", ""
            )
            return
        base_node, head_node = self._resolve(self.base, base), self._resolve(self.head, head)
        key = (id(base_node), id(head_node), direction)
        if key in self._active:
            return
        self._active.add(key)
        try:
            self._schema_body(base_node, head_node, direction, group, where)
        finally:
            self._active.discard(key)

    def _schema_body(self, base: Any, head: Any, direction: str, group: str, where: str) -> None:
        if not isinstance(base, dict) or not isinstance(head, dict):
            return
        at = f"{where} ({direction})" if where else f"({direction})"
        # type
        base_types, head_types = _types(base), _types(head)
        if base_types is not None:
            lost = sorted(base_types - (head_types or set())) if head_types is not None else []
            gained = sorted((head_types or set()) - base_types)
            if lost and gained:
                self._add(
                    group,
                    at,
                    "changed-type",
                    True,
                    f"type changed from {_fmt(lost)} to {_fmt(gained)}{_dir(direction)}",
                )
            elif lost:
                self._add(
                    group,
                    at,
                    "narrowed-type",
                    direction == REQUEST,
                    f"type {_fmt(lost)} no longer allowed{_dir(direction)}",
                )
            elif gained:
                self._add(
                    group,
                    at,
                    "widened-type",
                    direction == RESPONSE,
                    f"type {_fmt(gained)} now allowed{_dir(direction)}",
                )
        # format
        if base.get("format") != head.get("format"):
            old, new = base.get("format"), head.get("format")
            if new is None:
                breaking, text = direction == RESPONSE, f"format `{old}` dropped"
            elif old is None:
                breaking, text = direction == REQUEST, f"format `{new}` added"
            else:
                breaking, text = True, f"format changed from `{old}` to `{new}`"
            self._add(group, at, "changed-format", breaking, text + _dir(direction))
        # enum
        base_enum, head_enum = base.get("enum"), head.get("enum")
        if isinstance(base_enum, list) and isinstance(head_enum, list):
            removed = [v for v in base_enum if v not in head_enum]
            added = [v for v in head_enum if v not in base_enum]
            if removed:
                self._add(group, at, "removed-enum-value", True, f"enum value {_fmt(removed)} removed{_dir(direction)}")
            if added:
                self._add(
                    group,
                    at,
                    "added-enum-value",
                    False,
                    f"enum value {_fmt(added)} added{_dir(direction)} (safe: enumerations are open in this contract)",
                )
        elif isinstance(head_enum, list) and base_enum is None:
            self._add(
                group,
                at,
                "added-closed-enum",
                direction == REQUEST,
                f"now restricted to the enum {_fmt(head_enum)}{_dir(direction)}",
            )
        elif isinstance(base_enum, list) and head_enum is None:
            self._add(group, at, "dropped-enum", direction == RESPONSE, f"enum restriction dropped{_dir(direction)}")
        # compositions: branches compared by position
        for keyword in ("anyOf", "oneOf", "allOf"):
            base_branches, head_branches = base.get(keyword) or [], head.get(keyword) or []
            for i, (b, h) in enumerate(zip(base_branches, head_branches, strict=False)):
                self._schema(b, h, direction, group, f"{where}.{keyword}[{i}]".lstrip("."))
            if keyword != "allOf" and len(base_branches) != len(head_branches) and base_branches and head_branches:
                fewer = len(head_branches) < len(base_branches)
                self._add(
                    group,
                    at,
                    "changed-composition",
                    fewer == (direction == REQUEST),
                    f"{keyword} has {len(head_branches)} branches instead of {len(base_branches)}{_dir(direction)}",
                )
        self._properties(base, head, direction, group, where)
        for keyword in ("items", "additionalProperties"):
            if isinstance(base.get(keyword), dict) and isinstance(head.get(keyword), dict):
                self._schema(base[keyword], head[keyword], direction, group, f"{where}.{keyword}".lstrip("."))

    def _properties(self, base: dict[str, Any], head: dict[str, Any], direction: str, group: str, where: str) -> None:
        base_props, head_props = base.get("properties") or {}, head.get("properties") or {}
        base_required, head_required = set(base.get("required") or []), set(head.get("required") or [])
        skip = "readOnly" if direction == REQUEST else "writeOnly"

        def travels(props: dict[str, Any], doc: dict[str, Any], name: str) -> bool:
            node = self._resolve(doc, props.get(name, {}))
            return not (isinstance(node, dict) and node.get(skip) is True)

        def field_at(name: str) -> str:
            return f"{where}.{name}".lstrip(".")

        for name in base_props:
            if not travels(base_props, self.base, name):
                continue
            at = f"{field_at(name)} ({direction})"
            if name not in head_props:
                if direction == RESPONSE:
                    self._add(group, at, "removed-response-field", True, f"response field `{name}` removed")
                else:
                    self._add(
                        group,
                        at,
                        "removed-request-field",
                        _closed(head),
                        f"request field `{name}` removed"
                        + (" and the object is closed" if _closed(head) else " (the server ignores it)"),
                    )
                continue
            if direction == REQUEST and name in head_required and name not in base_required:
                self._add(group, at, "new-required-request-field", True, f"request field `{name}` is now required")
            if direction == RESPONSE and name in base_required and name not in head_required:
                self._add(
                    group, at, "response-field-made-optional", True, f"response field `{name}` is no longer always sent"
                )
            self._schema(base_props[name], head_props[name], direction, group, field_at(name))
        for name in head_props:
            if name in base_props or not travels(head_props, self.head, name):
                continue
            at = f"{field_at(name)} ({direction})"
            if direction == REQUEST and name in head_required:
                self._add(group, at, "new-required-request-field", True, f"new required request field `{name}`")
            else:
                self._add(group, at, "added-optional-field", False, f"new optional {direction} field `{name}`")
        # A property required without being declared (or declared elsewhere via allOf) still counts.
        for name in sorted(head_required - base_required - set(base_props) - set(head_props)):
            if direction == REQUEST:
                self._add(
                    group,
                    f"{field_at(name)} ({direction})",
                    "new-required-request-field",
                    True,
                    f"`{name}` now required",
                )


def _dir(direction: str) -> str:
    return f" in a {direction}"


def _security(value: Any) -> Any:
    """A comparable form of a security requirement list (None when inherited)."""
    if value is None:
        return None
    return sorted(tuple(sorted((name, tuple(sorted(scopes or []))) for name, scopes in req.items())) for req in value)


def _show_security(value: Any) -> str:
    if value is None:
        return "(inherited)"
    if not value:
        return "none"
    return " or ".join("+".join(req) or "anonymous" for req in value)


def compare(base: dict[str, Any], head: dict[str, Any]) -> Report:
    """Every change from `base` to `head`, classified."""
    return Comparator(base, head).compare()


# --- rendering ----------------------------------------------------------------------------------------------


def render_text(report: Report) -> str:
    if not report.changes:
        return "No changes to the contract.\n"
    lines = [
        f"{len(report.breaking)} breaking, {len(report.changes) - len(report.breaking)} non-breaking change(s)",
        "",
    ]
    for group, changes in report.groups().items():
        lines.append(group)
        for change in changes:
            tag = "BREAKING" if change.breaking else "ok      "
            where = f" [{change.where}]" if change.where else ""
            lines.append(f"  {tag} {change.rule}: {change.message}{where}")
        lines.append("")
    return "\n".join(lines)


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(report: Report) -> str:
    lines = ["## Contract changes", ""]
    if not report.changes:
        return "\n".join([*lines, "No changes to the contract.", ""])
    breaking = len(report.breaking)
    summary = f"**{breaking} breaking**" if breaking else "no breaking change"
    lines += [f"{summary}, {len(report.changes) - breaking} non-breaking.", ""]
    for group, changes in report.groups().items():
        lines += [f"### `{group}`", "", "| | Change | Where | Rule |", "|---|---|---|---|"]
        for change in changes:
            mark = "⚠️ breaking" if change.breaking else "✅ safe"
            lines.append(f"| {mark} | {_md(change.message)} | {_md(change.where) or '—'} | `{change.rule}` |")
        lines.append("")
    return "\n".join(lines)


# --- inputs -------------------------------------------------------------------------------------------------


def load_file(path: Path) -> dict[str, Any]:
    """A bundled (or self-contained) OpenAPI document from YAML or JSON."""
    return yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def bundle_at_ref(ref: str, repo: Path = REPO, spec_dir: str = "spec") -> dict[str, Any]:
    """The bundle of `spec_dir` as it is in the commit `ref` (read with `git archive`, no checkout)."""
    archive = subprocess.run(
        ["git", "-C", str(repo), "archive", "--format=tar", ref, spec_dir], capture_output=True, check=False
    )
    if archive.returncode != 0:
        raise SystemExit(f"error: cannot read {spec_dir}/ at {ref!r}: {archive.stderr.decode().strip()}")
    with (
        tempfile.TemporaryDirectory(prefix="contract-base-") as tmp,
        tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar,
    ):
        tar.extractall(tmp, filter="data")
        return bundle(Path(tmp) / spec_dir / "openapi.yaml")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base_ref", nargs="?", help="git ref of the base contract (e.g. origin/main, HEAD~1)")
    parser.add_argument("--format", choices=("text", "markdown"), default="text")
    parser.add_argument("--base-file", type=Path, help="base document instead of BASE_REF")
    parser.add_argument("--head-file", type=Path, help="head document instead of the working tree's spec/")
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT, help="root of the split spec for the head")
    args = parser.parse_args(argv)
    if (args.base_ref is None) == (args.base_file is None):
        parser.error("give exactly one of BASE_REF or --base-file")
    base = load_file(args.base_file) if args.base_file else bundle_at_ref(args.base_ref)
    head = load_file(args.head_file) if args.head_file else bundle(args.root)
    report = compare(base, head)
    sys.stdout.write(render_markdown(report) if args.format == "markdown" else render_text(report))
    if report.breaking:
        if os.environ.get("ALLOW_BREAKING") == "1":
            print(f"{len(report.breaking)} breaking change(s) allowed by ALLOW_BREAKING=1", file=sys.stderr)
            return 0
        print(f"{len(report.breaking)} breaking change(s); set ALLOW_BREAKING=1 to accept them", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
