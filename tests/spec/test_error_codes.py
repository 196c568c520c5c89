"""Every `Error.code` the server can send is documented in the spec's `Error` schema, and nothing more."""

from __future__ import annotations

import json
import re
from pathlib import Path

from accessgov.errors import ErrorCode

BUNDLE = Path(__file__).resolve().parents[2] / "generated" / "openapi.json"
ROW = re.compile(r"^\| `([A-Z][A-Z0-9_]*)` \| (\d{3}) \|", re.MULTILINE)


def documented() -> dict[str, int]:
    doc = json.loads(BUNDLE.read_text(encoding="utf-8"))
    description = doc["components"]["schemas"]["Error"]["description"]
    return {code: int(status) for code, status in ROW.findall(description)}


def test_every_code_of_the_enumeration_is_in_the_spec_table_and_back() -> None:
    assert set(documented()) == {code.value for code in ErrorCode}


def test_the_documented_status_is_the_status_of_the_family_that_raises_it() -> None:
    from accessgov.api import restart, webhooks  # noqa: F401  (imports every family in use)
    from accessgov.errors import ApiError

    families: dict[int, set[str]] = {}
    for family in ApiError.__subclasses__():
        families.setdefault(family.status, set()).add(family.__name__)
    table = documented()
    assert {status for status in table.values()} <= set(families) | {500}
