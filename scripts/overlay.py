"""Apply OpenAPI Overlay 1.0 documents; build the committed variants in `generated/variants/`.

Semantics follow the Overlay Specification 1.0.0 (https://spec.openapis.org/overlay/v1.0.0):

- `target` is an RFC 9535 JSONPath query (python-jsonpath in strict mode); actions run in order, each on the
  result of the previous one.
- `update` on an object is merged recursively: objects key by key (new keys appended, so authored order is
  kept), arrays in the update are appended to the target's arrays, primitives replace primitives. Any other
  combination is incompatible and an error.
- `update` on an array appends the update value to it as one entry.
- `remove: true` removes each selected node from the object or array that contains it (`update` is then ignored).
- Selecting a primitive with `update`, or the document root with `remove`, is an error.

House rules, stricter than the specification:

- A target that selects nothing is an error naming the overlay file, the action and the target: it almost
  always means the document changed under the overlay. An action may opt out with the extension
  `x-allow-empty: true` (for filter-based housekeeping such as "drop whatever is marked `x-internal`").
- An action with neither `update` nor `remove: true` does nothing and is rejected.
"""

from __future__ import annotations

import argparse
import copy
import difflib
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from jsonpath import JSONPathEnvironment, JSONPathError

from scripts.bundle import REPO, dump_json, dump_yaml

OVERLAYS_DIR = REPO / "overlays"
BASE_DOCUMENT = REPO / "generated" / "openapi.yaml"
VARIANTS_DIR = REPO / "generated" / "variants"

# strict=True: RFC 9535 only (leading `$`, no python-jsonpath extensions such as `|`, `&` or `~`).
JSONPATH = JSONPathEnvironment(strict=True)
OVERLAY_VERSION = re.compile(r"^1\.0\.\d+$")
_MISSING = object()


class OverlayError(Exception):
    """An overlay document is malformed, or one of its actions cannot be applied."""


@dataclass(frozen=True)
class Action:
    """One validated action of an overlay document."""

    index: int
    target: str
    description: str | None
    update: Any  # _MISSING when absent
    remove: bool
    allow_empty: bool

    def label(self, source: str) -> str:
        """`file: actions[i] ("description")` for error messages."""
        described = f" ({self.description!r})" if self.description else ""
        return f"{source}: actions[{self.index}]{described}"


@dataclass(frozen=True)
class Overlay:
    """A validated overlay document."""

    source: str
    version: str
    title: str
    info_version: str
    extends: str | None
    actions: tuple[Action, ...]


def _extension_or(where: str, key: str, known: set[str]) -> None:
    if key not in known and not key.startswith("x-"):
        raise OverlayError(f"{where}: unknown field {key!r} (allowed: {', '.join(sorted(known))} or x-*)")


def parse_overlay(doc: Any, source: str) -> Overlay:
    """Validate the shape of an overlay document and return it as an `Overlay`."""
    if not isinstance(doc, dict):
        raise OverlayError(f"{source}: an overlay document must be a mapping, got {type(doc).__name__}")
    for key in doc:
        _extension_or(source, key, {"overlay", "info", "extends", "actions"})
    version = doc.get("overlay")
    if version is None:
        raise OverlayError(f"{source}: missing required field 'overlay' (the Overlay Specification version, 1.0.x)")
    if not isinstance(version, str) or not OVERLAY_VERSION.match(version):
        raise OverlayError(f"{source}: 'overlay' must be a 1.0.x version string such as '1.0.0', got {version!r}")
    info = doc.get("info")
    if not isinstance(info, dict):
        raise OverlayError(f"{source}: missing required mapping 'info' (with 'title' and 'version')")
    for key in info:
        _extension_or(f"{source}: info", key, {"title", "version"})
    for key in ("title", "version"):
        if not isinstance(info.get(key), str):
            raise OverlayError(f"{source}: info.{key} is required and must be a string")
    extends = doc.get("extends")
    if extends is not None and not isinstance(extends, str):
        raise OverlayError(f"{source}: 'extends' must be a URI reference string")
    raw_actions = doc.get("actions")
    if not isinstance(raw_actions, list) or not raw_actions:
        raise OverlayError(f"{source}: 'actions' is required and must be a non-empty list")
    actions = tuple(_parse_action(raw, i, source) for i, raw in enumerate(raw_actions))
    seen: dict[str, int] = {}
    for i, raw in enumerate(raw_actions):
        key = json.dumps(raw, sort_keys=True, default=str)
        if key in seen:
            raise OverlayError(f"{source}: actions[{i}] repeats actions[{seen[key]}]; actions must be unique")
        seen[key] = i
    return Overlay(source, version, info["title"], info["version"], extends, actions)


def _parse_action(raw: Any, index: int, source: str) -> Action:
    where = f"{source}: actions[{index}]"
    if not isinstance(raw, dict):
        raise OverlayError(f"{where}: an action must be a mapping, got {type(raw).__name__}")
    for key in raw:
        _extension_or(where, key, {"target", "description", "update", "remove"})
    target = raw.get("target")
    if not isinstance(target, str) or not target.startswith("$"):
        raise OverlayError(f"{where}: 'target' is required and must be a JSONPath query starting with '$'")
    try:
        JSONPATH.compile(target)
    except JSONPathError as error:
        raise OverlayError(f"{where}: target {target!r} is not an RFC 9535 JSONPath query: {error}") from error
    description = raw.get("description")
    if description is not None and not isinstance(description, str):
        raise OverlayError(f"{where}: 'description' must be a string")
    remove = raw.get("remove", False)
    if not isinstance(remove, bool):
        raise OverlayError(f"{where}: 'remove' must be true or false, got {remove!r}")
    update = raw.get("update", _MISSING)
    if not remove and update is _MISSING:
        raise OverlayError(f"{where}: the action has neither 'update' nor 'remove: true', so it would do nothing")
    allow_empty = raw.get("x-allow-empty", False)
    if not isinstance(allow_empty, bool):
        raise OverlayError(f"{where}: 'x-allow-empty' must be true or false")
    return Action(index, target, description, update, remove, allow_empty)


def load_overlay(path: Path) -> Overlay:
    """Read and validate the overlay document at `path`."""
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as error:
        raise OverlayError(f"{_display(path)}: not valid YAML/JSON: {error}") from error
    return parse_overlay(doc, _display(path))


def _display(path: Path) -> str:
    path = path.resolve()
    return str(path.relative_to(REPO)) if path.is_relative_to(REPO) else str(path)


def _kind(value: Any) -> str:
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
            raise OverlayError(f"{where}.{key}: cannot merge an {_kind(value)} into an {_kind(current)}")


def _select(document: Any, action: Action, source: str) -> list[tuple[Any, Any, Any]]:
    """(container, key, node) for each distinct node the action's target selects; container is None for root."""
    selected: list[tuple[Any, Any, Any]] = []
    seen: set[str] = set()
    for match in JSONPATH.finditer(action.target, document):
        if match.path in seen:
            continue
        seen.add(match.path)
        if not match.parts:
            selected.append((None, None, match.obj))
            continue
        container = document
        for part in match.parts[:-1]:
            container = container[part]
        selected.append((container, match.parts[-1], match.obj))
    if not selected and not action.allow_empty:
        raise OverlayError(
            f"{action.label(source)}: target {action.target!r} selects no node "
            "(mark the action `x-allow-empty: true` if that is expected)"
        )
    return selected


def apply_action(document: Any, action: Action, source: str) -> Any:
    """Apply one action in place; return the (possibly new) document root."""
    selected = _select(document, action, source)
    label = action.label(source)
    if action.remove:
        # Containers were captured before any change; removing higher array indices first keeps lower ones valid.
        for container, key, _ in sorted(selected, key=lambda s: s[1] if isinstance(s[1], int) else -1, reverse=True):
            if container is None:
                raise OverlayError(f"{label}: target {action.target!r} selects the document root; it cannot be removed")
            if isinstance(container, dict):
                container.pop(key, None)
            else:
                del container[key]
        return document
    for _, _, node in selected:
        if isinstance(node, dict):
            if not isinstance(action.update, dict):
                raise OverlayError(
                    f"{label}: target {action.target!r} selects an object, so 'update' must be an object, "
                    f"got {_kind(action.update)}"
                )
            merge(node, action.update, label)
        elif isinstance(node, list):
            node.append(copy.deepcopy(action.update))
        else:
            raise OverlayError(
                f"{label}: target {action.target!r} selects a primitive ({node!r}); target its containing object "
                "and update the property there"
            )
    return document


def apply_overlay(overlay: Overlay, document: Any) -> Any:
    """The result of applying every action of `overlay`, in order, to a copy of `document`."""
    result = copy.deepcopy(document)
    for action in overlay.actions:
        result = apply_action(result, action, overlay.source)
    return result


def load_document(path: Path) -> Any:
    """An OpenAPI document from YAML or JSON (libyaml's loader when available: same result, much faster)."""
    return yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def render(document: Any, path: Path) -> str:
    """The deterministic text of `document` for `path` (JSON for `.json`, YAML otherwise)."""
    return dump_json(document) if path.suffix == ".json" else dump_yaml(document)


def variant_outputs(
    overlays_dir: Path = OVERLAYS_DIR, base: Path = BASE_DOCUMENT, out_dir: Path = VARIANTS_DIR
) -> dict[Path, str]:
    """Every variant file's path and expected text: `<out_dir>/<overlay stem>.{yaml,json}`."""
    document = load_document(base)
    outputs: dict[Path, str] = {}
    for overlay_path in sorted(overlays_dir.glob("*.yaml")):
        variant = apply_overlay(load_overlay(overlay_path), document)
        for suffix in (".yaml", ".json"):
            path = out_dir / f"{overlay_path.stem}{suffix}"
            outputs[path] = render(variant, path)
    return outputs


def _write_or_check(outputs: dict[Path, str], check: bool) -> int:
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
                        f"{_display(path)} (committed)",
                        f"{_display(path)} (regenerated)",
                    )
                )
        elif current != text:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(f"wrote {_display(path)}")
        else:
            print(f"unchanged {_display(path)}")
    if check and stale:
        print(f"{stale} file(s) out of date: run `python -m scripts.overlay variants`", file=sys.stderr)
        return 1
    if check:
        print(f"{len(outputs)} file(s) up to date")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    apply = commands.add_parser("apply", help="apply one overlay to one document")
    apply.add_argument("overlay", type=Path)
    apply.add_argument("input", type=Path)
    apply.add_argument("output", type=Path, help="`.json` writes JSON, anything else YAML")
    apply.add_argument("--check", action="store_true", help="do not write; exit 1 with a diff if OUTPUT differs")
    variants = commands.add_parser("variants", help="apply overlays/*.yaml to generated/openapi.yaml")
    variants.add_argument("--check", action="store_true", help="do not write; exit 1 with a diff if any differs")
    variants.add_argument("--overlays", type=Path, default=OVERLAYS_DIR)
    variants.add_argument("--base", type=Path, default=BASE_DOCUMENT)
    variants.add_argument("--out", type=Path, default=VARIANTS_DIR)
    args = parser.parse_args(argv)
    try:
        if args.command == "apply":
            result = apply_overlay(load_overlay(args.overlay), load_document(args.input))
            return _write_or_check({args.output: render(result, args.output)}, args.check)
        return _write_or_check(variant_outputs(args.overlays, args.base, args.out), args.check)
    except OverlayError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
