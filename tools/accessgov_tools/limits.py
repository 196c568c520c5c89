"""The bounds every document the tools read is held to, and how a caller changes them.

A pull request's documents and overlays are untrusted input (docs/document-limits.md): each one is read through the
one loader (`accessgov_tools/loader.py`), which holds it to these limits before any tool walks it. A limit hit is the
loader's `LimitError`: `file:line:column: ... limit NAME ...`, exit 2 in every tool.

| limit | default | environment | `accessgov-tools` option |
|---|---|---|---|
| `max-bytes`: a document's size | 32 MiB | `ACCESSGOV_MAX_DOCUMENT_BYTES` | `--max-document-bytes` |
| `max-depth`: collections nested, aliases expanded | 128 | `ACCESSGOV_MAX_DOCUMENT_DEPTH` | `--max-document-depth` |
| `max-nodes`: values and keys, aliases expanded | 2,000,000 | `ACCESSGOV_MAX_DOCUMENT_NODES` | `--max-document-nodes` |
| `max-keys`: entries of one mapping | 20,000 | `ACCESSGOV_MAX_MAPPING_KEYS` | `--max-mapping-keys` |
| `max-text`: characters of one string | 1 Mi | `ACCESSGOV_MAX_DOCUMENT_TEXT` | `--max-document-text` |
| `max-ref-depth`: local `$ref`s followed one inside another | 64 | `ACCESSGOV_MAX_REF_DEPTH` | `--max-ref-depth` |
| `max-text-total`: all text, expanded | 64 Mi | `ACCESSGOV_MAX_DOCUMENT_TEXT_TOTAL` | `--max-document-text-total` |

The same node budget bounds what an overlay makes (every action's result) and what the bundler inlines.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass

# A YAML or JSON reader recurses once per level; the bound keeps every walk far from Python's recursion limit.
DEPTH_CEILING = 900


@dataclass(frozen=True)
class Limit:
    """One limit: its name in messages, its environment variable and option, and its default."""

    name: str
    field: str
    variable: str
    option: str
    default: int
    what: str


LIMITS = (
    Limit("max-bytes", "max_bytes", "ACCESSGOV_MAX_DOCUMENT_BYTES", "--max-document-bytes", 32 * 2**20, "bytes"),
    Limit("max-depth", "max_depth", "ACCESSGOV_MAX_DOCUMENT_DEPTH", "--max-document-depth", 128, "levels"),
    Limit("max-nodes", "max_nodes", "ACCESSGOV_MAX_DOCUMENT_NODES", "--max-document-nodes", 2_000_000, "nodes"),
    Limit("max-keys", "max_keys", "ACCESSGOV_MAX_MAPPING_KEYS", "--max-mapping-keys", 20_000, "keys"),
    Limit("max-text", "max_text", "ACCESSGOV_MAX_DOCUMENT_TEXT", "--max-document-text", 2**20, "characters"),
    Limit("max-ref-depth", "max_ref_depth", "ACCESSGOV_MAX_REF_DEPTH", "--max-ref-depth", 64, "references"),
    Limit(
        "max-text-total",
        "max_text_total",
        "ACCESSGOV_MAX_DOCUMENT_TEXT_TOTAL",
        "--max-document-text-total",
        64 * 2**20,
        "characters",
    ),
)
BY_NAME = {limit.name: limit for limit in LIMITS}


@dataclass(frozen=True)
class Limits:
    """The limits in force (see the module's table); `Limits()` are the defaults."""

    max_bytes: int = BY_NAME["max-bytes"].default
    max_depth: int = BY_NAME["max-depth"].default
    max_nodes: int = BY_NAME["max-nodes"].default
    max_keys: int = BY_NAME["max-keys"].default
    max_text: int = BY_NAME["max-text"].default
    max_text_total: int = BY_NAME["max-text-total"].default
    max_ref_depth: int = BY_NAME["max-ref-depth"].default

    def __post_init__(self) -> None:
        for limit in LIMITS:
            value = getattr(self, limit.field)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{limit.name} must be a positive integer, got {value!r}")
        if self.max_depth > DEPTH_CEILING:
            raise ValueError(f"max-depth is at most {DEPTH_CEILING} (the readers recurse once per level)")

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> Limits:
        """The defaults, each replaced by its environment variable when set."""
        environ = os.environ if environ is None else environ
        values: dict[str, int] = {}
        for limit in LIMITS:
            text = environ.get(limit.variable, "").strip().replace("_", "")
            if text:
                try:
                    values[limit.field] = int(text)
                except ValueError:
                    raise ValueError(f"{limit.variable}={text!r} is not an integer") from None
        return cls(**values)

    def replace(self, **values: int | None) -> Limits:
        """These limits with the given ones changed (None: unchanged)."""
        return dataclasses.replace(self, **{k: v for k, v in values.items() if v is not None})


def hint(name: str) -> str:
    """How a reader raises limit `name`: `(ACCESSGOV_MAX_DOCUMENT_DEPTH or --max-document-depth)`."""
    limit = BY_NAME.get(name)
    return f" (raise it with {limit.variable} or accessgov-tools {limit.option})" if limit else ""


_current: Limits | None = None


def current() -> Limits:
    """The limits in force: set by `configure`, else read from the environment once."""
    global _current
    if _current is None:
        _current = Limits.from_environment()
    return _current


def configure(limits: Limits | None) -> None:
    """Put `limits` in force for this process (None: read the environment again when next asked)."""
    global _current
    _current = limits
