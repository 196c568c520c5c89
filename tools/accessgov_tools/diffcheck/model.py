"""What a finding is: a check id with a severity, a message, where it is in both documents, what it reaches."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from accessgov_tools.display import quote

Pointer = tuple[str, ...]
REQUEST, RESPONSE = "request", "response"


def show(value: Any) -> str:
    """A value as a finding's message quotes it (a mapping or a list as Python writes it)."""
    return quote(repr(value)) if isinstance(value, (dict, list)) else quote(value)


class Severity(StrEnum):
    """A check's grade for this contract (`severities.yaml`): the gate, the changelog and the version rule read it.

    `client-breaking` is what breaks a typed client (the generated SDK) but not a tolerant HTTP client."""

    BREAKING = "breaking"
    CLIENT_BREAKING = "client-breaking"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"breaking": 0, "client-breaking": 1, "warning": 2, "info": 3}[self.value]

    @property
    def breaks(self) -> bool:
        """Fails `make diff` unless accepted, is marked breaking in the changelog, needs a major version."""
        return self in (Severity.BREAKING, Severity.CLIENT_BREAKING)


@dataclass(frozen=True)
class Check:
    """One check: a stable id (oasdiff's where the check is the same) and the severity it has by default."""

    id: str
    severity: Severity
    summary: str


@dataclass
class Finding:
    """One difference a check reported, with every operation it reaches and where it is in `spec/`."""

    check: str
    severity: Severity
    message: str
    pointer: Pointer  # in the head bundle (or in the base bundle when the thing was removed)
    operations: list[str] = field(default_factory=list)
    file: str | None = None
    line: int | None = None
    acceptance: Acceptance | None = None  # the entry of review/accepted-breaking.yaml that matches it
    acceptance_expired: bool = False
    # What a schema finding is about, as its message names it (`Item.state`, `query parameter limit`): the
    # findings of one subject and check can be told on one line. Empty for the others.
    subject: str = ""
    # The values it names as they are sent (an enum value added or removed, whatever the enum's spelling:
    # `const`, never a `title`), so that they can be merged; empty for the others.
    values: tuple[Any, ...] = ()

    @property
    def accepted(self) -> bool:
        """A breaking finding accepted by an entry that has not expired: reported, but it does not fail."""
        return self.acceptance is not None and not self.acceptance_expired

    @property
    def status(self) -> str:
        """How the finding is reported next to its severity: accepted, acceptance expired, or nothing."""
        if self.acceptance is None:
            return ""
        if self.acceptance_expired:
            return f"acceptance expired on {self.acceptance.expires.isoformat()}"
        return f"accepted until {self.acceptance.expires.isoformat()}: {self.acceptance.reason}"

    @property
    def json_pointer(self) -> str:
        return "/" + "/".join(t.replace("~", "~0").replace("/", "~1") for t in self.pointer)

    def sort_key(self) -> tuple[int, str, int, str, str]:
        return (self.severity.rank, self.file or "", self.line or 0, self.check, self.message)


@dataclass(frozen=True)
class Acceptance:
    """One breaking change accepted deliberately (an entry of review/accepted-breaking.yaml, `accepted.py`)."""

    check: str
    reason: str
    expires: dt.date
    pointer: str | None = None
    operation: str | None = None

    @property
    def target(self) -> str:
        return self.pointer or self.operation or ""

    def matches(self, finding: Finding) -> bool:
        if finding.check != self.check:
            return False
        if self.pointer is not None:
            return finding.json_pointer == self.pointer
        return any(op == self.operation or op.startswith(f"{self.operation} (") for op in finding.operations)

    def expired(self, today: dt.date) -> bool:
        return today > self.expires
