"""What a finding is: a check id with a severity, a message, where it is in both documents, what it reaches."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

Pointer = tuple[str, ...]
REQUEST, RESPONSE = "request", "response"


class Severity(StrEnum):
    BREAKING = "breaking"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"breaking": 0, "warning": 1, "info": 2}[self.value]


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

    @property
    def json_pointer(self) -> str:
        return "/" + "/".join(t.replace("~", "~0").replace("/", "~1") for t in self.pointer)

    def sort_key(self) -> tuple[int, str, int, str, str]:
        return (self.severity.rank, self.file or "", self.line or 0, self.check, self.message)
