"""Bundle the split spec (`spec/openapi.yaml` and the files it references) into one document.

prance resolves every file reference; each file is read by the one resolver (`accessgov_tools/refs.py`: inside the
spec root, no network, the loader's limits and errors with file, line and column) and handed to prance through its
reference cache, so prance reads no file of its own. Its resolver shares one Python object
per reference target, so every place that referenced a component file holds the very object stored under
`components`; the hoisting step turns those places back into `#/components/...` references. The bundle
therefore keeps components as components instead of inlining them everywhere.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlparse
from urllib.request import url2pathname

import yaml
from prance.util.resolver import RESOLVE_FILES, RefResolver
from prance.util.url import ResolutionError, absurl

from accessgov_tools.budget import Exceeded, measure_value
from accessgov_tools.limits import current as current_limits
from accessgov_tools.loader import CORE_SCHEMA, LimitError, LoadError
from accessgov_tools.paths import REPO, shown
from accessgov_tools.refs import References, RefError, check_local_cycles, is_local, references_in

DEFAULT_ROOT = REPO / "spec" / "openapi.yaml"
DEFAULT_OUT = REPO / "generated" / "openapi"


class _LoadedFiles(dict[Any, Any]):
    """prance's reference cache, filled on first use by the one resolver: prance looks a parsed file up as
    `(file URL, strict)` before it would read and parse the file itself; every look-up is answered here (or
    refused), so it never does."""

    def __init__(self, references: References) -> None:
        super().__init__()
        self.references = references

    def get(self, key: Any, default: Any = None) -> Any:
        if key in self:
            return super().get(key, default)
        if isinstance(key, tuple) and len(key) == 2 and str(key[0]).startswith("file:"):
            self[key] = self.references.document(Path(url2pathname(urlparse(str(key[0])).path)))
            return self[key]
        raise RefError(f"{key!r}: reference rule network: prance asked for a document that is not a file", "network")


def _cycle(references: References) -> Any:
    """prance's recursion handler: a file reference that leads back to itself is refused, never unrolled."""

    def refuse(limit: int, parsed_url: Any, recursions: Any = ()) -> Any:
        target = Path(url2pathname(parsed_url.path))
        parent = Path(url2pathname(urlparse(str(recursions[0][0])).path)) if recursions else target
        raise references.cycle_error(parent, target)

    return refuse


def resolve_files(root: Path) -> dict[str, Any]:
    """Inline every file `$ref` below `root`'s directory with prance, keeping internal refs as they are."""
    root = root.resolve()
    references = References(root.parent)
    spec = references.document(root)
    resolver = RefResolver(
        spec,
        absurl(str(root)),
        resolve_types=RESOLVE_FILES,
        reference_cache=_LoadedFiles(references),
        recursion_limit_handler=_cycle(references),
    )
    try:
        resolver.resolve_references()
    except ResolutionError as error:  # a fragment naming nothing in its file
        raise RefError(
            f"{shown(root)}:1:1: reference rule unresolvable: {' '.join(str(error).split())}", "unresolvable"
        ) from None
    specs: dict[str, Any] = resolver.specs
    return specs


def hoist_components(doc: dict[str, Any]) -> dict[str, Any]:
    """Replace every non-definition occurrence of a component object with a `$ref` to it."""
    components = doc.get("components") or {}
    index = {
        id(node): f"#/components/{kind}/{name}"
        for kind, entries in components.items()
        for name, node in (entries or {}).items()
        if isinstance(node, dict)
    }

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            items = list(node.items())
        elif isinstance(node, list):
            items = list(enumerate(node))
        else:
            return
        for key, child in items:
            if isinstance(child, dict) and id(child) in index:
                node[key] = {"$ref": index[id(child)]}
            else:
                walk(child)

    for kind, entries in components.items():
        for name, definition in (entries or {}).items():
            # The definition itself stays; only what it contains is rewritten.
            walk(definition)
            components[kind][name] = definition
    for key, value in doc.items():
        if key != "components":
            walk(value)
    # A JSON round trip turns prance's ruamel containers into plain ones and drops any remaining sharing.
    plain: dict[str, Any] = json.loads(json.dumps(doc))
    return plain


def bundle(root: Path = DEFAULT_ROOT) -> dict[str, Any]:
    """The bundled document for the split spec at `root`, held to the node budget once its shared parts are
    written out (files that each reference the next twice would double at every step), its local references
    free of cycles."""
    resolved = resolve_files(root)
    limits = current_limits()
    try:
        measure_value(resolved, limits)
    except Exceeded as exceeded:
        raise LimitError(
            f"{shown(root)}:1:1: document limit {exceeded.limit}: the bundle, its file references inlined, has "
            f"{exceeded.detail}",
            exceeded.limit,
        ) from None
    document = hoist_components(resolved)
    for pointer, ref in references_in(document):
        if References.file_of(ref, root.parent) is not None and not is_local(ref):  # what prance left: a cycle
            where = "/".join(pointer)
            raise RefError(
                f"{shown(root)}:1:1: reference rule ref-cycle: $ref {ref!r} (at /{where} of the bundle) leads back "
                "to itself: a file reference cycle",
                "ref-cycle",
            )
    check_local_cycles(document, source=f"{shown(root)} (bundled)")
    return document


class _NoAliasDumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:
        return True


# PyYAML writes YAML 1.1: a string such as `1e3` or `0o17` is plain there but a number to a YAML 1.2 reader (ours,
# and most tools'), so the 1.2 core schema's patterns make the dumper quote such strings too.
for _tag, _pattern, _first in CORE_SCHEMA:
    _NoAliasDumper.add_implicit_resolver(f"tag:yaml.org,2002:{_tag}", re.compile(_pattern), [*_first, ""])


def dump_yaml(doc: dict[str, Any], *, ascii_only: bool = False) -> str:
    """Deterministic YAML: authored key order, no anchors, no line folding surprises (`ascii_only`: every other
    character escaped, the same data, for a terminal)."""
    return yaml.dump(doc, Dumper=_NoAliasDumper, sort_keys=False, allow_unicode=not ascii_only, width=110)


def dump_json(doc: dict[str, Any], *, ascii_only: bool = False) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=ascii_only) + "\n"


def write_bundle(doc: dict[str, Any], out_stem: Path) -> list[Path]:
    """Write `<stem>.yaml` and `<stem>.json`; return the paths written."""
    out_stem.parent.mkdir(parents=True, exist_ok=True)
    yaml_path, json_path = out_stem.with_suffix(".yaml"), out_stem.with_suffix(".json")
    yaml_path.write_text(dump_yaml(doc), encoding="utf-8")
    json_path.write_text(dump_json(doc), encoding="utf-8")
    return [yaml_path, json_path]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT, help="root document of the split spec")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output path without extension")
    args = parser.parse_args(argv)
    try:
        doc = bundle(args.root)
    except LoadError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    for path in write_bundle(doc, args.out):
        print(f"bundled {shown(path)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
