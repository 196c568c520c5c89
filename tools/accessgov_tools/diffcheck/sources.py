"""Map a JSON pointer into the bundle back to the `spec/` file and line it was written at.

The split spec reaches other files through `$ref`s (`components/schemas/X: {$ref: ./components/schemas/X.yaml}`);
walking the pointer from the root file and following every file `$ref` on the way lands in the file that holds
the node. The loader's `compose` (`accessgov_tools/loader.py`) keeps each node's line. A pointer that no longer exists
on that side (a removed property) resolves to the deepest part that does, so a reviewer still lands next to the
change.

Each mapping's keys are indexed once, the first time a pointer passes through it: locating a finding costs one
look-up per token, whatever the size of the mappings it crosses (10,000 properties added to one schema were
10,000 findings each scanning 10,000 keys).
"""

from __future__ import annotations

from pathlib import Path

import yaml

from accessgov_tools.diffcheck.model import Pointer
from accessgov_tools.loader import LoadError, compose


class SourceMap:
    """Locate bundle pointers in the split documents rooted at `root` (or in one self-contained file)."""

    def __init__(self, root: Path, relative_to: Path | None = None, root_node: yaml.Node | None = None) -> None:
        """`root_node`: the root file's node tree when the caller already composed it (read once, not twice)."""
        self.root = root.resolve()
        self.relative_to = relative_to
        self._files: dict[Path, yaml.Node] = {} if root_node is None else {self.root: root_node}
        # id of a mapping node (alive in `_files`) -> its keys and its file `$ref`, built when first crossed.
        self._indexes: dict[int, _Index] = {}
        self._shown: dict[Path, str] = {}

    def _load(self, path: Path) -> yaml.Node:
        if path not in self._files:
            try:
                node = compose(path)
            except LoadError:
                # Loaded as JSON but not composable as YAML (a key over 1,024 characters): its findings point
                # at line 1 rather than failing the report.
                node = yaml.MappingNode("tag:yaml.org,2002:map", [])
            if node is None:
                raise ValueError(f"{path}: an empty YAML document")
            self._files[path] = node
        return self._files[path]

    def _show(self, path: Path) -> str:
        shown = self._shown.get(path)
        if shown is None:
            base = self.relative_to
            shown = (path.relative_to(base) if base is not None and path.is_relative_to(base) else path).as_posix()
            self._shown[path] = shown
        return shown

    def locate(self, pointer: Pointer) -> tuple[str, int]:
        """(file, 1-based line) of the deepest node of `pointer` that exists."""
        path = self.root
        node = self._load(path)
        line = 1
        for token in pointer:
            node, path = self._follow(node, path)
            child = self._child(node, token)
            if child is None:
                break
            key_line, node = child
            line = key_line
        return self._show(path), line

    def _follow(self, node: yaml.Node, path: Path) -> tuple[yaml.Node, Path]:
        """Follow file `$ref`s (`./x.yaml`, `./x.yaml#/a/b`) until a node written inline."""
        for _ in range(32):
            ref = self._index(node).ref if isinstance(node, yaml.MappingNode) else None
            if ref is None or ref.startswith("#"):
                return node, path
            file_part, _, fragment = ref.partition("#")
            target = (path.parent / file_part).resolve()
            if not target.is_relative_to(self.root.parent) or not target.is_file():
                return node, path  # only files of the spec root are read (accessgov_tools/refs.py): stay here
            path = target
            node = self._load(path)
            for token in [t for t in fragment.split("/") if t]:
                child = self._child(node, token.replace("~1", "/").replace("~0", "~"))
                if child is None:
                    return node, path
                node = child[1]
        return node, path

    def _index(self, node: yaml.MappingNode) -> _Index:
        index = self._indexes.get(id(node))
        if index is None:
            index = self._indexes[id(node)] = _Index(node)
        return index

    def _child(self, node: yaml.Node, token: str) -> tuple[int, yaml.Node] | None:
        """(line of the key or item, child node) or None."""
        if isinstance(node, yaml.MappingNode):
            return self._index(node).children.get(token)
        if isinstance(node, yaml.SequenceNode) and token.isdigit() and int(token) < len(node.value):
            item = node.value[int(token)]
            return item.start_mark.line + 1, item
        return None


class _Index:
    """One mapping node's children by key (the first of a repeated key wins) and its `$ref`, read once."""

    __slots__ = ("children", "ref")

    def __init__(self, node: yaml.MappingNode) -> None:
        self.children: dict[str, tuple[int, yaml.Node]] = {}
        self.ref: str | None = None
        for key, value in node.value:
            self.children.setdefault(str(key.value), (key.start_mark.line + 1, value))
            if self.ref is None and key.value == "$ref" and isinstance(value, yaml.ScalarNode):
                self.ref = str(value.value)
