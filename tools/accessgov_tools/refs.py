"""The one resolver of `$ref`s: every file a reference names is read by the loader, inside the spec root only.

The bundler (prance, through its reference cache) and the validator (openapi-spec-validator, through `referencing`'s
`retrieve`) both ask `References` for what a `$ref` names; neither library reads a file or opens a connection of
its own. The rules (docs/document-limits.md):

- A file reference (relative, absolute or `file://`) must name a file inside the spec root once every symlink on the
  way is resolved: `../`, `/etc/passwd`, `file:///...` or a link that leads out is refused (`spec-root`).
- A network reference (`http://`, `https://`, any other scheme) is refused (`network`) unless a prefix of it is in
  the allow-list (`ACCESSGOV_REF_ALLOW`, space- or comma-separated, or `accessgov-tools --allow-ref URL`; empty by
  default); an allowed one is fetched with a timeout, no redirects, and the loader's limits.
- A chain of references that leads back to itself is refused (`ref-cycle`), a file reference too: never a recursion.

Each refusal is a `RefError` (a `LimitError`): `file:line:column: ... reference rule NAME ...`, exit 2.
"""

from __future__ import annotations

import bisect
import os
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

import yaml

from accessgov_tools import loader
from accessgov_tools.limits import Limits, hint
from accessgov_tools.limits import current as current_limits
from accessgov_tools.loader import LimitError, LoadError
from accessgov_tools.paths import shown

if TYPE_CHECKING:
    from referencing import Resource

ALLOW_VARIABLE = "ACCESSGOV_REF_ALLOW"
FETCH_TIMEOUT = 10.0  # seconds, for an allowed network reference

Pointer = tuple[str, ...]


class RefError(LimitError):
    """A `$ref` the rules refuse, or a reference cycle; the message names the file, line, column and the rule."""


_allowed: tuple[str, ...] | None = None


def allowed() -> tuple[str, ...]:
    """The URL prefixes network references may name: `configure_allowed`'s, else `ACCESSGOV_REF_ALLOW`'s."""
    if _allowed is not None:
        return _allowed
    return tuple(part for part in os.environ.get(ALLOW_VARIABLE, "").replace(",", " ").split() if part)


def configure_allowed(prefixes: Sequence[str] | None) -> None:
    """Put `prefixes` in force for this process (None: `ACCESSGOV_REF_ALLOW` again)."""
    global _allowed
    _allowed = None if prefixes is None else tuple(prefixes)


def references_in(document: Any) -> Iterator[tuple[Pointer, str]]:
    """(pointer of the object holding it, the reference) for every string `$ref` in `document`, each shared
    (aliased) object walked once."""
    seen: set[int] = set()
    stack: list[tuple[Any, Pointer]] = [(document, ())]
    while stack:
        node, pointer = stack.pop()
        if isinstance(node, dict):
            if id(node) in seen:
                continue
            seen.add(id(node))
            ref = node.get("$ref")
            if isinstance(ref, str):
                yield pointer, ref
            stack.extend((value, (*pointer, str(key))) for key, value in reversed(node.items()))
        elif isinstance(node, list):
            if id(node) in seen:
                continue
            seen.add(id(node))
            stack.extend((value, (*pointer, str(index))) for index, value in reversed(list(enumerate(node))))


def external_values(document: Any) -> Iterator[tuple[Pointer, str]]:
    """(pointer of the Example object, its URL) for every string `externalValue` (a URL a reader may fetch), each
    shared object walked once."""
    seen: set[int] = set()
    stack: list[tuple[Any, Pointer]] = [(document, ())]
    while stack:
        node, pointer = stack.pop()
        if isinstance(node, (dict, list)):
            if id(node) in seen:
                continue
            seen.add(id(node))
        if isinstance(node, dict):
            if isinstance(node.get("externalValue"), str):
                yield pointer, node["externalValue"]
            stack.extend((value, (*pointer, str(key))) for key, value in node.items())
        elif isinstance(node, list):
            stack.extend((value, (*pointer, str(index))) for index, value in enumerate(node))


def _child(node: yaml.Node, token: str) -> yaml.Node | None:
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if str(key.value) == token:
                return value  # type: ignore[no-any-return]
    elif isinstance(node, yaml.SequenceNode) and token.isdigit() and int(token) < len(node.value):
        return node.value[int(token)]  # type: ignore[no-any-return]
    return None


def locate(path: Path, pointer: Pointer, key: str = "$ref") -> tuple[int, int]:
    """(line, column) of `key` in the object at `pointer` of the file `path` (1, 1 when it cannot be told)."""
    try:
        node = loader.compose(path)
    except LoadError:
        return 1, 1
    line, column = 1, 1
    for token in (*pointer, key):
        if node is None:
            break
        if isinstance(node, yaml.MappingNode):
            for key_node, value in node.value:
                if str(key_node.value) == token:
                    line, column = key_node.start_mark.line + 1, key_node.start_mark.column + 1
                    node = value
                    break
            else:
                break
        else:
            node = _child(node, token)
            if node is not None:
                line, column = node.start_mark.line + 1, node.start_mark.column + 1
    return line, column


def _refused(path: Path, pointer: Pointer, rule: str, text: str, key: str = "$ref") -> RefError:
    line, column = locate(path, pointer, key)
    return RefError(f"{shown(path)}:{line}:{column}: reference rule {rule}: {text}", rule)


def is_local(ref: str) -> bool:
    """A reference into the same document (`#/components/...`, `#anchor`)."""
    return ref.startswith("#")


class References:
    """What the `$ref`s of the documents below `root` name: files inside it, read by the loader, cached by path."""

    def __init__(self, root: Path, *, limits: Limits | None = None, allow: Sequence[str] | None = None) -> None:
        self.root = root.resolve()
        self.limits = limits or current_limits()
        self.allow = tuple(allow) if allow is not None else allowed()
        self._documents: dict[Path, Any] = {}
        self._targets: dict[Path, list[tuple[Pointer, str, Path | None]]] = {}

    def contained(self, path: Path) -> bool:
        """Whether `path`, every symlink resolved, lies inside the spec root."""
        return path.resolve().is_relative_to(self.root)

    def document(self, path: Path) -> Any:
        """The document at `path` (inside the root), its references checked; read once."""
        resolved = path.resolve()
        if resolved not in self._documents:
            if not resolved.is_relative_to(self.root):
                raise RefError(
                    f"{shown(path)}:1:1: reference rule spec-root: {shown(resolved)} is outside the spec root "
                    f"{shown(self.root)}",
                    "spec-root",
                )
            document = loader.load_document(resolved, self.limits)
            check_ref_depth(document, resolved, self.limits.max_ref_depth)
            self._documents[resolved] = document
            self._targets[resolved] = [self._check(resolved, pointer, ref) for pointer, ref in references_in(document)]
        return self._documents[resolved]

    def document_tree(self, path: Path) -> list[Path]:
        """Read `path` and every file its references lead to, each checked; the files, in the order read (for a
        tool that hands them to another reader, Redocly CLI, once they are known to be safe)."""
        pending, read = [path.resolve()], []
        while pending:
            current = pending.pop()
            if current in read:
                continue
            self.document(current)
            read.append(current)
            pending.extend(target for _, _, target in self._targets[current] if target is not None)
        return read

    def check_chains(self, path: Path) -> None:
        """Refuse a chain of references that never reaches a value (`A: {$ref: B}`, `B: {$ref: A}`), within one
        file or through several, among the files `path` leads to. (A schema that refers to itself from inside,
        `Node: {properties: {next: {$ref: Node}}}`, is recursive, not a cycle: only references all the way round.)"""
        files = self.document_tree(path)
        done: set[tuple[Path, Pointer]] = set()
        for file in files:
            for start, _ref, _target in self._targets[file]:
                chain: list[tuple[Path, Pointer]] = []
                key: tuple[Path, Pointer] | None = (file, start)
                while key is not None and key not in done:
                    if key in chain:
                        first = chain[chain.index(key)]
                        shown_chain = " -> ".join(
                            f"{shown(f)}#/{'/'.join(p)}" for f, p in [*chain[chain.index(key) :], key]
                        )
                        raise _refused(
                            first[0], first[1], "ref-cycle", f"references that lead back to themselves: {shown_chain}"
                        )
                    chain.append(key)
                    key = self._next_in_chain(*key)
                done.update(chain)

    def _next_in_chain(self, file: Path, pointer: Pointer) -> tuple[Path, Pointer] | None:
        """Where the reference at `pointer` of `file` leads, when that is another reference; else None."""
        node = _at(self._documents[file], pointer)
        ref = node.get("$ref") if isinstance(node, dict) else None
        if not isinstance(ref, str):
            return None
        address, _, fragment = ref.partition("#")
        if address:
            target = self.file_of(address, file.parent)
            if target is None or target.resolve() not in self._documents:
                return None  # a network reference, or one refused already
            file = target.resolve()
        if fragment and not fragment.startswith("/"):
            return None  # an anchor: names a schema, not a place to follow
        target_pointer = (
            tuple(t.replace("~1", "/").replace("~0", "~") for t in unquote(fragment[1:]).split("/")) if fragment else ()
        )
        target_node = _at(self._documents[file], target_pointer)
        if isinstance(target_node, dict) and isinstance(target_node.get("$ref"), str):
            return file, target_pointer
        return None

    def self_contained(self, path: Path) -> Any:
        """The document at `path`, refused unless every `$ref` in it is local (`#...`): for readers that would
        resolve any other one themselves (the generators, Redocly's build-docs)."""
        document = self.document(path)
        for pointer, value in external_values(document):
            raise _refused(
                path,
                pointer,
                "self-contained",
                f"externalValue {value[:200]!r}: this document is handed to a reader that fetches an example's "
                "externalValue itself (Redocly's build-docs does), so it may hold none: give the example a `value`",
                key="externalValue",
            )
        for pointer, ref, _ in self._targets[path.resolve()]:
            if not is_local(ref):
                raise _refused(
                    path,
                    pointer,
                    "self-contained",
                    f"$ref {ref!r}: this document is handed to a reader that resolves references itself, so it "
                    "may hold local ones (#/...) only",
                )
        return document

    def _check(self, path: Path, pointer: Pointer, ref: str) -> tuple[Pointer, str, Path | None]:
        """(pointer, ref, the file it names or None for a local or allowed network one); refuses what the rules do."""
        if is_local(ref):
            return pointer, ref, None
        target = self.file_of(ref, path.parent)
        if target is None:
            if not any(ref.startswith(prefix) for prefix in self.allow):
                raise _refused(
                    path,
                    pointer,
                    "network",
                    f"$ref {ref!r} names a network location; none is read unless {ALLOW_VARIABLE} or "
                    "accessgov-tools --allow-ref names it",
                )
            return pointer, ref, None
        if not target.resolve().is_relative_to(self.root):
            raise _refused(
                path,
                pointer,
                "spec-root",
                f"$ref {ref!r} names {shown(target.resolve())}, outside the spec root {shown(self.root)}",
            )
        if not target.is_file():
            raise _refused(path, pointer, "missing-file", f"$ref {ref!r} names no file ({shown(target)})")
        return pointer, ref, target.resolve()

    @staticmethod
    def file_of(ref: str, base: Path) -> Path | None:
        """The file a reference names relative to the directory `base`; None for a network (or unknown) scheme."""
        address = ref.partition("#")[0]
        parts = urlsplit(address)
        if parts.scheme == "file":
            if parts.netloc not in ("", "localhost"):
                return None
            return Path(unquote(parts.path))
        if parts.scheme and not (len(parts.scheme) == 1 and os.name == "nt"):
            return None
        return base / unquote(address)

    def cycle_error(self, path: Path, target: Path) -> RefError:
        """The refusal of a file reference from `path` that leads back to `target` (a reference cycle)."""
        for pointer, ref, named in self._targets.get(path.resolve(), []):
            if named == target.resolve():
                return _refused(path, pointer, "ref-cycle", f"$ref {ref!r} leads back to itself (a reference cycle)")
        return RefError(
            f"{shown(path)}:1:1: reference rule ref-cycle: a reference cycle through {shown(target)}", "ref-cycle"
        )

    def retrieve(self, uri: str) -> Resource[Any]:
        """`referencing`'s retrieve: the document a URI names, by the rules above (the validator's only way out)."""
        from referencing.jsonschema import DRAFT202012

        parts = urlsplit(uri)
        if parts.scheme == "file" and parts.netloc in ("", "localhost"):
            path = Path(unquote(parts.path))
            if not path.resolve().is_relative_to(self.root):
                raise RefError(
                    f"{uri}: reference rule spec-root: outside the spec root {shown(self.root)}", "spec-root"
                )
            return DRAFT202012.create_resource(self.document(path))
        if not any(uri.startswith(prefix) for prefix in self.allow):
            raise RefError(
                f"{uri}: reference rule network: a network location; none is read unless {ALLOW_VARIABLE} or "
                "accessgov-tools --allow-ref names it",
                "network",
            )
        return DRAFT202012.create_resource(fetch(uri, self.limits))


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # a redirect is an error: the allow-list names where documents come from


def fetch(url: str, limits: Limits) -> Any:
    """The document at an allowed network URL: a timeout, no redirects, at most `max-bytes`, the loader's rules."""
    opener = urllib.request.build_opener(_NoRedirects)
    try:
        with opener.open(url, timeout=FETCH_TIMEOUT) as response:
            data = response.read(limits.max_bytes + 1)
    except (urllib.error.URLError, OSError, ValueError) as error:
        raise LoadError(f"{url}: cannot fetch: {error}") from None
    if len(data) > limits.max_bytes:
        raise LimitError(f"{url}:1:1: document limit max-bytes: more than {limits.max_bytes:,} bytes", "max-bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise LoadError(f"{url}: not UTF-8 text") from None
    return loader.loads(text, url, json_only=url.partition("?")[0].endswith(".json"), limits=limits)


def _at(document: Any, pointer: Pointer) -> Any:
    node = document
    for token in pointer:
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return None
    return node


def _pointer_of(ref: str) -> Pointer | None:
    """The JSON pointer of a local reference (`#/a/b~1c`, percent-escapes decoded); None for any other."""
    if ref == "#":
        return ()
    if not ref.startswith("#/"):
        return None
    return tuple(t.replace("~1", "/").replace("~0", "~") for t in unquote(ref[2:]).split("/"))


def _too_deep(path: Path | None, source: str, target: Pointer, limit: int) -> RefError:
    where = f"{shown(path)}:{':'.join(map(str, locate(path, target, '$ref')))}" if path else f"{source}:1:1"
    return RefError(
        f"{where}: document limit max-ref-depth: references followed more than {limit} deep (through "
        f"#/{'/'.join(target)}){hint('max-ref-depth')}",
        "max-ref-depth",
    )


def check_ref_depth(document: Any, path: Path | None, limit: int, source: str = "<document>") -> None:
    """Refuse local references nested more than `limit` deep once followed: `A: {allOf: [{$ref: B}]}`,
    `B: {allOf: [{$ref: C}]}`, ... 3,000 times is a 3,000-level schema to every reader that resolves it (the
    validator's and Redocly's recursion gives out first). A reference back into the chain (a recursive schema) is
    not followed again, so the depth is that of the longest chain without a repeat, computed once per target."""
    sites = sorted(
        (holder, target) for holder, ref in references_in(document) if (target := _pointer_of(ref)) is not None
    )
    if len(sites) <= limit:
        return
    holders = [holder for holder, _ in sites]

    def inside(target: Pointer) -> list[Pointer]:
        """The targets of the references held within `target`'s subtree."""
        start = bisect.bisect_left(holders, target)
        found = []
        for index in range(start, len(holders)):
            if holders[index][: len(target)] != target:
                break
            found.append(sites[index][1])
        return found

    depth: dict[Pointer, int] = {}
    for _, first in sites:
        if first in depth:
            continue
        stack: list[tuple[Pointer, list[Pointer]]] = [(first, inside(first))]
        on_stack = {first}
        best: dict[Pointer, int] = {first: 0}
        while stack:
            target, pending = stack[-1]
            if pending:
                nxt = pending.pop()
                if nxt in on_stack:
                    continue  # recursion: not followed again
                if nxt in depth:
                    best[target] = max(best[target], depth[nxt])
                    continue
                if len(stack) >= limit:
                    raise _too_deep(path, source, first, limit)
                stack.append((nxt, inside(nxt)))
                on_stack.add(nxt)
                best[nxt] = 0
                continue
            stack.pop()
            on_stack.discard(target)
            depth[target] = best[target] + 1
            if depth[target] > limit:
                raise _too_deep(path, source, target, limit)
            if stack:
                parent = stack[-1][0]
                best[parent] = max(best[parent], depth[target])


def check_local_cycles(document: Any, path: Path | None = None, source: str = "<document>") -> None:
    """Refuse a chain of local references that never reaches a schema: `A: {$ref: B}`, `B: {$ref: A}`.

    (A schema that contains a reference to itself, `Node: {properties: {next: {$ref: Node}}}`, is a recursive
    schema, not a cycle: only objects that are references all the way round are refused.)"""
    state: dict[Pointer, int] = {}  # 1 on the current chain, 2 done

    def target(ref: str) -> Pointer | None:
        if not ref.startswith("#/") and ref != "#":
            return None
        return tuple(t.replace("~1", "/").replace("~0", "~") for t in unquote(ref[2:]).split("/")) if ref != "#" else ()

    for start, _ref in references_in(document):
        chain: list[Pointer] = []
        pointer: Pointer | None = start
        while pointer is not None and state.get(pointer) != 2:
            if state.get(pointer) == 1:
                shown_chain = " -> ".join("#/" + "/".join(p) for p in [*chain[chain.index(pointer) :], pointer])
                where = f"{shown(path)}:{':'.join(map(str, locate(path, pointer)))}" if path else f"{source}:1:1"
                raise RefError(
                    f"{where}: reference rule ref-cycle: references that lead back to themselves: {shown_chain}",
                    "ref-cycle",
                )
            state[pointer] = 1
            chain.append(pointer)
            node = _at(document, pointer)
            next_ref = node.get("$ref") if isinstance(node, dict) else None
            pointer = target(next_ref) if isinstance(next_ref, str) else None
        for done in chain:
            state[done] = 2
