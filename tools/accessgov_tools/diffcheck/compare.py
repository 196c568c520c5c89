"""Walk two bundled documents operation by operation and report every difference as findings of checks.

A schema is compared once per (base location, head location, direction, location kind), cycles included
(`memo.PairMemo`), so a change in a shared component is one finding that lists every operation reaching it and
the cost grows with the schema graph, not with the paths through it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime
from typing import Any

from typing_extensions import TypeIs

from accessgov_tools.diffcheck.checks import BOUNDS, CHECKS, schema_prefix
from accessgov_tools.diffcheck.config import DiffConfig
from accessgov_tools.diffcheck.formats import excludes_nothing
from accessgov_tools.diffcheck.keywords import ABSENT, KeywordChecks, written
from accessgov_tools.diffcheck.lifecycle import OPERATION, PARAMETER, LifecycleChecks, property_checks, stability
from accessgov_tools.diffcheck.memo import PairMemo
from accessgov_tools.diffcheck.model import REQUEST, RESPONSE, Finding, Pointer, Severity, show
from accessgov_tools.diffcheck.resolve import (
    Document,
    Member,
    Values,
    View,
    component_name,
    flag,
    member_key,
    only_union,
    unwrap_nullable,
    view,
)
from accessgov_tools.diffcheck.subsume import Subsumption

FindingKey = tuple[str, Pointer, str]
MemoKey = tuple[Pointer, Pointer, str, str, bool]


@dataclass(frozen=True)
class Where:
    """How a schema is met: the direction it travels, the kind of place (property/parameter/header), a label."""

    direction: str
    location: str
    path: str
    context: str = ""  # what the path is inside, e.g. "query parameter "
    loose: bool = False  # in a body whose media type is not JSON: any value reads as a string (XML, text)

    def to(self, suffix: str) -> Where:
        return replace(self, path=f"{self.path}{suffix}")


@dataclass(frozen=True)
class _FlagChecks:
    """The checks a parameter's or a response header's `required` and `deprecated` changes emit."""

    became_required: str
    became_optional: str
    deprecated: str
    reactivated: str
    required_word: str  # what `required: true` means to a client


_PARAMETER_FLAGS = _FlagChecks(
    "request-parameter-became-required",
    "request-parameter-became-optional",
    "request-parameter-deprecated",
    "request-parameter-reactivated",
    "required",
)
_HEADER_FLAGS = _FlagChecks(
    "response-header-became-required",
    "response-header-became-optional",
    "response-header-deprecated",
    "response-header-reactivated",
    "always sent",
)


def _names(values: Iterable[str]) -> str:
    return ", ".join(f"`{v}`" for v in sorted(values))


def _widen(types: frozenset[str]) -> frozenset[str]:
    return types | {"integer"} if "number" in types else types


class Comparison(KeywordChecks, LifecycleChecks):
    """One comparison of `base` with `head`; `run()` returns the findings."""

    def __init__(
        self,
        base: dict[str, Any],
        head: dict[str, Any],
        severities: dict[str, Severity] | None = None,
        config: DiffConfig | None = None,
        today: date | None = None,
    ):
        self.base, self.head = Document(base), Document(head)
        self.config = config or DiffConfig()
        self.today = today or datetime.now(UTC).date()
        self._level: str | None = None  # the stability of the operation being compared
        self.severities = {cid: check.severity for cid, check in CHECKS.items()} | (severities or {})
        self.findings: dict[FindingKey, Finding] = {}
        self._reached: dict[FindingKey, set[str]] = {}  # the operations each finding lists, for a look-up
        self._memo: PairMemo[MemoKey, FindingKey] = PairMemo()
        self._views: dict[tuple[int, int, Pointer], tuple[Any, View]] = {}
        self._met: dict[tuple[int, int], tuple[Any, Pointer]] = {}  # (document, schema object) -> first pointer

    # --- plumbing ---------------------------------------------------------------------------------------------

    def emit(
        self, check_id: str, message: str, pointer: Pointer, subject: str = "", values: tuple[Any, ...] = ()
    ) -> None:
        if check_id not in CHECKS:
            raise KeyError(f"check {check_id!r} is not registered in tools/accessgov_tools/diffcheck/checks.py")
        key = (check_id, tuple(pointer), message)
        if key not in self.findings:
            self.findings[key] = Finding(
                check_id, self.severities[check_id], message, tuple(pointer), subject=subject, values=values
            )
        self._memo.record({key})

    def _reaching(self, label: str, action: Any, *args: Any) -> None:
        """Run `action` and record that every finding it reaches reaches the operation `label`."""
        reach: set[FindingKey] = set()
        self._memo.sink = reach
        try:
            action(*args)
        finally:
            for key in reach:
                self._reaches(key, label)
            self._memo.sink = None

    def _reaches(self, key: FindingKey, label: str) -> None:
        """The finding `key` reaches the operation `label` (listed once, in the order first reached)."""
        listed = self._reached.setdefault(key, set())
        if label not in listed:
            listed.add(label)
            self.findings[key].operations.append(label)

    # --- the document -----------------------------------------------------------------------------------------

    def run(self) -> list[Finding]:
        base_ops, head_ops = self.base.operations(), self.head.operations()
        self._security_schemes(base_ops, head_ops)
        self._section("paths", base_ops, head_ops)
        self._section("webhooks", self.base.operations("webhooks"), self.head.operations("webhooks"))
        self._version()
        return sorted(self.findings.values(), key=lambda f: (f.severity.rank, f.check, f.pointer, f.message))

    def _section(self, section: str, base_ops: dict[Any, Any], head_ops: dict[Any, Any]) -> None:
        """The operations of `paths` or of `webhooks` (compared like paths, in the same directions, as oasdiff).

        Paths are matched by their template: `/a/{id}` and `/a/{aId}` are one path with a renamed parameter."""
        webhook = section == "webhooks"
        base_ops, head_ops = _by_template(base_ops), _by_template(head_ops)
        for key in sorted(set(base_ops) | set(head_ops)):
            _, method = key
            op, _item, path = head_ops.get(key) or base_ops[key]
            label = f"{method.upper()} {'webhook ' if webhook else ''}{path}" + (
                f" ({op['operationId']})" if op.get("operationId") else ""
            )
            pointer = (section, path, method)
            if key in base_ops and self.below_threshold(base_ops[key][0]):
                if key in head_ops:  # below the stability threshold: only its stability is reported
                    self._reaching(label, self.stability_change, "api", "operation", base_ops[key][0], op, pointer)
                continue
            if key not in head_ops:
                removed = base_ops[key][0]
                deprecated = removed.get("deprecated") is True
                check = "api-removed-with-deprecation" if deprecated else "api-removed-without-deprecation"
                if deprecated and self.removed_before_sunset(removed):
                    check = "api-removed-before-sunset"
                self._reaching(label, self.emit, "webhook-removed" if webhook else check, f"`{label}` removed", pointer)
            elif key not in base_ops:
                self._reaching(
                    label, self.emit, "webhook-added" if webhook else "endpoint-added", f"`{label}` added", pointer
                )
            else:
                b_pointer = (section, base_ops[key][2], method)
                self._reaching(label, self._operation, pointer, base_ops[key][:2], head_ops[key][:2], b_pointer)

    def _version(self) -> None:
        # Client-breaking counts too: it needs a major version as a breaking change does (one table, one rule).
        breaking = [f for f in self.findings.values() if f.severity.breaks]
        before, after = (
            (self.base.raw.get("info") or {}).get("version"),
            (self.head.raw.get("info") or {}).get("version"),
        )
        if breaking and before == after:
            self.emit(
                "api-version-not-bumped",
                f"{len(breaking)} breaking change(s) but `info.version` is still {show(after)}",
                ("info", "version"),
            )

    def _security_schemes(self, base_ops: dict[Any, Any], head_ops: dict[Any, Any]) -> None:
        base = (self.base.raw.get("components") or {}).get("securitySchemes") or {}
        head = (self.head.raw.get("components") or {}).get("securitySchemes") or {}
        for name in sorted(set(base) | set(head)):
            pointer = ("components", "securitySchemes", name)
            users = self._scheme_users(
                name, base_ops if name not in head else head_ops, self.base if name not in head else self.head
            )
            reach: set[FindingKey] = set()
            self._memo.sink = reach
            if name not in head:
                self.emit("api-security-component-removed", f"security scheme `{name}` removed", pointer)
            elif name not in base:
                self.emit("api-security-component-added", f"security scheme `{name}` added", pointer)
            else:
                b, _ = self.base.deref(base[name], pointer)
                h, _ = self.head.deref(head[name], pointer)
                self._security_scheme(name, b, h, pointer)
            for key in reach:
                for label in users:
                    self._reaches(key, label)
            self._memo.sink = None

    def _scheme_users(self, name: str, ops: dict[Any, Any], doc: Document) -> list[str]:
        return [
            f"{method.upper()} {path}" + (f" ({op['operationId']})" if op.get("operationId") else "")
            for (path, method), (op, _) in sorted(ops.items())
            if any(name in requirement for requirement in self._effective_security(doc, op))
        ]

    def _security_scheme(self, name: str, b: dict[Any, Any], h: dict[Any, Any], pointer: Pointer) -> None:
        for key in ("type", "scheme", "in", "name", "bearerFormat"):
            if b.get(key) != h.get(key):
                self.emit(
                    "api-security-component-type-changed",
                    f"security scheme `{name}`: `{key}` changed from {show(b.get(key))} to {show(h.get(key))}",
                    (*pointer, key) if key in h else pointer,
                )
        base_flows, head_flows = b.get("flows") or {}, h.get("flows") or {}
        for flow in sorted(set(base_flows) & set(head_flows)):
            bf, hf = base_flows[flow] or {}, head_flows[flow] or {}
            at = (*pointer, "flows", flow)
            for url in ("tokenUrl", "authorizationUrl"):
                if bf.get(url) != hf.get(url):
                    self.emit(
                        "api-security-component-oauth-token-url-changed",
                        f"security scheme `{name}` {flow}: `{url}` changed"
                        f" from {show(bf.get(url))} to {show(hf.get(url))}",
                        (*at, url),
                    )
            bs, hs = set(bf.get("scopes") or {}), set(hf.get("scopes") or {})
            for scope in sorted(bs - hs):
                self.emit(
                    "api-security-component-oauth-scope-removed",
                    f"`{name}` {flow}: scope `{scope}` removed",
                    (*at, "scopes"),
                )
            for scope in sorted(hs - bs):
                self.emit(
                    "api-security-component-oauth-scope-added",
                    f"`{name}` {flow}: scope `{scope}` added",
                    (*at, "scopes", scope),
                )
        for flow in sorted(set(base_flows) ^ set(head_flows)):
            self.emit(
                "api-security-component-type-changed",
                f"security scheme `{name}`: flow `{flow}` {'removed' if flow in base_flows else 'added'}",
                (*pointer, "flows"),
            )

    # --- operations -------------------------------------------------------------------------------------------

    def _operation(
        self,
        pointer: Pointer,
        base: tuple[dict[Any, Any], dict[Any, Any]],
        head: tuple[dict[Any, Any], dict[Any, Any]],
        b_pointer: Pointer | None = None,
    ) -> None:
        """One operation on both sides; `b_pointer` is where it is in the base when its path was written
        with other parameter names."""
        (b_op, b_item), (h_op, h_item) = base, head
        b_id, h_id = b_op.get("operationId"), h_op.get("operationId")
        if b_id and b_id != h_id:
            msg = f"operationId {show(b_id)} " + (f"changed to {show(h_id)}" if h_id else "removed")
            self.emit(
                "api-operation-id-removed",
                msg + " (generated client method names follow it)",
                (*pointer, "operationId"),
            )
        elif h_id and not b_id:
            self.emit("api-operation-id-added", f"operationId {show(h_id)} added", (*pointer, "operationId"))
        self._level = stability(h_op)
        self.deprecation(OPERATION, "operation", b_op, h_op, pointer, self._level)
        self.stability_change("api", "operation", b_op, h_op, pointer)
        b_tags, h_tags = set(b_op.get("tags") or []), set(h_op.get("tags") or [])
        for tag in sorted(b_tags - h_tags):
            self.emit("api-tag-removed", f"tag `{tag}` removed", (*pointer, "tags"))
        for tag in sorted(h_tags - b_tags):
            self.emit("api-tag-added", f"tag `{tag}` added", (*pointer, "tags"))
        self._security(pointer, b_op, h_op)
        self._parameters(pointer, b_op, b_item, h_op, h_item, b_pointer or pointer)
        self._request_body(pointer, b_op.get("requestBody"), h_op.get("requestBody"))
        self._responses(pointer, b_op.get("responses") or {}, h_op.get("responses") or {})

    @staticmethod
    def _effective_security(doc: Document, op: dict[Any, Any]) -> list[dict[str, set[str]]]:
        """The alternatives an operation accepts; `{}` is the anonymous one (no or empty requirement list)."""
        value = op["security"] if "security" in op else doc.raw.get("security")
        if not value:
            return [{}]
        return [{name: set(scopes or []) for name, scopes in (req or {}).items()} for req in value]

    def _security(self, pointer: Pointer, b_op: dict[Any, Any], h_op: dict[Any, Any]) -> None:
        local = "security" in b_op or "security" in h_op
        scope, at = ("api", (*pointer, "security")) if local else ("api-global", ("security",))
        if "security" not in h_op and local:
            at = pointer
        base = {frozenset(r): r for r in self._effective_security(self.base, b_op)}
        head = {frozenset(r): r for r in self._effective_security(self.head, h_op)}

        def show(names: frozenset[str]) -> str:
            return " + ".join(f"`{n}`" for n in sorted(names)) or "anonymous access"

        for names in sorted(set(base) - set(head), key=sorted):
            self.emit(f"{scope}-security-removed", f"security requirement {show(names)} no longer accepted", at)
        for names in sorted(set(head) - set(base), key=sorted):
            self.emit(f"{scope}-security-added", f"security requirement {show(names)} now accepted", at)
        for names in sorted(set(base) & set(head), key=sorted):
            for scheme in sorted(names):
                added, removed = head[names][scheme] - base[names][scheme], base[names][scheme] - head[names][scheme]
                if added:
                    self.emit(f"{scope}-security-scope-added", f"`{scheme}` now needs scope(s) {_names(added)}", at)
                if removed:
                    self.emit(
                        f"{scope}-security-scope-removed", f"`{scheme}` no longer needs scope(s) {_names(removed)}", at
                    )

    def _params(
        self, doc: Document, pointer: Pointer, op: dict[Any, Any], item: dict[Any, Any]
    ) -> dict[tuple[str, str], tuple[dict[Any, Any], Pointer]]:
        found: dict[tuple[str, str], tuple[dict[Any, Any], Pointer]] = {}
        template = re.findall(r"\{([^}/]*)\}", pointer[1])
        sources = [
            ((*pointer[:2], "parameters"), item.get("parameters")),
            ((*pointer, "parameters"), op.get("parameters")),
        ]
        for base_ptr, params in sources:
            for i, raw in enumerate(params or []):
                param, at = doc.deref(raw, (*base_ptr, str(i)))
                if isinstance(param, dict) and "name" in param:
                    where = str(param.get("in", ""))
                    name = str(param["name"]).lower() if where == "header" else str(param["name"])
                    if where == "path" and name in template:  # matched by position: names may be renamed
                        name = f"{{{template.index(name)}}}"
                    found[(where, name)] = (param, at)
        return found

    def _parameters(
        self,
        pointer: Pointer,
        b_op: dict[Any, Any],
        b_item: dict[Any, Any],
        h_op: dict[Any, Any],
        h_item: dict[Any, Any],
        b_pointer: Pointer,
    ) -> None:
        base = self._params(self.base, b_pointer, b_op, b_item)
        head = self._params(self.head, pointer, h_op, h_item)
        for key in sorted(set(base) | set(head)):
            where_in, name = key
            name = str((head.get(key) or base[key])[0]["name"]) if where_in == "path" else name
            label = f"{where_in} parameter `{name}`"
            if key not in head:
                removed = base[key][0]
                check = "request-parameter-removed"
                if removed.get("deprecated") is True:
                    before = self.removed_before_sunset(removed)
                    check = (
                        "request-parameter-removed-before-sunset"
                        if before
                        else "request-parameter-removed-with-deprecation"
                    )
                self.emit(check, f"{label} removed", (*pointer, "parameters"))
                continue
            h, h_at = head[key]
            h_required = bool(h.get("required")) or where_in == "path"
            if key not in base:
                check = "new-required-request-parameter" if h_required else "new-optional-request-parameter"
                self.emit(check, f"new {'required' if h_required else 'optional'} {label}", h_at)
                continue
            b, b_at = base[key]
            b_required = bool(b.get("required")) or where_in == "path"
            self._flags(label, b, h, h_at, (b_required, h_required), _PARAMETER_FLAGS)
            self.deprecation(PARAMETER, label, b, h, h_at, self._level)
            if "schema" in b and "schema" in h:
                self.schema(
                    b["schema"],
                    (*b_at, "schema"),
                    h["schema"],
                    (*h_at, "schema"),
                    Where(REQUEST, "parameter", name, f"{where_in} parameter "),
                )

    def _request_body(self, pointer: Pointer, b_raw: Any, h_raw: Any) -> None:
        at = (*pointer, "requestBody")
        b, b_at = self.base.deref(b_raw, at) if b_raw else (None, at)
        h, h_at = self.head.deref(h_raw, at) if h_raw else (None, at)
        if not b and not h:
            return
        if not b:
            assert h  # one of the two is there
            required = bool(h.get("required"))
            self.emit(
                "request-body-added-required" if required else "request-body-added-optional",
                f"{'required' if required else 'optional'} request body added",
                h_at,
            )
            return
        if not h:
            self.emit("request-body-removed", "request body removed", at)
            return
        if bool(b.get("required")) != bool(h.get("required")):
            required = bool(h.get("required"))
            self.emit(
                "request-body-became-required" if required else "request-body-became-optional",
                f"request body is now {'required' if required else 'optional'}",
                (*h_at, "required") if "required" in h else h_at,
            )
        self._media_types(
            Where(REQUEST, "property", "request body"),
            ("request-body-media-type", "request media type"),
            (b.get("content") or {}, b_at),
            (h.get("content") or {}, h_at),
            (*h_at, "content"),
        )

    def _responses(self, pointer: Pointer, base: dict[Any, Any], head: dict[Any, Any]) -> None:
        at = (*pointer, "responses")
        for status in sorted(set(map(str, base)) | set(map(str, head))):
            success = status.startswith(("2", "3"))
            kind = "success" if success else "non-success"
            b_raw, h_raw = (
                base.get(status, base.get(int(status)) if status.isdigit() else None),
                head.get(status, head.get(int(status)) if status.isdigit() else None),
            )
            if h_raw is None:
                self.emit(f"response-{kind}-status-removed", f"response status {status} removed", at)
                continue
            if b_raw is None:
                self.emit(f"response-{kind}-status-added", f"response status {status} added", (*at, status))
                continue
            b, b_at = self.base.deref(b_raw, (*at, status))
            h, h_at = self.head.deref(h_raw, (*at, status))
            self._headers(status, b.get("headers") or {}, b_at, h.get("headers") or {}, h_at)
            b_content, h_content = b.get("content") or {}, h.get("content") or {}
            b_content = self._renamed_media(status, b_content, h_content, h_at)
            self._media_types(
                Where(RESPONSE, "property", f"response {status}"),
                ("response-media-type", f"response {status}: media type"),
                (b_content, b_at),
                (h_content, h_at),
                (*h_at, "content") if h_content else h_at,
            )

    def _media_types(
        self,
        body: Where,
        named: tuple[str, str],
        base: tuple[dict[Any, Any], Pointer],
        head: tuple[dict[Any, Any], Pointer],
        removed_at: Pointer,
    ) -> None:
        """A body's media types (`content`, with the pointer of the body) on both sides: one removed or added is
        the check `<named[0]>-removed`/`-added`, said `<named[1]> `<media>` removed`/`added`; the schemas of one on
        both sides are compared where `body` is, its path followed by the media type."""
        (b_content, b_at), (h_content, h_at) = base, head
        check, label = named
        for media in sorted(set(b_content) | set(h_content)):
            if media not in h_content:
                self.emit(f"{check}-removed", f"{label} `{media}` removed", removed_at)
            elif media not in b_content:
                self.emit(f"{check}-added", f"{label} `{media}` added", (*h_at, "content", media))
            elif "schema" in b_content[media] and "schema" in h_content[media]:
                self.schema(
                    b_content[media]["schema"],
                    (*b_at, "content", media, "schema"),
                    h_content[media]["schema"],
                    (*h_at, "content", media, "schema"),
                    replace(body.to(f" {media}"), loose=not json_media(media)),
                )

    def _renamed_media(self, status: str, base: dict[Any, Any], head: dict[Any, Any], h_at: Pointer) -> dict[Any, Any]:
        """Pair a removed response media type with the one added in its place (parameters changed, or a
        structured-syntax suffix: `application/json` <-> `application/problem+json`); return the base content
        re-keyed so that the pair is compared as one."""
        removed, added = sorted(set(base) - set(head)), sorted(set(head) - set(base))
        if len(removed) != 1 or len(added) != 1:
            return base
        relation = media_relation(removed[0], added[0])
        if relation is None:
            return base
        self.emit(
            f"response-media-type-name-{relation}",
            f"response {status}: media type `{removed[0]}` {relation} to `{added[0]}`",
            (*h_at, "content", added[0]),
        )
        return {(added[0] if k == removed[0] else k): v for k, v in base.items()}

    def _flags(
        self,
        label: str,
        b: dict[Any, Any],
        h: dict[Any, Any],
        h_at: Pointer,
        required: tuple[bool, bool],
        flags: _FlagChecks,
    ) -> None:
        """A parameter's or a header's `required` (base, head) and a header's `deprecated` that changed."""
        b_required, h_required = required
        if h_required != b_required:
            self.emit(
                flags.became_required if h_required else flags.became_optional,
                f"{label} is now {flags.required_word if h_required else 'optional'}",
                (*h_at, "required") if "required" in h else h_at,
            )
        if flags is not _PARAMETER_FLAGS and bool(b.get("deprecated")) != bool(h.get("deprecated")):
            dep = bool(h.get("deprecated"))
            self.emit(
                flags.deprecated if dep else flags.reactivated,
                f"{label} {'deprecated' if dep else 'no longer deprecated'}",
                (*h_at, "deprecated") if dep else h_at,
            )

    def _headers(self, status: str, base: dict[Any, Any], b_at: Pointer, head: dict[Any, Any], h_at: Pointer) -> None:
        b_map = {str(k).lower(): (k, v) for k, v in base.items()}
        h_map = {str(k).lower(): (k, v) for k, v in head.items()}
        for name in sorted(set(b_map) | set(h_map)):
            shown = (h_map.get(name) or b_map[name])[0]
            label = f"response {status} header `{shown}`"
            if name not in h_map:
                b, _ = self.base.deref(b_map[name][1], ())
                check = "required-response-header-removed" if b.get("required") else "optional-response-header-removed"
                self.emit(check, f"{label} removed", (*h_at, "headers") if head else h_at)
                continue
            h, h_ptr = self.head.deref(h_map[name][1], (*h_at, "headers", h_map[name][0]))
            if name not in b_map:
                self.emit("response-header-added", f"{label} added", h_ptr)
                continue
            b, b_ptr = self.base.deref(b_map[name][1], (*b_at, "headers", b_map[name][0]))
            required = (bool(b.get("required")), bool(h.get("required")))
            self._flags(label, b, h, h_ptr, required, _HEADER_FLAGS)
            if "schema" in b and "schema" in h:
                self.schema(
                    b["schema"],
                    (*b_ptr, "schema"),
                    h["schema"],
                    (*h_ptr, "schema"),
                    Where(RESPONSE, "header", str(shown), f"response {status} header "),
                )

    # --- schemas ----------------------------------------------------------------------------------------------

    def schema(self, b: Any, b_at: Pointer, h: Any, h_at: Pointer, where: Where) -> None:
        """Compare two schemas met `where`; a named component is compared once and its findings reused."""
        b, b_at, b_wrapped = unwrap_nullable(self.base, b, b_at)
        h, h_at, h_wrapped = unwrap_nullable(self.head, h, h_at)
        b_name, h_name = component_name(b), component_name(h)
        if h_name:
            where = replace(where, path=h_name, context="")
        b_view, h_view = self._view(self.base, b, b_at), self._view(self.head, h, h_at)
        b_null = b_wrapped or b_view.nullable
        h_null = h_wrapped or h_view.nullable
        if b_null != h_null:
            prefix = schema_prefix(where.direction, where.location)
            check = f"{prefix}-became-nullable" if h_null else f"{prefix}-became-not-nullable"
            self.emit(
                check,
                f"{where.context}`{where.path}`: `null` {'now' if h_null else 'no longer'} allowed ({where.direction})",
                h_view.where.get("nullable", h_view.at("type")) if h_null else h_at,
            )
        b_key = ("components", "schemas", b_name) if b_name else self._first_met(self.base, b, b_at)
        h_key = ("components", "schemas", h_name) if h_name else self._first_met(self.head, h, h_at)
        key: MemoKey = (b_key, h_key, where.direction, where.location, where.loose)
        if self._memo.enter(key):
            self._schema_body(b_view, h_view, where)
            self._memo.leave()

    def _first_met(self, doc: Document, node: Any, pointer: Pointer) -> Pointer:
        """Where the schema object `node` was first met: one object under many pointers (a YAML alias, written
        once and met again at every path through it) is one schema, compared once per pair like a component."""
        if not isinstance(node, (dict, list)):
            return pointer  # `true`, `false`: one object for every place they are written
        return self._met.setdefault((id(doc), id(node)), (node, pointer))[1]

    def _view(self, doc: Document, node: Any, pointer: Pointer) -> View:
        """`view()`, once per node and pointer: a schema reached by many edges is merged once."""
        key = (id(doc), id(node), pointer)
        found = self._views.get(key)
        if found is None:  # the node is kept with its view, so that its id is not reused
            found = self._views[key] = (node, view(doc, node, pointer))
        return found[1]

    def _schema_body(self, b: View, h: View, where: Where) -> None:
        if self._lone_member(b, h, where):
            return
        prefix = schema_prefix(where.direction, where.location)
        self._types(prefix, b, h, where)
        self._bounds(prefix, b, h, where)
        self._enum(prefix, b, h, where)
        self._simple_keywords(prefix, b, h, where)
        self._unions(b, h, where)
        self._additional_properties(prefix, b, h, where)
        self._keywords_2020(prefix, b, h, where)
        if "items" in b.keywords and "items" in h.keywords:
            self.schema(b.keywords["items"], b.at("items"), h.keywords["items"], h.at("items"), where.to("[]"))
        self._properties(b, h, where)

    def _say(self, check: str, where: Where, text: str, pointer: Pointer, values: tuple[Any, ...] = ()) -> None:
        subject = f"{where.context}{where.path}"
        self.emit(check, f"{where.context}`{where.path}`: {text} ({where.direction})", pointer, subject, values)

    def _types(self, prefix: str, b: View, h: View, where: Where) -> None:
        if b.types == h.types:
            pass
        elif b.types is None or h.types is None:
            relation = "specialized" if b.types is None else "generalized"
            shown = _names(h.types or b.types or ())
            text = f"type restricted to {shown}" if relation == "specialized" else f"type {shown} lifted (any type now)"
            self._say(f"{prefix}-type-{relation}", where, text, h.at("type"))
        else:
            if b.types <= _widen(h.types):
                relation = "generalized"
            elif h.types <= _widen(b.types):
                relation = "specialized"
            else:
                relation = "changed"
            # oasdiff's loosely typed media: any value can be read as a string, so a request that now takes a
            # string, or a response that used to send one, stays readable.
            to_string = h.types if where.direction == REQUEST else b.types
            if where.loose and relation != ("generalized" if where.direction == REQUEST else "specialized"):
                relation = "compatible" if to_string == {"string"} else relation
            self._say(
                f"{prefix}-type-{relation}",
                where,
                f"type changed from {_names(b.types)} to {_names(h.types)}",
                h.at("type"),
            )
        bf, hf = formats = written(b, h, "format")
        if bf != hf:
            # A format that refuses nothing the other constraints allow narrows and widens nothing.
            implied = (bf is ABSENT or excludes_nothing(bf, b)) and (hf is ABSENT or excludes_nothing(hf, h))
            tail, note = ("-implied", " (it excludes no value the other constraints allow)") if implied else ("", "")
            self._keyword_change(f"{prefix}-format", where, h, "format", formats, tail=tail, note=note)

    def _bounds(self, prefix: str, b: View, h: View, where: Where) -> None:
        for keyword, (frag, _kind) in BOUNDS.items():
            # A bound that is not a number bounds nothing: as good as not there.
            bv, hv = b.keywords.get(keyword), h.keywords.get(keyword)
            bounds = (bv if _number(bv) else ABSENT, hv if _number(hv) else ABSENT)
            self._keyword_change(f"{prefix}-{frag}", where, h, keyword, bounds, setting=True, ordered=True)
        multiple = written(b, h, "multipleOf")
        self._keyword_change(f"{prefix}-multiple-of", where, h, "multipleOf", multiple, setting=True)
        bu, hu = b.keywords.get("uniqueItems") is True, h.keywords.get("uniqueItems") is True
        if bu != hu:
            check = f"{prefix}-unique-items-set" if hu else f"{prefix}-unique-items-unset"
            self._say(
                check, where, "uniqueItems " + ("set" if hu else "removed"), h.at("uniqueItems") if hu else h.pointer
            )
        self._keyword_change(f"{prefix}-pattern", where, h, "pattern", written(b, h, "pattern"))

    def _enum(self, prefix: str, b: View, h: View, where: Where) -> None:
        if b.enum is None and h.enum is None:
            return
        if b.enum is None:
            self._say(
                f"{prefix}-became-enum", where, f"values restricted to {_names(map(str, h.enum or []))}", h.at("enum")
            )
            return
        if h.enum is None:
            self._say(f"{prefix}-enum-removed", where, "enumeration lifted", h.pointer)
            return
        b_values, h_values = Values(b.enum), Values(h.enum)
        for value in b.enum:
            if value not in h_values:
                text = f"enum value {show(value)} removed"
                self._say(f"{prefix}-enum-value-removed", where, text, h.at("enum"), (value,))
        for value in h.enum:
            if value not in b_values:
                check = f"{prefix}-open-enum-value-added" if h.open_enum else f"{prefix}-enum-value-added"
                self._say(check, where, f"enum value {show(value)} added", h.at("enum"), (value,))
        if b.open_enum != h.open_enum:
            check = f"{prefix}-enum-became-open" if h.open_enum else f"{prefix}-enum-became-closed"
            self._say(check, where, "enumeration is now " + ("open" if h.open_enum else "closed"), h.at("enum"))

    def _simple_keywords(self, prefix: str, b: View, h: View, where: Where) -> None:
        defaults = (b.keywords.get("default", ABSENT), h.keywords.get("default", ABSENT))  # `default: null` is one
        self._keyword_change(f"{prefix}-default-value", where, h, "default", defaults)
        bdep, hdep = b.keywords.get("deprecated") is True, h.keywords.get("deprecated") is True
        if where.location == "property":
            label = f"{where.context}`{where.path}` ({where.direction})"
            self.deprecation(property_checks(where.direction), label, b.keywords, h.keywords, h.pointer, self._level)
            self.stability_change(prefix, label, b.keywords, h.keywords, h.pointer)
        elif bdep != hdep:
            check = f"{prefix}-deprecated" if hdep else f"{prefix}-reactivated"
            self._say(
                check,
                where,
                "deprecated" if hdep else "no longer deprecated",
                h.at("deprecated") if hdep else h.pointer,
            )

    def _unions(self, b: View, h: View, where: Where) -> None:
        for keyword in ("anyOf", "oneOf"):
            if keyword in b.unions or keyword in h.unions:
                self._members(keyword, b.unions.get(keyword, []), h.unions.get(keyword, []), where, h.at(keyword))

    def _lone_member(self, b: View, h: View, where: Where) -> bool:
        """A union compared with a schema that is none is compared as a union of that one schema (`X` ->
        `anyOf: [X, Y]` adds `Y`, it does not remove X's properties); True when it was. A `oneOf` only when the
        schema is one of its members as written: a wider member in its place may overlap the others, which
        `oneOf` refuses."""
        for union, other, doc in ((h, b, self.base), (b, h, self.head)):
            if len(union.unions) == 1 and not other.unions and only_union(union):
                keyword, members = next(iter(union.unions.items()))
                lone = [Member(member_key(doc, other.node), other.node, other.pointer)]
                if keyword == "oneOf" and lone[0].key not in {m.key for m in members}:
                    return False
                base, head = (lone, members) if union is h else (members, lone)
                self._members(keyword, base, head, where, h.at(keyword))
                return True
        return False

    def _members(self, keyword: str, base: list[Member], head: list[Member], where: Where, at: Pointer) -> None:
        """Union members matched by what they are (`$ref` target, title, content), then by what they accept: a
        member replaced by a new one accepting at least as much (or, failing that, one accepting less) is
        compared with it, not removed; an unchanged member is compared, never reported."""
        prefix = schema_prefix(where.direction, where.location)
        frag = "any-of" if keyword == "anyOf" else "one-of"
        head_by_key = {m.key: m for m in head}
        base_keys = {m.key for m in base}
        pairs = [(m, head_by_key[m.key]) for m in base if m.key in head_by_key]
        gone = [m for m in base if m.key not in head_by_key]
        new = [m for m in head if m.key not in base_keys]
        removed: list[Member] = []
        if gone and new:
            wider, narrower = Subsumption(self.head, self.base), Subsumption(self.base, self.head)
            taken: set[int] = set()  # new members that replace one (by identity)
            for old in gone:
                match = next((m for m in new if wider.accepts(m.node, old.node)), None) or next(
                    (m for m in new if id(m) not in taken and narrower.accepts(old.node, m.node)), None
                )
                if match is None:
                    removed.append(old)
                else:
                    taken.add(id(match))
                    pairs.append((old, match))
            new = [m for m in new if id(m) not in taken]
        else:
            removed = gone
        for old in removed:
            self._say(f"{prefix}-{frag}-removed", where, f"{keyword} member `{old.key}` removed", at)
        for member in new:
            self._say(f"{prefix}-{frag}-added", where, f"{keyword} member `{member.key}` added", member.pointer)
        for old, member in pairs:
            self.schema(old.node, old.pointer, member.node, member.pointer, where.to(f" ({keyword} {member.key})"))

    def _additional_properties(self, prefix: str, b: View, h: View, where: Where) -> None:
        ba, ha = b.keywords.get("additionalProperties", True), h.keywords.get("additionalProperties", True)
        b_any, h_any = ba is True or ba == {}, ha is True or ha == {}
        if isinstance(ba, dict) and isinstance(ha, dict) and not b_any and not h_any:
            # Compared even when written the same: a `$ref` may name a schema that changed.
            self.schema(ba, b.at("additionalProperties"), ha, h.at("additionalProperties"), where.to(".*"))
        elif ba == ha or (b_any and h_any):
            return
        elif ha is False or (b_any and isinstance(ha, dict)):
            self._say(
                f"{prefix}-additional-properties-narrowed",
                where,
                "additionalProperties narrowed",
                h.at("additionalProperties"),
            )
        else:
            self._say(
                f"{prefix}-additional-properties-widened",
                where,
                "additionalProperties widened",
                h.at("additionalProperties") if "additionalProperties" in h.keywords else h.pointer,
            )

    def _properties(self, b: View, h: View, where: Where) -> None:
        request = where.direction == REQUEST
        hidden = "readOnly" if request else "writeOnly"
        for name in sorted(set(b.properties) | set(h.properties)):
            sub = where.to(f".{name}")
            at = (
                h.properties[name][1]
                if name in h.properties
                else (*(h.properties_at or (*h.pointer, "properties")), name)
            )
            label = f"{where.context}`{sub.path}`"
            if name not in h.properties:
                if flag(self.base, b.properties[name][0], hidden):
                    continue
                if request:
                    self.emit("request-property-removed", f"{label}: removed ({where.direction})", at)
                else:
                    check = (
                        "response-required-property-removed"
                        if name in b.required
                        else "response-optional-property-removed"
                    )
                    self.emit(check, f"{label}: removed ({where.direction})", at)
                continue
            if name not in b.properties:
                if flag(self.head, h.properties[name][0], hidden):
                    continue
                required = name in h.required
                if request:
                    check = "new-required-request-property" if required else "new-optional-request-property"
                else:
                    check = "response-required-property-added" if required else "response-optional-property-added"
                self.emit(
                    check, f"{label}: new {'required' if required else 'optional'} property ({where.direction})", at
                )
                continue
            b_hidden, h_hidden = (
                flag(self.base, b.properties[name][0], hidden),
                flag(self.head, h.properties[name][0], hidden),
            )
            if b_hidden != h_hidden:
                if request:
                    check = "request-property-became-read-only" if h_hidden else "request-property-became-not-read-only"
                else:
                    check = (
                        "response-property-became-write-only" if h_hidden else "response-property-became-not-write-only"
                    )
                    if not h_hidden and name in h.required:  # now always sent: a client may not expect it
                        check = "response-required-property-became-not-write-only"
                self.emit(check, f"{label}: {'now' if h_hidden else 'no longer'} {hidden} ({where.direction})", at)
            if b_hidden or h_hidden:
                continue
            b_req, h_req = name in b.required, name in h.required
            if b_req != h_req:
                if request:
                    check = "request-property-became-required" if h_req else "request-property-became-optional"
                else:
                    check = "response-property-became-required" if h_req else "response-property-became-optional"
                self.emit(
                    check,
                    f"{label}: now {'required' if h_req else 'optional'} ({where.direction})",
                    h.where.get("required", at),
                )
            self.schema(b.properties[name][0], b.properties[name][1], h.properties[name][0], h.properties[name][1], sub)
        # Required without being declared here (declared in a union member or nowhere) still binds a request.
        if request:
            for name in sorted(h.required - b.required - set(h.properties) - set(b.properties)):
                self.emit(
                    "request-property-undeclared-became-required",
                    f"{where.context}`{where.path}.{name}`: now required, with no schema here ({where.direction})",
                    h.at("required"),
                )


def _by_template(ops: dict[Any, Any]) -> dict[Any, Any]:
    """(path with its parameters' names blanked, method) -> (operation, path item, path as written)."""
    return {(re.sub(r"\{[^}/]*\}", "{}", path), method): (*value, path) for (path, method), value in ops.items()}


def json_media(media: str) -> bool:
    """oasdiff's strongly typed media: `application/json` and any `+json` suffix (parameters aside)."""
    essence = media.split(";")[0].strip().lower()
    return essence == "application/json" or essence.endswith("+json")


def media_relation(before: str, after: str) -> str | None:
    """How a response media type was renamed: `changed` (parameters only), `specialized` (a suffix type of
    the old one), `generalized` (the reverse), or None when the two are unrelated."""
    b, a = (m.split(";")[0].strip().lower() for m in (before, after))
    if b == a:
        return "changed"
    b_type, _, b_sub = b.partition("/")
    a_type, _, a_sub = a.partition("/")
    if b_type == a_type and a_sub.endswith(f"+{b_sub}"):
        return "specialized"
    if b_type == a_type and b_sub.endswith(f"+{a_sub}"):
        return "generalized"
    return None


def _number(value: Any) -> TypeIs[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def compare(
    base: dict[str, Any],
    head: dict[str, Any],
    severities: dict[str, Severity] | None = None,
    config: DiffConfig | None = None,
    today: date | None = None,
) -> list[Finding]:
    """Every finding from `base` to `head`, most severe first (`today` dates the sunset checks)."""
    return Comparison(base, head, severities, config, today).run()
