"""Every `x-error-code` of the bundle (a parameter's or a body schema's) is a code the server sends: the engine turns
it into an `ErrorCode` when a request fails there, so a misspelt one would surface as a server error instead."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from accessgov.errors import ErrorCode

BUNDLE = Path(__file__).resolve().parents[3] / "generated" / "openapi.json"


def _codes(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        if "x-error-code" in node:
            yield node["x-error-code"]
        for value in node.values():
            yield from _codes(value)
    elif isinstance(node, list):
        for value in node:
            yield from _codes(value)


def test_every_x_error_code_is_a_code_the_server_sends() -> None:
    codes = set(_codes(json.loads(BUNDLE.read_text(encoding="utf-8"))))
    assert "INVALID_EXPAND_PATH" in codes and "INVALID_PAGE_SIZE" in codes  # parameters' and body schemas' both
    assert codes <= {code.value for code in ErrorCode}, codes - {code.value for code in ErrorCode}
