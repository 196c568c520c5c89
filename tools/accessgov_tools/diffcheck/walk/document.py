"""The walk of two documents: security schemes, then operations (paths and webhooks) and what each holds.

Operations are paired by path template and method (`/a/{id}` and `/a/{aId}` are one path with a renamed
parameter), parameters by place and name (path parameters by position), responses by status, media types by
name (a response's lone removed media type with its lone added one when they are related), headers by name
whatever their case. Every difference found while an operation is walked reaches it; a security scheme's reach
every operation that uses it.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from accessgov_tools.diffcheck.lifecycle import INVALID, rank, stability, sunset
from accessgov_tools.diffcheck.model import REQUEST, RESPONSE, Pointer
from accessgov_tools.diffcheck.resolve import Document
from accessgov_tools.diffcheck.walk.differences import (
    DeprecationChanged,
    Difference,
    FlowChanged,
    FlowScopeChanged,
    FlowUrlChanged,
    HeaderAdded,
    HeaderDeprecatedChanged,
    HeaderRemoved,
    HeaderRequiredChanged,
    MediaTypeChanged,
    MediaTypeRenamed,
    OperationAdded,
    OperationIdChanged,
    OperationRemoved,
    ParameterAdded,
    ParameterRemoved,
    ParameterRequiredChanged,
    RequestBodyAdded,
    RequestBodyRemoved,
    RequestBodyRequiredChanged,
    RequirementChanged,
    RequirementScopes,
    ResponseChanged,
    SchemeAdded,
    SchemeChanged,
    SchemeRemoved,
    StabilityChanged,
    TagChanged,
    VersionCompared,
    Where,
)
from accessgov_tools.diffcheck.walk.schemas import Recorder, SchemaWalk
from accessgov_tools.display import quote

Operations = dict[tuple[str, str], tuple[dict[str, Any], dict[str, Any]]]


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


def effective_security(doc: Document, op: dict[Any, Any]) -> list[dict[str, set[str]]]:
    """The alternatives an operation accepts; `{}` is the anonymous one (no or empty requirement list)."""
    value = op["security"] if "security" in op else doc.raw.get("security")
    if not value:
        return [{}]
    return [{name: set(scopes or []) for name, scopes in (req or {}).items()} for req in value]


def _scheme_users(ops: Operations, doc: Document, wanted: set[str]) -> dict[str, list[str]]:
    """The operations (labels, in path order) that name each of the security schemes `wanted` (the schemes that
    changed): the operations that inherit the document's requirements share one set of their names, gathered once,
    so the work is one pass over the operations and the requirements written on them, plus the labels reported."""
    users: dict[str, list[str]] = {name: [] for name in wanted}
    if not wanted:
        return users
    inherited: set[str] | None = None
    for (path, method), (op, _) in sorted(ops.items()):
        if "security" in op:
            named = {name for requirement in effective_security(doc, op) for name in requirement}
        else:
            if inherited is None:
                inherited = {name for requirement in effective_security(doc, op) for name in requirement}
            named = inherited
        label = f"{method.upper()} {path}" + (f" ({op['operationId']})" if op.get("operationId") else "")
        for name in wanted & named if len(wanted) < len(named) else (n for n in named if n in wanted):
            users[name].append(label)
    return users


# (names, added, None) for a requirement alternative removed or added, (names, False, (scheme, scopes added,
# scopes removed)) for one whose scopes changed.
_NONE = object()  # a scheme missing on one side


def _refers(scheme: Any) -> bool:
    """Whether a security scheme is a `$ref` (what it names may have changed while it is written alike)."""
    return isinstance(scheme, dict) and "$ref" in scheme


RequirementChange = tuple[frozenset[str], bool, tuple[str, frozenset[str], frozenset[str]] | None]


def _requirement_changes(
    before: list[dict[str, set[str]]], after: list[dict[str, set[str]]]
) -> list[RequirementChange]:
    base = {frozenset(r): r for r in before}
    head = {frozenset(r): r for r in after}
    changes: list[RequirementChange] = []
    changes.extend((names, False, None) for names in sorted(set(base) - set(head), key=sorted))
    changes.extend((names, True, None) for names in sorted(set(head) - set(base), key=sorted))
    for names in sorted(set(base) & set(head), key=sorted):
        for scheme in sorted(names):
            added, removed = head[names][scheme] - base[names][scheme], base[names][scheme] - head[names][scheme]
            if added or removed:
                changes.append((names, False, (scheme, frozenset(added), frozenset(removed))))
    return changes


def _lifecycle_changed(before: dict[Any, Any], after: dict[Any, Any]) -> bool:
    """Whether `deprecated` or its `x-sunset` differ (what a deprecation rule may report)."""
    b_dep, h_dep = before.get("deprecated") is True, after.get("deprecated") is True
    return b_dep != h_dep or (h_dep and sunset(before) != sunset(after))


def _stability_changed(before: dict[Any, Any], after: dict[Any, Any]) -> bool:
    levels = (stability(before), stability(after))
    return levels[0] != levels[1] or INVALID in levels


class DocumentWalk:
    """One walk of `base` against `head`; `run()` returns the differences in the order found."""

    def __init__(self, base: dict[str, Any], head: dict[str, Any], stability_level: str = "beta") -> None:
        self.base, self.head = Document(base), Document(head)
        self.stability_level = stability_level  # operations below it are not compared (oasdiff's threshold)
        self.log = Recorder()
        self.schemas = SchemaWalk(self.base, self.head, self.log)
        self._inherited: list[RequirementChange] | None = None  # the document's requirements, compared once

    def run(self) -> list[Difference]:
        base_ops, head_ops = self.base.operations(), self.head.operations()
        self._security_schemes(base_ops, head_ops)
        self._section("paths", base_ops, head_ops)
        self._section("webhooks", self.base.operations("webhooks"), self.head.operations("webhooks"))
        before = (self.base.raw.get("info") or {}).get("version")
        after = (self.head.raw.get("info") or {}).get("version")
        self.log.add(VersionCompared(head=("info", "version"), base=("info", "version"), before=before, after=after))
        return self.log.differences

    def _below_threshold(self, node: dict[str, Any]) -> bool:
        """Whether an operation's stability is below the threshold (its changes are not reported)."""
        level = stability(node)
        return level not in (None, INVALID) and rank(level) < rank(self.stability_level)

    def _section(self, section: str, base_ops: dict[Any, Any], head_ops: dict[Any, Any]) -> None:
        """The operations of `paths` or of `webhooks` (compared like paths, in the same directions, as oasdiff)."""
        webhook = section == "webhooks"
        base_ops, head_ops = _by_template(base_ops), _by_template(head_ops)
        for key in sorted(set(base_ops) | set(head_ops)):
            _, method = key
            op, _item, path = head_ops.get(key) or base_ops[key]
            label = f"{method.upper()} {'webhook ' if webhook else ''}{path}" + (
                f" ({op['operationId']})" if op.get("operationId") else ""
            )
            pointer = (section, path, method)
            if key in base_ops and self._below_threshold(base_ops[key][0]):
                if key in head_ops:  # below the stability threshold: only its stability is reported
                    self.log.reaching([label], self._stability, base_ops[key][0], op, pointer)
                continue
            if key not in head_ops:
                removed = OperationRemoved(head=pointer, base=pointer, label=label, webhook=webhook, operation=op)
                self.log.reaching([label], self.log.add, removed)
            elif key not in base_ops:
                self.log.reaching([label], self.log.add, OperationAdded(head=pointer, label=label, webhook=webhook))
            else:
                b_pointer = (section, base_ops[key][2], method)
                self.log.reaching([label], self._operation, pointer, base_ops[key][:2], head_ops[key][:2], b_pointer)

    def _stability(self, b_op: dict[Any, Any], h_op: dict[Any, Any], pointer: Pointer) -> None:
        if _stability_changed(b_op, h_op):
            self.log.add(
                StabilityChanged(
                    head=pointer, base=pointer, thing="operation", label="operation", before=b_op, after=h_op
                )
            )

    def _security_schemes(self, base_ops: Operations, head_ops: Operations) -> None:
        base = (self.base.raw.get("components") or {}).get("securitySchemes") or {}
        head = (self.head.raw.get("components") or {}).get("securitySchemes") or {}
        changed = {
            name
            for name in set(base) | set(head)
            if base.get(name, _NONE) != head.get(name, _NONE) or _refers(base.get(name)) or _refers(head.get(name))
        }
        base_users = _scheme_users(base_ops, self.base, changed - set(head))
        head_users = _scheme_users(head_ops, self.head, changed & set(head))
        for name in sorted(changed):  # a scheme written alike on both sides has no difference to report
            pointer = ("components", "securitySchemes", name)
            gone = name not in head
            users = (base_users if gone else head_users)[name]
            if gone:
                self.log.reaching(users, self.log.add, SchemeRemoved(head=pointer, base=pointer, name=name))
            elif name not in base:
                self.log.reaching(users, self.log.add, SchemeAdded(head=pointer, name=name))
            else:
                b, _ = self.base.deref(base[name], pointer)
                h, _ = self.head.deref(head[name], pointer)
                self.log.reaching(users, self._security_scheme, name, b, h, pointer)

    def _security_scheme(self, name: str, b: dict[Any, Any], h: dict[Any, Any], pointer: Pointer) -> None:
        for key in ("type", "scheme", "in", "name", "bearerFormat"):
            if b.get(key) != h.get(key):
                at = (*pointer, key) if key in h else pointer
                self.log.add(
                    SchemeChanged(head=at, base=pointer, name=name, field=key, before=b.get(key), after=h.get(key))
                )
        base_flows, head_flows = b.get("flows") or {}, h.get("flows") or {}
        for flow in sorted(set(base_flows) & set(head_flows)):
            bf, hf = base_flows[flow] or {}, head_flows[flow] or {}
            at = (*pointer, "flows", flow)
            for url in ("tokenUrl", "authorizationUrl"):
                if bf.get(url) != hf.get(url):
                    self.log.add(
                        FlowUrlChanged(
                            head=(*at, url), base=(*at, url), name=name, flow=flow, url=url, before=bf.get(url),
                            after=hf.get(url),
                        )
                    )  # fmt: skip
            bs, hs = set(bf.get("scopes") or {}), set(hf.get("scopes") or {})
            for scope in sorted(bs - hs):
                self.log.add(
                    FlowScopeChanged(
                        head=(*at, "scopes"), base=(*at, "scopes", scope), name=name, flow=flow, scope=scope,
                        added=False,
                    )
                )  # fmt: skip
            for scope in sorted(hs - bs):
                self.log.add(
                    FlowScopeChanged(head=(*at, "scopes", scope), name=name, flow=flow, scope=scope, added=True)
                )
        for flow in sorted(set(base_flows) ^ set(head_flows)):
            self.log.add(FlowChanged(head=(*pointer, "flows"), name=name, flow=flow, added=flow not in base_flows))

    # --- one operation ----------------------------------------------------------------------------------------

    def _operation(
        self,
        pointer: Pointer,
        base: tuple[dict[Any, Any], dict[Any, Any]],
        head: tuple[dict[Any, Any], dict[Any, Any]],
        b_pointer: Pointer,
    ) -> None:
        """One operation on both sides; `b_pointer` is where it is in the base (its path may be written with
        other parameter names)."""
        (b_op, b_item), (h_op, h_item) = base, head
        b_id, h_id = b_op.get("operationId"), h_op.get("operationId")
        if (b_id and b_id != h_id) or (h_id and not b_id):
            at = (*pointer, "operationId")
            self.log.add(OperationIdChanged(head=at, base=(*b_pointer, "operationId"), before=b_id, after=h_id))
        level = self.schemas.level = stability(h_op)
        if _lifecycle_changed(b_op, h_op):
            self.log.add(
                DeprecationChanged(
                    head=pointer, base=b_pointer, thing="operation", label="operation", before=b_op, after=h_op,
                    level=level,
                )
            )  # fmt: skip
        self._stability(b_op, h_op, pointer)
        b_tags, h_tags = set(b_op.get("tags") or []), set(h_op.get("tags") or [])
        for tag in sorted(b_tags - h_tags):
            self.log.add(TagChanged(head=(*pointer, "tags"), base=(*b_pointer, "tags"), tag=tag, added=False))
        for tag in sorted(h_tags - b_tags):
            self.log.add(TagChanged(head=(*pointer, "tags"), tag=tag, added=True))
        self._security(pointer, b_op, h_op)
        self._parameters(pointer, b_op, b_item, h_op, h_item, b_pointer)
        self._request_body(pointer, b_op.get("requestBody"), h_op.get("requestBody"))
        self._responses(pointer, b_op.get("responses") or {}, h_op.get("responses") or {})

    def _security(self, pointer: Pointer, b_op: dict[Any, Any], h_op: dict[Any, Any]) -> None:
        declared = "security" in b_op or "security" in h_op
        at: Pointer = (*pointer, "security") if declared else ("security",)
        if "security" not in h_op and declared:
            at = pointer
        if declared:
            changes = _requirement_changes(effective_security(self.base, b_op), effective_security(self.head, h_op))
        else:  # both inherit the document's: compared once for every operation that does
            if self._inherited is None:
                self._inherited = _requirement_changes(
                    effective_security(self.base, b_op), effective_security(self.head, h_op)
                )
            changes = self._inherited
        for names, added, scopes in changes:
            if scopes is None:
                self.log.add(RequirementChanged(head=at, declared=declared, names=names, added=added))
            else:
                scheme, more, fewer = scopes
                self.log.add(RequirementScopes(head=at, declared=declared, scheme=scheme, added=more, removed=fewer))

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
            label = f"{where_in} parameter {quote(name)}"
            if key not in head:
                removed, b_at = base[key]
                self.log.add(
                    ParameterRemoved(
                        head=(*pointer, "parameters"), base=b_at, direction=REQUEST, label=label, parameter=removed
                    )
                )
                continue
            h, h_at = head[key]
            h_required = bool(h.get("required")) or where_in == "path"
            if key not in base:
                self.log.add(ParameterAdded(head=h_at, direction=REQUEST, label=label, required=h_required))
                continue
            b, b_at = base[key]
            b_required = bool(b.get("required")) or where_in == "path"
            if h_required != b_required:
                at = (*h_at, "required") if "required" in h else h_at
                self.log.add(
                    ParameterRequiredChanged(head=at, base=b_at, direction=REQUEST, label=label, required=h_required)
                )
            if _lifecycle_changed(b, h):
                self.log.add(
                    DeprecationChanged(
                        head=h_at, base=b_at, direction=REQUEST, thing="parameter", label=label, before=b, after=h,
                        level=self.schemas.level,
                    )
                )  # fmt: skip
            if "schema" in b and "schema" in h:
                self.schemas.compare(
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
            self.log.add(RequestBodyAdded(head=h_at, direction=REQUEST, required=bool(h.get("required"))))
            return
        if not h:
            self.log.add(RequestBodyRemoved(head=at, base=b_at, direction=REQUEST))
            return
        if bool(b.get("required")) != bool(h.get("required")):
            required_at = (*h_at, "required") if "required" in h else h_at
            self.log.add(
                RequestBodyRequiredChanged(
                    head=required_at, base=b_at, direction=REQUEST, required=bool(h.get("required"))
                )
            )
        self._media_types(
            Where(REQUEST, "property", "request body"),
            None,
            (b.get("content") or {}, b_at),
            (h.get("content") or {}, h_at),
            (*h_at, "content"),
        )

    def _responses(self, pointer: Pointer, base: dict[Any, Any], head: dict[Any, Any]) -> None:
        at = (*pointer, "responses")
        for status in sorted(set(map(str, base)) | set(map(str, head))):
            b_raw, h_raw = (
                base.get(status, base.get(int(status)) if status.isdigit() else None),
                head.get(status, head.get(int(status)) if status.isdigit() else None),
            )
            if h_raw is None:
                self.log.add(
                    ResponseChanged(head=at, base=(*at, status), direction=RESPONSE, status=status, added=False)
                )
                continue
            if b_raw is None:
                self.log.add(ResponseChanged(head=(*at, status), direction=RESPONSE, status=status, added=True))
                continue
            b, b_at = self.base.deref(b_raw, (*at, status))
            h, h_at = self.head.deref(h_raw, (*at, status))
            self._headers(status, b.get("headers") or {}, b_at, h.get("headers") or {}, h_at)
            b_content, h_content = b.get("content") or {}, h.get("content") or {}
            b_content = self._renamed_media(status, b_content, h_content, h_at)
            self._media_types(
                Where(RESPONSE, "property", f"response {status}"),
                status,
                (b_content, b_at),
                (h_content, h_at),
                (*h_at, "content") if h_content else h_at,
            )

    def _media_types(
        self,
        body: Where,
        status: str | None,
        base: tuple[dict[Any, Any], Pointer],
        head: tuple[dict[Any, Any], Pointer],
        removed_at: Pointer,
    ) -> None:
        """A body's media types (`content`, with the pointer of the body) on both sides, of a request body
        (`status` None) or a response: one removed or added is a difference; the schemas of one on both sides
        are compared where `body` is, its path followed by the media type."""
        (b_content, b_at), (h_content, h_at) = base, head
        direction = body.direction
        for media in sorted(set(b_content) | set(h_content)):
            if media not in h_content:
                self.log.add(
                    MediaTypeChanged(
                        head=removed_at, base=(*b_at, "content", media), direction=direction, status=status,
                        media=media, added=False,
                    )
                )  # fmt: skip
            elif media not in b_content:
                self.log.add(
                    MediaTypeChanged(
                        head=(*h_at, "content", media), direction=direction, status=status, media=media, added=True
                    )
                )
            elif "schema" in b_content[media] and "schema" in h_content[media]:
                self.schemas.compare(
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
        self.log.add(
            MediaTypeRenamed(
                head=(*h_at, "content", added[0]), direction=RESPONSE, status=status, before=removed[0],
                after=added[0], relation=relation,
            )
        )  # fmt: skip
        return {(added[0] if k == removed[0] else k): v for k, v in base.items()}

    def _headers(self, status: str, base: dict[Any, Any], b_at: Pointer, head: dict[Any, Any], h_at: Pointer) -> None:
        b_map = {str(k).lower(): (k, v) for k, v in base.items()}
        h_map = {str(k).lower(): (k, v) for k, v in head.items()}
        for name in sorted(set(b_map) | set(h_map)):
            shown = (h_map.get(name) or b_map[name])[0]
            label = f"response {status} header {quote(shown)}"
            if name not in h_map:
                b, _ = self.base.deref(b_map[name][1], ())
                at = (*h_at, "headers") if head else h_at
                self.log.add(HeaderRemoved(head=at, direction=RESPONSE, label=label, required=bool(b.get("required"))))
                continue
            h, h_ptr = self.head.deref(h_map[name][1], (*h_at, "headers", h_map[name][0]))
            if name not in b_map:
                self.log.add(HeaderAdded(head=h_ptr, direction=RESPONSE, label=label))
                continue
            b, b_ptr = self.base.deref(b_map[name][1], (*b_at, "headers", b_map[name][0]))
            b_required, h_required = bool(b.get("required")), bool(h.get("required"))
            if h_required != b_required:
                at = (*h_ptr, "required") if "required" in h else h_ptr
                self.log.add(
                    HeaderRequiredChanged(head=at, base=b_ptr, direction=RESPONSE, label=label, required=h_required)
                )
            if bool(b.get("deprecated")) != bool(h.get("deprecated")):
                deprecated = bool(h.get("deprecated"))
                at = (*h_ptr, "deprecated") if deprecated else h_ptr
                self.log.add(
                    HeaderDeprecatedChanged(head=at, base=b_ptr, direction=RESPONSE, label=label, deprecated=deprecated)
                )
            if "schema" in b and "schema" in h:
                self.schemas.compare(
                    b["schema"],
                    (*b_ptr, "schema"),
                    h["schema"],
                    (*h_ptr, "schema"),
                    Where(RESPONSE, "header", str(shown), f"response {status} header "),
                )
