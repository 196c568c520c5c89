"""JWT listener mutants: each lets one forbidden token through (or refuses one the contract allows) on an
otherwise correct reference server."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable
from typing import Any

import jwt

from scripts.selftest.asgi import Forward, Handler, Request, Response, path_param
from scripts.selftest.mutants.base import Mutant, now
from scripts.selftest.target import JWT_KID, Fixtures


def _bearer(request: Request) -> str | None:
    value = request.header("authorization") or ""
    return value[7:].strip() if value.lower().startswith("bearer ") else None



def jwt_claim_ignored(
    claim: str, correct: Callable[[Fixtures, Request, dict[str, Any]], Any]
) -> Callable[[Fixtures], dict[str, Handler]]:
    """The server does not verify `claim`: a token whose claim is missing or wrong is accepted (the mutant puts
    the correct value in and re-signs, leaving every other claim as sent)."""

    def handlers(fixtures: Fixtures) -> dict[str, Handler]:
        async def handle(request: Request, forward: Forward) -> Response:
            token = _bearer(request)
            listener_id = path_param(request, "webhook", "listener_id")
            if token and listener_id in fixtures.jwt_listeners:
                try:
                    claims = jwt.decode(token, options={"verify_signature": False})
                except jwt.PyJWTError:
                    return await forward(request)
                value = correct(fixtures, request, claims)
                if claims.get(claim) != value:
                    request = fixtures.resign(request, claims={**claims, claim: value})
            return await forward(request)

        return {"webhook": handle}

    return handlers


def _unknown_kid_accepted(fixtures: Fixtures) -> dict[str, Handler]:
    async def handle(request: Request, forward: Forward) -> Response:
        token = _bearer(request)
        if token and path_param(request, "webhook", "listener_id") in fixtures.jwt_listeners:
            try:
                header = jwt.get_unverified_header(token)
                claims = jwt.decode(token, options={"verify_signature": False})
            except jwt.PyJWTError:
                return await forward(request)
            if header.get("kid") != JWT_KID:
                request = fixtures.resign(request, claims=claims)
        return await forward(request)

    return {"webhook": handle}


def _exp_bounded(fixtures: Fixtures, request: Request, claims: dict[str, Any]) -> Any:
    exp = claims.get("exp")
    return exp if isinstance(exp, int) and exp <= now() + 600 else now() + 300


def _not_expired(fixtures: Fixtures, request: Request, claims: dict[str, Any]) -> Any:
    exp = claims.get("exp")
    return exp if isinstance(exp, int) and exp > now() else now() + 300


def _body_hash(body: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(body).digest()).rstrip(b"=").decode()


MUTANTS = [
    Mutant(
        "webhook-jwt-aud-ignored",
        "webhook",
        "The JWT `aud` is not verified: a token for another URL is accepted.",
        jwt_claim_ignored("aud", lambda fx, r, c: fx.endpoint_url(r)),
    ),
    Mutant(
        "webhook-jwt-sub-ignored",
        "webhook",
        "The JWT `sub` is not verified: a token for another tenant is accepted.",
        jwt_claim_ignored("sub", lambda fx, r, c: fx.tenant_base_url),
    ),
    Mutant(
        "webhook-jwt-exp-unbounded",
        "webhook",
        "The JWT `exp` may be any time ahead: a token valid for more than 10 minutes is accepted.",
        jwt_claim_ignored("exp", _exp_bounded),
    ),
    Mutant(
        "webhook-jwt-expired-accepted",
        "webhook",
        "The JWT `exp` is not checked against the clock: an expired token is accepted.",
        jwt_claim_ignored("exp", _not_expired),
    ),
    Mutant(
        "webhook-jwt-jti-unbound",
        "webhook",
        "The JWT `jti` is not compared with Webhook-Event-Id: a token for another event is accepted.",
        jwt_claim_ignored("jti", lambda fx, r, c: r.header("webhook-event-id") or ""),
    ),
    Mutant(
        "webhook-jwt-htm-ignored",
        "webhook",
        "The JWT `htm` is not verified: a token whose method is not POST is accepted.",
        jwt_claim_ignored("htm", lambda fx, r, c: "POST"),
    ),
    Mutant(
        "webhook-jwt-htb-ignored",
        "webhook",
        "The JWT `htb_s256` is not verified against the body: a token for another body is accepted.",
        jwt_claim_ignored("htb_s256", lambda fx, r, c: _body_hash(r.body)),
    ),
    Mutant(
        "webhook-jwt-unknown-kid-accepted",
        "webhook",
        "A JWT whose `kid` is not in the JWKS is verified with the JWKS's key instead of 401 UNKNOWN_KID.",
        _unknown_kid_accepted,
    ),
]
