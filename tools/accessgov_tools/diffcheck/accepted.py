"""Breaking changes accepted deliberately: a checked-in file of (check id, where, reason, expiry date).

    accepted:
      - check: api-operation-id-removed
        operation: POST /api/v1/tasks/{task_id}/action/restart   # or pointer: /paths/~1api~1v1~1.../post
        reason: renamed before the first release; no client uses it yet
        expires: 2026-12-31

An entry matches a breaking finding of its check at its JSON pointer (in the head bundle), or reaching its
operation (`METHOD /path`). A matched finding is reported as accepted and does not fail the run until the
entry expires (the day after `expires`); then it fails again, saying when the acceptance expired. An entry that
matches nothing is reported as stale (it is not an error: once the change is in the base, nothing matches it).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from accessgov_tools.diffcheck.model import Acceptance, Finding
from accessgov_tools.diffcheck.rules import CHECKS
from accessgov_tools.loader import LoadError, load_document
from accessgov_tools.paths import REPO

DEFAULT_ACCEPTED = REPO / "review" / "accepted-breaking.yaml"
__all__ = ["DEFAULT_ACCEPTED", "Acceptance", "AcceptedError", "apply_accepted", "failing", "load_accepted"]


class AcceptedError(ValueError):
    """An entry of the accepted-findings file is incomplete or names an unknown check."""


def _entry(path: Path, index: int, raw: Any) -> Acceptance:
    where = f"{path}: accepted[{index}]"
    if not isinstance(raw, dict):
        raise AcceptedError(f"{where}: must be a mapping")
    missing = {"check", "reason", "expires"} - set(raw)
    if missing:
        raise AcceptedError(f"{where}: missing {', '.join(sorted(missing))}")
    if str(raw["check"]) not in CHECKS:
        raise AcceptedError(f"{where}: unknown check {raw['check']!r}")
    if ("pointer" in raw) == ("operation" in raw):
        raise AcceptedError(f"{where}: give exactly one of `pointer` or `operation`")
    expires = raw["expires"]
    if isinstance(expires, str):
        try:
            expires = dt.date.fromisoformat(expires)
        except ValueError:
            raise AcceptedError(f"{where}: expires {expires!r} is not a date (YYYY-MM-DD)") from None
    if not isinstance(expires, dt.date):
        raise AcceptedError(f"{where}: expires must be a date (YYYY-MM-DD)")
    if not str(raw["reason"]).strip():
        raise AcceptedError(f"{where}: reason is empty")
    pointer, operation = raw.get("pointer"), raw.get("operation")
    return Acceptance(
        str(raw["check"]),
        str(raw["reason"]).strip(),
        expires,
        str(pointer) if pointer is not None else None,
        str(operation) if operation is not None else None,
    )


def load_accepted(path: Path = DEFAULT_ACCEPTED) -> list[Acceptance]:
    """Every entry of the file; a missing file accepts nothing."""
    if not path.is_file():
        return []
    try:
        data = load_document(path) or {}
    except LoadError as error:
        raise AcceptedError(str(error)) from None
    if not isinstance(data, dict):
        raise AcceptedError(f"{path}: must be a mapping with an `accepted` list")
    entries = data.get("accepted") or []
    if not isinstance(entries, list):
        raise AcceptedError(f"{path}: `accepted` must be a list")
    return [_entry(path, i, raw) for i, raw in enumerate(entries)]


def apply_accepted(findings: list[Finding], accepted: list[Acceptance], today: dt.date) -> list[Acceptance]:
    """Mark each breaking finding an entry matches (accepted, or its acceptance expired); return the stale entries."""
    used: set[Acceptance] = set()
    for finding in findings:
        if not finding.severity.breaks:
            continue
        for entry in accepted:
            if entry.matches(finding):
                used.add(entry)
                finding.acceptance = entry
                finding.acceptance_expired = entry.expired(today)
                break
    return [entry for entry in accepted if entry not in used]


def failing(findings: list[Finding]) -> list[Finding]:
    """The breaking and client-breaking findings that fail the run: not accepted, or their acceptance expired."""
    return [f for f in findings if f.severity.breaks and not f.accepted]
