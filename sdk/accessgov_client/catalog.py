"""The operation catalogue the SDK runs on: one `Operation` per operation of the contract, generated into
`operations.py` from the SDK variant (`x-paginated`, `x-idempotent`), so paging and retries need no per-operation code.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass, field
from types import ModuleType

# Methods RFC 9110 calls idempotent; other operations are idempotent only when the contract says so (`x-idempotent`).
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE"})


@dataclass(frozen=True)
class Paging:
    """How an operation pages: the keyword that carries the token, and the response attributes to read."""

    token_param: str
    next_token: str
    items: str


@dataclass(frozen=True)
class Operation:
    """One operation: its generated module, HTTP method and path template, idempotency, and paging."""

    name: str
    module: str
    method: str
    path: str
    idempotent: bool
    paging: Paging | None = None
    _pattern: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        parts = re.split(r"\{[^}]+\}", self.path)
        # A base URL may carry a path prefix, so the template is matched at the end of the request path.
        object.__setattr__(self, "_pattern", re.compile(".*" + "[^/]+".join(map(re.escape, parts))))

    def load(self) -> ModuleType:
        """The generated module (`sync_detailed`, `asyncio_detailed`, ...)."""
        return importlib.import_module(self.module)

    def matches(self, method: str, path: str) -> bool:
        return method.upper() == self.method and self._pattern.fullmatch(path) is not None


class Catalog:
    """Operations by name, and the operation a request belongs to."""

    def __init__(self, operations: tuple[Operation, ...]) -> None:
        self.by_name = {operation.name: operation for operation in operations}

    def __contains__(self, name: object) -> bool:
        return name in self.by_name

    def get(self, operation: str | ModuleType) -> Operation:
        """An operation by name (`"list_app_entitlements"`) or by its generated module."""
        name = operation if isinstance(operation, str) else operation.__name__.rsplit(".", 1)[-1]
        try:
            return self.by_name[name]
        except KeyError:
            raise ValueError(f"unknown operation {name!r}; known: {', '.join(sorted(self.by_name))}") from None

    def match(self, method: str, path: str) -> Operation | None:
        """The operation whose method and path template fit a request, if any."""
        return next((op for op in self.by_name.values() if op.matches(method, path)), None)

    def is_idempotent(self, method: str, path: str) -> bool:
        """Whether a request may be repeated: by its operation's declaration, else by its method."""
        operation = self.match(method, path)
        return operation.idempotent if operation else method.upper() in IDEMPOTENT_METHODS
