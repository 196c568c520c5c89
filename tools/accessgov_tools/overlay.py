"""Apply OpenAPI Overlay 1.0 and 1.1 documents; build the committed variants in `generated/variants/`.

Semantics follow the Overlay Specification 1.1.0 (https://spec.openapis.org/overlay/v1.1.0) and, for documents
that declare `overlay: 1.0.x`, 1.0.0. See docs/overlays.md for the full list and the conformance score.

- `target` (and `copy`) are RFC 9535 JSONPath queries (python-jsonpath in strict mode); actions run in order,
  each on the result of the previous one. A target that selects nothing is a successful no-op.
- `remove: true` removes each selected node from the object or array that contains it (`update`/`copy` ignored).
- `update` on objects is merged recursively: objects key by key (new keys appended, so authored order is kept),
  arrays concatenated, primitives replaced; any other combination is an error. On arrays, an array value is
  concatenated and anything else appended, in 1.1 and (as every other engine does) in 1.0; `--one-entry-arrays`
  follows 1.0's letter instead ("an entry to append": an array value becomes one nested entry). On primitives
  (1.1 only) a primitive value replaces each selected node.
- `copy` (1.1) is a query that must select exactly one node; its value is applied like an `update` value.
  `update` and `copy` are mutually exclusive. The selected nodes of an update/copy must all be of one kind.

Untrusted overlays are bounded (docs/document-limits.md): `match()` and `search()` run on RE2, linear in the text
(`accessgov_tools/iregexp.py`, I-Regexp as RFC 9535 asks); a query visits at most `max-nodes` nodes; and an action
whose result would pass the node budget (`max-nodes`, counted as the loader counts: shared values once per place)
is refused before it is applied, an `update` carrying an alias bomb or `copy` actions that double an array alike.
Each refusal is a `LimitError` naming the overlay, the action and the limit (exit 2).

Strict mode (`--strict`; what `make overlays` uses for our own overlays) adds the house rules:

- A target that selects nothing is an error naming the overlay file, the action and the target: it almost
  always means the document changed under the overlay. An action may opt out with the extension
  `x-allow-empty: true` (for filter-based housekeeping such as "drop whatever is marked `x-internal`").
- An action with neither `update`, `copy` nor `remove: true` does nothing and is rejected.
"""

from __future__ import annotations

import argparse
import copy
import difflib
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from jsonpath import JSONPathEnvironment, JSONPathError
from jsonpath.function_extensions import ExpressionType, FilterFunction

from accessgov_tools import iregexp, loader
from accessgov_tools.budget import Exceeded, Extent, extent
from accessgov_tools.bundle import dump_json, dump_yaml
from accessgov_tools.limits import DEPTH_CEILING, Limits, hint
from accessgov_tools.limits import current as current_limits
from accessgov_tools.loader import LimitError, LoadError
from accessgov_tools.paths import REPO, shown
from accessgov_tools.refs import locate

OVERLAYS_DIR = REPO / "overlays"
BASE_DOCUMENT = REPO / "generated" / "openapi.yaml"
VARIANTS_DIR = REPO / "generated" / "variants"


class _RegexFunction(FilterFunction):
    """RFC 9535's `match()` (`whole`) or `search()`, on RE2 (`accessgov_tools/iregexp.py`)."""

    @property
    def arg_types(self) -> list[ExpressionType]:
        return [ExpressionType.VALUE, ExpressionType.VALUE]

    @property
    def return_type(self) -> ExpressionType:
        return ExpressionType.LOGICAL

    def __init__(self, *, whole: bool) -> None:
        self.whole = whole

    def __call__(self, value: object, pattern: object) -> bool:
        return iregexp.matches(value, pattern, whole=self.whole)


class QueryBudgetExceeded(JSONPathError):
    """A query visited more nodes than its budget."""


class _BoundedEnvironment(JSONPathEnvironment):
    """RFC 9535 JSONPath (strict: a leading `$`, no python-jsonpath extensions such as `|`, `&` or `~`), with
    `match()`/`search()` on RE2 and a budget of nodes visited by the descendant segment (`..`) per query.

    The descendant segment reads `max_recursion_depth` once per node it visits: that read is where the visits are
    counted (python-jsonpath has no other hook), the depth it allows being the loader's ceiling."""

    def __init__(self) -> None:
        super().__init__(strict=True)
        self.visits = 0
        self.budget: int | None = None
        # Every query of one overlay together (`apply_overlay` sets it, `OVERLAY_VISITS`): thousands of actions each
        # searching the whole document are bounded like a few queries (each visit costs its depth in the library).
        self.overlay_visits = 0
        self.overlay_budget: int | None = None

    def setup_function_extensions(self) -> None:
        super().setup_function_extensions()
        self.function_extensions["match"] = _RegexFunction(whole=True)
        self.function_extensions["search"] = _RegexFunction(whole=False)

    @property
    def max_recursion_depth(self) -> int:  # type: ignore[override]
        self.visits += 1
        self.overlay_visits += 1
        if self.budget is not None and self.visits > self.budget:
            raise QueryBudgetExceeded(f"the query visits more than {self.budget:,} nodes", token=None)
        if self.overlay_budget is not None and self.overlay_visits > self.overlay_budget:
            raise QueryBudgetExceeded(
                f"the overlay's queries visit more than {self.overlay_budget:,} nodes in all", token=None
            )
        return DEPTH_CEILING + 1


JSONPATH = _BoundedEnvironment()
# The collections all of an overlay's descendant (`..`) queries may visit together: max-nodes / 40 (50,000 at the
# default; the repository's largest overlay visits 13,876 on the bundle).
OVERLAY_VISITS_DIVISOR = 40
# The patch version names no feature (Overlay 1.1.0, "Versions"), so only major.minor selects the rules.
OVERLAY_VERSION = re.compile(r"^(?P<feature_set>1\.[01])\.\d+$")
ROOT_FIELDS = {"overlay", "info", "extends", "actions"}
INFO_FIELDS = {"1.0": {"title", "version"}, "1.1": {"title", "version", "description"}}
ACTION_FIELDS = {
    "1.0": {"target", "description", "update", "remove"},
    "1.1": {"target", "description", "update", "copy", "remove"},
}
_MISSING = object()

Kind = Literal["object", "array", "primitive"]


class OverlayError(Exception):
    """An overlay document is malformed, or one of its actions cannot be applied."""


class OverlayDocumentError(OverlayError):
    """The overlay document itself is invalid: nothing of it can be applied to any document."""


class OverlayApplyError(OverlayError):
    """A valid overlay's action cannot be applied to this particular document."""


@dataclass(frozen=True)
class Action:
    """One validated action of an overlay document."""

    index: int
    target: str
    description: str | None
    update: Any  # _MISSING when absent
    copy: str | None
    remove: bool
    allow_empty: bool

    def label(self, source: str) -> str:
        """`file: actions[i] ("description")` for error messages."""
        described = f" ({self.description!r})" if self.description else ""
        return f"{source}: actions[{self.index}]{described}"

    @property
    def does_nothing(self) -> bool:
        """No modifier: schema-valid, and a no-op by the standard."""
        return not self.remove and self.update is _MISSING and self.copy is None


@dataclass(frozen=True)
class Overlay:
    """A validated overlay document and the mode it is applied in."""

    source: str
    version: str
    feature_set: str  # "1.0" or "1.1"
    title: str
    info_version: str
    description: str | None
    extends: str | None
    actions: tuple[Action, ...]
    strict: bool = False
    one_entry_arrays: bool = False  # 1.0 documents: an array `update` of an array is one entry (1.0's letter)
    path: Path | None = None  # the file it was read from, for line numbers in limit errors


def _fail(message: str) -> OverlayDocumentError:
    return OverlayDocumentError(message)


def _check_fields(where: str, raw: dict[Any, Any], known: set[str], feature_set: str) -> None:
    for key in raw:
        if key in known or (isinstance(key, str) and key.startswith("x-")):
            continue
        later = key in INFO_FIELDS["1.1"] | ACTION_FIELDS["1.1"] and feature_set == "1.0"
        hint = " (an Overlay 1.1 field: declare `overlay: 1.1.0` to use it)" if later else ""
        raise _fail(f"{where}: unknown field {key!r}{hint} (allowed: {', '.join(sorted(known))} or x-*)")


def _canonical(value: Any, made: dict[int, Any] | None = None) -> Any:
    """A hashable form in which two values are equal exactly when they are equal JSON (1 == 1.0, true != 1); a
    shared (aliased) value is made once."""
    made = {} if made is None else made
    if isinstance(value, (dict, list)):
        if id(value) not in made:
            if isinstance(value, dict):
                made[id(value)] = ("object", frozenset((str(k), _canonical(v, made)) for k, v in value.items()))
            else:
                made[id(value)] = ("array", tuple(_canonical(v, made) for v in value))
        return made[id(value)]
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return (type(value).__name__, value)
    if isinstance(value, (int, float)):
        return ("number", value)
    return ("other", repr(value))


def parse_overlay(
    doc: Any, source: str, *, strict: bool = False, one_entry_arrays: bool = False, path: Path | None = None
) -> Overlay:
    """Validate an overlay document (1.0.x or 1.1.x) and return it as an `Overlay`; `strict` adds the house rules,
    `one_entry_arrays` reads a 1.0 document's array `update` of an array as one entry (docs/overlays.md)."""
    if not isinstance(doc, dict):
        raise _fail(f"{source}: an overlay document must be a mapping, got {type(doc).__name__}")
    version = doc.get("overlay")
    if version is None:
        raise _fail(f"{source}: missing required field 'overlay' (the Overlay Specification version, 1.0.x or 1.1.x)")
    matched = OVERLAY_VERSION.match(version) if isinstance(version, str) else None
    if matched is None:
        raise _fail(f"{source}: 'overlay' must be a 1.0.x or 1.1.x version string such as '1.1.0', got {version!r}")
    feature_set = matched["feature_set"]
    _check_fields(source, doc, ROOT_FIELDS, feature_set)
    info = doc.get("info")
    if not isinstance(info, dict):
        raise _fail(f"{source}: missing required mapping 'info' (with 'title' and 'version')")
    _check_fields(f"{source}: info", info, INFO_FIELDS[feature_set], feature_set)
    for key in ("title", "version"):
        if not isinstance(info.get(key), str):
            raise _fail(f"{source}: info.{key} is required and must be a string")
    if not isinstance(info.get("description", ""), str):
        raise _fail(f"{source}: info.description must be a string")
    extends = doc.get("extends")
    if extends is not None and not isinstance(extends, str):
        raise _fail(f"{source}: 'extends' must be a URI reference string")
    raw_actions = doc.get("actions")
    if not isinstance(raw_actions, list) or not raw_actions:
        raise _fail(f"{source}: 'actions' is required and must be a non-empty list")
    actions = tuple(_parse_action(raw, i, source, feature_set, strict) for i, raw in enumerate(raw_actions))
    seen: dict[Any, int] = {}
    for i, raw in enumerate(raw_actions):
        key = _canonical(raw)
        if key in seen:
            raise _fail(f"{source}: actions[{i}] repeats actions[{seen[key]}]; actions must be unique")
        seen[key] = i
    return Overlay(
        source,
        version,
        feature_set,
        info["title"],
        info["version"],
        info.get("description"),
        extends,
        actions,
        strict,
        one_entry_arrays and feature_set == "1.0",
        path,
    )


def _compile(where: str, field: str, query: Any) -> str:
    if not isinstance(query, str) or not query.startswith("$"):
        raise _fail(f"{where}: '{field}' must be a JSONPath query starting with '$'")
    try:
        JSONPATH.compile(query)
    except JSONPathError as error:
        raise _fail(f"{where}: {field} {query!r} is not an RFC 9535 JSONPath query: {error}") from error
    return query


def _parse_action(raw: Any, index: int, source: str, feature_set: str, strict: bool) -> Action:
    where = f"{source}: actions[{index}]"
    if not isinstance(raw, dict):
        raise _fail(f"{where}: an action must be a mapping, got {type(raw).__name__}")
    _check_fields(where, raw, ACTION_FIELDS[feature_set], feature_set)
    if "target" not in raw:
        raise _fail(f"{where}: 'target' is required and must be a JSONPath query starting with '$'")
    target = _compile(where, "target", raw["target"])
    description = raw.get("description")
    if description is not None and not isinstance(description, str):
        raise _fail(f"{where}: 'description' must be a string")
    remove = raw.get("remove", False)
    if not isinstance(remove, bool):
        raise _fail(f"{where}: 'remove' must be true or false, got {remove!r}")
    source_query = _compile(where, "copy", raw["copy"]) if "copy" in raw else None
    update = raw.get("update", _MISSING)
    if source_query is not None and update is not _MISSING and not remove:
        # 1.1 says each "has no impact" if the other is there: read literally, neither applies; the copy
        # proposal (OAI/Overlay-Specification#150) made them mutually exclusive, so the document is refused.
        raise _fail(f"{where}: 'update' and 'copy' are mutually exclusive; use two actions")
    allow_empty = raw.get("x-allow-empty", False)
    action = Action(index, target, description, update, source_query, remove, allow_empty is True)
    if strict:
        if not isinstance(allow_empty, bool):
            raise _fail(f"{where}: 'x-allow-empty' must be true or false")
        if action.does_nothing:
            raise _fail(f"{where}: the action has neither 'update', 'copy' nor 'remove: true', so it would do nothing")
    return action


def load_overlay(path: Path, *, strict: bool = False, one_entry_arrays: bool = False) -> Overlay:
    """Read and validate the overlay document at `path` (JSON or YAML 1.2, `tools/accessgov_tools/loader.py`)."""
    try:
        doc = loader.load_document(path)
    except LimitError:
        raise
    except LoadError as error:
        raise _fail(f"not valid YAML/JSON: {error}") from error
    return parse_overlay(doc, shown(path), strict=strict, one_entry_arrays=one_entry_arrays, path=path)


def _kind(value: Any) -> Kind:
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    return "primitive"


def merge(target: dict[str, Any], update: dict[str, Any], where: str) -> None:
    """Recursively merge `update` into the object `target` in place (Overlay merge rules)."""
    for key, value in update.items():
        current = target.get(key, _MISSING)
        if current is _MISSING:
            target[key] = copy.deepcopy(value)
        elif isinstance(current, dict) and isinstance(value, dict):
            merge(current, value, f"{where}.{key}")
        elif isinstance(current, list) and isinstance(value, list):
            current.extend(copy.deepcopy(value))
        elif _kind(current) == "primitive" and _kind(value) == "primitive":
            target[key] = value
        else:
            raise OverlayApplyError(f"{where}.{key}: cannot merge an {_kind(value)} into an {_kind(current)}")


@dataclass(frozen=True)
class _Node:
    """A selected node: its container (None for the root), its key or index there, and its value."""

    container: Any
    key: Any
    value: Any
    depth: int = 0  # how many collections hold it


def _select(document: Any, query: str, label: str = "", limits: Limits | None = None) -> list[_Node]:
    """Each distinct node `query` selects, in document order (a node selected twice is changed once); the query
    visits at most `limits.max_nodes` nodes."""
    limits = limits or current_limits()
    JSONPATH.visits, JSONPATH.budget = 0, limits.max_nodes
    try:
        return _selected(document, query)
    except QueryBudgetExceeded as error:
        raise LimitError(
            f"{label}: document limit max-nodes: query {query!r}: {error.args[0]}{hint('max-nodes')}", "max-nodes"
        ) from None
    except JSONPathError as error:
        raise OverlayApplyError(f"{label}: query {query!r} cannot be evaluated: {error.args[0]}") from None
    finally:
        JSONPATH.budget = None


def _selected(document: Any, query: str) -> list[_Node]:
    selected: list[_Node] = []
    seen: set[str] = set()
    for match in JSONPATH.finditer(query, document):
        if match.path in seen:
            continue
        seen.add(match.path)
        if not match.parts:
            selected.append(_Node(None, None, match.obj))
            continue
        container = document
        for part in match.parts[:-1]:
            container = container[part]
        selected.append(_Node(container, match.parts[-1], match.obj, len(match.parts)))
    return selected


def _remove(nodes: list[_Node], action: Action, label: str) -> None:
    # Containers were captured before any change; removing higher array indices first keeps lower ones valid.
    for node in sorted(nodes, key=lambda n: n.key if isinstance(n.key, int) else -1, reverse=True):
        if node.container is None:
            raise OverlayApplyError(
                f"{label}: target {action.target!r} selects the document root; it cannot be removed"
            )
        if isinstance(node.container, dict):
            node.container.pop(node.key, None)
        else:
            del node.container[node.key]


def _modifier_value(document: Any, action: Action, label: str) -> tuple[str, Any]:
    """('update', value) or ('copy', a private copy of the one node the copy query selects)."""
    if action.copy is None:
        return "update", action.update
    sources = _select(document, action.copy, label)
    if len(sources) != 1:
        raise OverlayApplyError(
            f"{label}: copy {action.copy!r} selects {len(sources)} nodes; it must select exactly one"
        )
    # Copied before anything changes: the target may contain the source, or the reverse.
    return "copy", copy.deepcopy(sources[0].value)


def _apply_value(node: _Node, field: str, value: Any, action: Action, overlay: Overlay, label: str) -> None:
    feature_set = overlay.feature_set
    kind = _kind(node.value)
    if kind == "object":
        if not isinstance(value, dict):
            raise OverlayApplyError(
                f"{label}: target {action.target!r} selects an object, so '{field}' must be an object, "
                f"got {_kind(value)}"
            )
        merge(node.value, value, label)
    elif kind == "array":
        if isinstance(value, list) and not overlay.one_entry_arrays:
            node.value.extend(copy.deepcopy(value))
        else:
            node.value.append(copy.deepcopy(value))
    elif feature_set == "1.0":
        raise OverlayApplyError(
            f"{label}: target {action.target!r} selects a primitive ({node.value!r}); Overlay 1.0 can only update "
            "objects and arrays: target the containing object, or declare `overlay: 1.1.0`"
        )
    elif _kind(value) != "primitive":
        raise OverlayApplyError(
            f"{label}: target {action.target!r} selects a primitive, so '{field}' must be a primitive, "
            f"got {_kind(value)}"
        )
    else:
        node.container[node.key] = value


def _extent(value: Any, label: str) -> Extent:
    """The expanded extent of a value, as the loader counts it (a shared value once per place it is at)."""
    try:
        return extent(value)
    except Exceeded as exceeded:
        raise LimitError(f"{label}: document limit {exceeded.limit}: {exceeded.detail}", exceeded.limit) from None


class _Budget:
    """The node count of the document being changed and the limits its result must stay within."""

    def __init__(self, document: Any, limits: Limits) -> None:
        self.limits = limits
        self.nodes = _extent(document, "the document").nodes

    def _where(self, action: Action, overlay: Overlay, label: str) -> str:
        if overlay.path is None:
            return label
        line, column = locate(overlay.path, ("actions", str(action.index)), "target")
        return f"{shown(overlay.path)}:{line}:{column}: actions[{action.index}]"

    def grow(self, value: Any, nodes: list[_Node], action: Action, overlay: Overlay, label: str) -> None:
        """Refuse an update or copy of `value` at `nodes` whose result could pass the node or depth limit."""
        size = _extent(value, label)
        added = size.nodes * len(nodes)
        if self.nodes + added > self.limits.max_nodes:
            raise LimitError(
                f"{self._where(action, overlay, label)}: document limit max-nodes: the result would have more than "
                f"{self.limits.max_nodes:,} nodes ({self.nodes:,} before the action, which adds up to {added:,})"
                f"{hint('max-nodes')}",
                "max-nodes",
            )
        deepest = max(node.depth for node in nodes) + size.depth
        if deepest > self.limits.max_depth:
            raise LimitError(
                f"{self._where(action, overlay, label)}: document limit max-depth: the result would nest "
                f"{deepest} levels, more than {self.limits.max_depth}{hint('max-depth')}",
                "max-depth",
            )
        self.nodes += added


def apply_action(document: Any, action: Action, overlay: Overlay, budget: _Budget | None = None) -> Any:
    """Apply one action in place; return the (possibly new) document root. With a `budget`, an action whose
    result could pass it is refused before anything changes."""
    label = action.label(overlay.source)
    try:
        nodes = _select(document, action.target, label, budget.limits if budget else None)
    except LimitError as error:  # named where the action is written
        if budget is None or overlay.path is None:
            raise
        raise LimitError(str(error).replace(label, budget._where(action, overlay, label), 1), error.limit) from None
    if not nodes:
        if overlay.strict and not action.allow_empty:
            raise OverlayApplyError(
                f"{label}: target {action.target!r} selects no node "
                "(mark the action `x-allow-empty: true` if that is expected)"
            )
        return document
    if action.remove:
        if budget is not None:
            budget.nodes -= sum(_extent(node.value, label).nodes for node in nodes if node.container is not None)
        _remove(nodes, action, label)
        return document
    if action.does_nothing:
        return document
    field, value = _modifier_value(document, action, label)
    kinds = sorted({_kind(node.value) for node in nodes})
    if overlay.feature_set == "1.1" and len(kinds) > 1:
        raise OverlayApplyError(
            f"{label}: target {action.target!r} selects a mix of {' and '.join(kinds)} nodes; "
            "an update or copy needs them all of one kind"
        )
    if budget is not None:  # at most the value's nodes at every target (a merge may add fewer)
        budget.grow(value, nodes, action, overlay, label)
    for node in nodes:
        _apply_value(node, field, value, action, overlay, label)
    return document


def apply_overlay(overlay: Overlay, document: Any, limits: Limits | None = None) -> Any:
    """The result of applying every action of `overlay`, in order, to a copy of `document`; each action's result
    within `limits.max_nodes` (the current limits by default), and its descendant queries together visiting at
    most `max_nodes / 40` collections."""
    limits = limits or current_limits()
    result = copy.deepcopy(document)
    budget = _Budget(result, limits)
    JSONPATH.overlay_visits, JSONPATH.overlay_budget = 0, max(1, limits.max_nodes // OVERLAY_VISITS_DIVISOR)
    try:
        for action in overlay.actions:
            result = apply_action(result, action, overlay, budget)
    finally:
        JSONPATH.overlay_budget = None
    return result


def load_document(path: Path) -> Any:
    """An OpenAPI document from JSON or YAML 1.2 (`accessgov_tools/loader.py`); a load error is an
    `OverlayDocumentError`."""
    try:
        return loader.load_document(path)
    except LimitError:
        raise
    except LoadError as error:
        raise OverlayDocumentError(str(error)) from error


def render(document: Any, path: Path, *, ascii_only: bool = False) -> str:
    """The deterministic text of `document` for `path` (JSON for `.json`, YAML otherwise); `ascii_only` writes
    every other character as an escape (`\\u202e`), the same data, for a terminal (stdout)."""
    if path.suffix == ".json":
        return dump_json(document, ascii_only=ascii_only)
    return dump_yaml(document, ascii_only=ascii_only)


def variant_outputs(
    overlays_dir: Path = OVERLAYS_DIR, base: Path = BASE_DOCUMENT, out_dir: Path = VARIANTS_DIR
) -> dict[Path, str]:
    """Every variant file's path and expected text: `<out_dir>/<overlay stem>.{yaml,json}` (strict mode)."""
    document = load_document(base)
    outputs: dict[Path, str] = {}
    for overlay_path in sorted(overlays_dir.glob("*.yaml")):
        variant = apply_overlay(load_overlay(overlay_path, strict=True), document)
        for suffix in (".yaml", ".json"):
            path = out_dir / f"{overlay_path.stem}{suffix}"
            outputs[path] = render(variant, path)
    return outputs


def _write_or_check(outputs: dict[Path, str], check: bool, remedy: str) -> int:
    stale = 0
    for path, text in outputs.items():
        current = path.read_text(encoding="utf-8") if path.exists() else ""
        if check:
            if current != text:
                stale += 1
                sys.stdout.writelines(
                    difflib.unified_diff(
                        current.splitlines(keepends=True),
                        text.splitlines(keepends=True),
                        f"{shown(path)} (committed)",
                        f"{shown(path)} (regenerated)",
                    )
                )
        elif current != text:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"wrote {shown(path)}")
        else:
            print(f"unchanged {shown(path)}")
    if check and stale:
        print(f"{stale} file(s) out of date: {remedy}", file=sys.stderr)
        return 1
    if check:
        print(f"{len(outputs)} file(s) up to date")
    return 0


def _apply_command(args: argparse.Namespace) -> int:
    overlay = load_overlay(args.overlay, strict=args.strict, one_entry_arrays=args.one_entry_arrays)
    result = apply_overlay(overlay, load_document(args.input))
    if args.output is None:
        if args.check:
            raise SystemExit("error: --check needs -o OUT (the file to compare with)")
        # Without -o the result goes to stdout in the input document's format.
        sys.stdout.write(render(result, args.input, ascii_only=True))
        return 0
    return _write_or_check({args.output: render(result, args.output)}, args.check, "apply again without --check")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    apply = commands.add_parser("apply", help="apply one overlay (1.0 or 1.1) to one OpenAPI document")
    apply.add_argument("overlay", type=Path, help="the overlay document (YAML or JSON)")
    apply.add_argument("input", type=Path, help="the OpenAPI document (YAML or JSON)")
    apply.add_argument("-o", "--output", type=Path, help="write here (`.json` writes JSON, else YAML); default stdout")
    apply.add_argument("--strict", action="store_true", help="house rules: empty selections and no-op actions fail")
    apply.add_argument("--check", action="store_true", help="do not write; exit 1 with a diff if OUT differs")
    apply.add_argument(
        "--one-entry-arrays",
        action="store_true",
        help="Overlay 1.0's letter: an array `update` of an array is appended as one entry (default: concatenated)",
    )
    variants = commands.add_parser("variants", help="apply overlays/*.yaml (strict mode) to generated/openapi.yaml")
    variants.add_argument("--check", action="store_true", help="do not write; exit 1 with a diff if any differs")
    variants.add_argument("--overlays", type=Path, default=OVERLAYS_DIR)
    variants.add_argument("--base", type=Path, default=BASE_DOCUMENT)
    variants.add_argument("--out", type=Path, default=VARIANTS_DIR)
    args = parser.parse_args(argv)
    try:
        if args.command == "apply":
            return _apply_command(args)
        return _write_or_check(variant_outputs(args.overlays, args.base, args.out), args.check, "run `make overlays`")
    except (OverlayError, LimitError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
