"""The documentation a contract change touched: descriptions, summaries, titles and examples no check reports.

The diff engine grades what a client sends and receives; text and examples change nothing on the wire, so no
check reports them. The changelog still lists them (in their own section, beside any other findings), so a
reviewer sees every change. One walk over both documents: keys present on both sides are followed, a
documentation keyword that differs (added, removed or changed) is recorded once at its place.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from accessgov_tools.display import quote

# Keywords that only document; `examples` is a keyword everywhere but directly under `components`.
DOC_KEYWORDS = {
    "description": "description",
    "summary": "summary",
    "title": "title",
    "example": "example",
    "examples": "example",
    "externalDocs": "external documentation",
    "$comment": "comment",
}
# Objects whose keys are names (a property called `description`, an example called `summary`), not keywords.
_NAME_MAPS = frozenset(
    {
        "properties",
        "patternProperties",
        "$defs",
        "definitions",
        "dependentSchemas",
        "paths",
        "webhooks",
        "callbacks",
        "responses",
        "headers",
        "content",
        "encoding",
        "links",
        "variables",
        "mapping",
        "scopes",
        "flows",
    }
)
_METHODS = frozenset({"get", "put", "post", "delete", "options", "head", "patch", "trace"})


@dataclass(frozen=True)
class DocChange:
    """A documentation keyword that differs at one place: what (`description`, `example`...) and where."""

    what: str
    where: str


def _where(pointer: tuple[str, ...]) -> str:
    """A reader's name for a place: `GET /tasks`, `Task.state`, `GET /tasks` parameter `limit`, or the pointer."""
    if len(pointer) >= 3 and pointer[0] in ("paths", "webhooks") and pointer[2] in _METHODS:
        operation = quote(f"{pointer[2].upper()} {pointer[1]}")
        rest = pointer[3:]
        if len(rest) >= 2 and rest[0] == "parameters" and rest[1].isdigit():
            return f"{operation} parameter {int(rest[1]) + 1}"
        if rest[:1] == ("responses",) and len(rest) >= 2:
            return f"{operation} response {rest[1]}"
        if rest[:1] == ("requestBody",):
            return f"{operation} request body"
        return operation
    if len(pointer) >= 3 and pointer[:2] == ("components", "schemas"):
        fields = [pointer[i + 1] for i in range(2, len(pointer) - 1) if pointer[i] == "properties"]
        return quote(".".join([pointer[2], *fields]))
    if len(pointer) >= 3 and pointer[0] == "components":
        return quote(f"{pointer[1]}/{pointer[2]}")
    if pointer[:1] == ("info",) or not pointer:
        return "the contract's `info`"
    return quote("/" + "/".join(pointer))


def documentation_changes(base: Any, head: Any) -> list[DocChange]:
    """Every documentation keyword that differs between `base` and `head`, in document order, each place once."""
    found: dict[DocChange, None] = {}
    stack: list[tuple[Any, Any, tuple[str, ...], bool]] = [(base, head, (), False)]
    while stack:
        old, new, pointer, names = stack.pop()
        if isinstance(old, dict) and isinstance(new, dict):
            children = []
            for key in new:
                if key not in old:
                    if not names and key in DOC_KEYWORDS:
                        found[DocChange(DOC_KEYWORDS[key], _where(pointer))] = None
                    continue
                if not names and key in DOC_KEYWORDS and not (key == "examples" and pointer == ("components",)):
                    if old[key] != new[key]:
                        found[DocChange(DOC_KEYWORDS[key], _where(pointer))] = None
                    continue
                child_names = (key in _NAME_MAPS and not names) or pointer == ("components",)
                children.append((old[key], new[key], (*pointer, str(key)), child_names))
            for key in old:
                if key not in new and not names and key in DOC_KEYWORDS:
                    found[DocChange(DOC_KEYWORDS[key], _where(pointer))] = None
            stack.extend(reversed(children))
        elif isinstance(old, list) and isinstance(new, list):
            stack.extend(
                reversed([(a, b, (*pointer, str(i)), False) for i, (a, b) in enumerate(zip(old, new, strict=False))])
            )
    return list(found)
