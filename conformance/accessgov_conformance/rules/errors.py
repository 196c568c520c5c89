"""Conventions every response follows: the request id header."""

from __future__ import annotations

import re
from typing import cast

from .. import spec
from ..context import Context
from ..registry import rule
from ..verdicts import Fail

FAMILY = "errors"

# spec/components/headers/XRequestId.yaml#/schema: what a client may choose and a server may generate.
REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}", re.ASCII)


@rule(
    "ER-REQID-001",
    family=FAMILY,
    title="A valid client X-Request-Id is echoed, an invalid one replaced",
    text="Every response carries X-Request-Id: the client's value when it is 1-128 characters of "
    "[A-Za-z0-9._:-] (one character, 128, each punctuation mark), otherwise one the server generated, of that "
    "same form: an empty value, 129 characters, a space or slash, non-ASCII bytes are ignored, never refused.",
    spec="spec/components/headers/XRequestId.yaml",
    requirements="",
    mock=True,
)
def request_id(ctx: Context) -> None:
    app_id = ctx.config.app_id or "app-conformance"
    path = f"/api/v1/apps/{app_id}/entitlements"
    mark = f"{ctx.rng.getrandbits(48):012x}"

    def sent_with(value: str | bytes, what: str) -> str:
        """The X-Request-Id answered to a listing that sent `value` (the last exchange: the one a Fail shows)."""
        # httpx takes header values as ASCII text or as bytes: bytes carry the non-ASCII case unchanged.
        exchange = ctx.api("GET", spec.LIST_ENTITLEMENTS, path, headers={"X-Request-Id": cast(str, value)})
        ctx.expect(exchange, 200, what=what)  # ignored, never refused: the listing is served either way
        return exchange.response_headers.get("x-request-id", "")

    valid = {
        "every allowed punctuation mark": f"Conformance.{mark}_id:1-Z",
        "one character": "Q",
        "128 characters": f"conformance-{mark}-".ljust(128, "0"),
    }
    for what, mine in valid.items():
        got = sent_with(mine, f"valid X-Request-Id ({what})")
        if got != mine:
            raise Fail(f"sent a valid X-Request-Id ({what}) {mine!r}, got back {got!r}")

    invalid: dict[str, str | bytes] = {
        "a space and a slash": f"has spaces/and slashes {mark}",
        "129 characters": f"conformance-{mark}-".ljust(129, "0"),
        "empty": "",
        "non-ASCII": f"ünïcode-{mark}".encode(),
    }
    for what, bad in invalid.items():
        got = sent_with(bad, f"invalid X-Request-Id ({what})")
        text = bad.decode("utf-8") if isinstance(bad, bytes) else bad
        if not got or got == text or (text and text.startswith(got)):
            raise Fail(
                f"an invalid X-Request-Id ({what}) was answered with {got!r} instead of a generated one"
                f"{' (the value sent, cut short)' if got and text.startswith(got) and got != text else ''}"
            )
        if not REQUEST_ID.fullmatch(got):
            raise Fail(
                f"the X-Request-Id generated for an invalid one ({what}) is {got!r}, which is not 1-128 characters "
                "of [A-Za-z0-9._:-]"
            )
