"""JWT listener mutants: each lets one forbidden token through (or refuses one the contract allows) on an
otherwise correct reference server.

A mutant that lets a token through reads it as the broken server would, and when its loose reading accepts it,
re-signs the request correctly (`Fixtures.resign`), so the reference server underneath answers 200 and runs the
automation. Each one is narrowed to the one variant of `conformance/accessgov_conformance/traceability.yaml` its
`covers` names.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import jwt
from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519

from tests.conformance.selftest.asgi import Forward, Handler, Request, Response, path_param
from tests.conformance.selftest.mutants.base import Mutant, now
from tests.conformance.selftest.target import JWT_KID, Fixtures

ABSENT = object()  # a claim or header member the token does not have
LEEWAY = 5
LIFETIME = 600
KNOWN_CLAIMS = {"sub", "aud", "exp", "jti", "htm", "htb_s256", "iat", "iss", "nbf"}


@dataclass(frozen=True)
class Token:
    """A token as read without verifying it (padding and case forgiven where the reading must go on)."""

    header: dict[str, Any]
    claims: dict[str, Any]
    signing_input: bytes
    signature: bytes
    scheme: str  # the Authorization scheme as sent ("" when there is none)


def _b64decode(segment: str) -> bytes:
    return base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))


def _object(segment: str) -> dict[str, Any]:
    value = json.loads(_b64decode(segment))
    if not isinstance(value, dict):
        raise ValueError("not a JSON object")
    return value


def _read(text: str, scheme: str = "") -> Token | None:
    parts = text.split(".")
    if len(parts) != 3:
        return None
    try:
        return Token(
            _object(parts[0]), _object(parts[1]), f"{parts[0]}.{parts[1]}".encode(), _b64decode(parts[2]), scheme
        )
    except (ValueError, binascii.Error):
        return None


def _authorization(request: Request) -> tuple[str, str]:
    """(scheme, token text) of the Authorization header, split at the first space run."""
    value = (request.header("authorization") or "").strip()
    scheme, _, rest = value.partition(" ")
    return (scheme, rest.strip()) if rest else ("", value)


def read_token(request: Request) -> Token | None:
    scheme, text = _authorization(request)
    return _read(text, scheme) if scheme.lower() == "bearer" else None


def _public(fixtures: Fixtures) -> ed25519.Ed25519PublicKey:
    key = serialization.load_pem_private_key(fixtures.jwt_private_pem, password=None)
    assert isinstance(key, ed25519.Ed25519PrivateKey), "the self-test's JWT key is Ed25519"
    return key.public_key()


def _verifies(fixtures: Fixtures, token: Token, public: Any = None) -> bool:
    """Whether the token's signature is an Ed25519 signature by `public` (the listener's key by default)."""
    try:
        (public or _public(fixtures)).verify(token.signature, token.signing_input)
    except (InvalidSignature, ValueError, TypeError):
        return False
    return True


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _body_hash(body: bytes) -> str:
    return _b64url(hashlib.sha256(body).digest())


def _is_jwt(fixtures: Fixtures, request: Request) -> bool:
    return path_param(request, "webhook", "listener_id") in fixtures.jwt_listeners


def _expected(fixtures: Fixtures, request: Request) -> dict[str, Any]:
    """The claims the contract requires of this request."""
    return {
        "sub": fixtures.tenant_base_url,
        "aud": fixtures.endpoint_url(request),
        "jti": request.header("webhook-event-id") or "",
        "htm": "POST",
        "htb_s256": _body_hash(request.body),
    }


Check = Callable[[Fixtures, Request, Token], bool]


def accepts(check: Check) -> Callable[[Fixtures], dict[str, Handler]]:
    """A server that also accepts the tokens `check` picks out: each is re-signed correctly and served."""

    def handlers(fixtures: Fixtures) -> dict[str, Handler]:
        async def handle(request: Request, forward: Forward) -> Response:
            if _is_jwt(fixtures, request):
                token = read_token(request)
                if token is not None and check(fixtures, request, token):
                    request = fixtures.resign(request)
            return await forward(request)

        return {"webhook": handle}

    return handlers


def accepts_request(check: Callable[[Fixtures, Request], bool]) -> Callable[[Fixtures], dict[str, Handler]]:
    """As `accepts`, for a request whose Authorization is not a readable bearer token."""

    def handlers(fixtures: Fixtures) -> dict[str, Handler]:
        async def handle(request: Request, forward: Forward) -> Response:
            if _is_jwt(fixtures, request) and check(fixtures, request):
                request = fixtures.resign(request)
            return await forward(request)

        return {"webhook": handle}

    return handlers


def refuses(check: Check, code: str) -> Callable[[Fixtures], dict[str, Handler]]:
    """A server that refuses (401 `code`) the tokens `check` picks out, which the contract allows."""

    def handlers(fixtures: Fixtures) -> dict[str, Handler]:
        async def handle(request: Request, forward: Forward) -> Response:
            if _is_jwt(fixtures, request):
                token = read_token(request)
                if token is not None and check(fixtures, request, token):
                    # Everything else as the server answers: an Error body and its X-Request-Id.
                    return Response.error(401, code, "the JWT is refused", x_request_id=uuid.uuid4().hex)
            return await forward(request)

        return {"webhook": handle}

    return handlers


def claim(name: str, loose: Callable[[Any, Any], bool]) -> Check:
    """A validly signed token whose claim `name` differs from the contract's value but passes `loose(value,
    expected)` (value ABSENT when the claim is missing); every other claim as the contract says."""

    def check(fixtures: Fixtures, request: Request, token: Token) -> bool:
        expected = _expected(fixtures, request)
        value = token.claims.get(name, ABSENT)
        return (
            token.header.get("alg") == "EdDSA"
            and token.header.get("kid") == JWT_KID
            and _verifies(fixtures, token)
            and value != expected.get(name)
            and loose(value, expected.get(name))
        )

    return check


def header(loose: Callable[[dict[str, Any]], bool], *, verified: bool = True) -> Check:
    """A token whose header passes `loose` and (when `verified`) whose signature is the listener key's."""
    return lambda fixtures, request, token: loose(token.header) and (not verified or _verifies(fixtures, token))


# --- URL comparisons a careless server makes -----------------------------------------------------------------------


def _netloc_default_port(url: str) -> str:
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return f"{parts.scheme}://{parts.hostname}:{port}{parts.path}"


def _url(loose: Callable[[str, str], bool]) -> Callable[[Any, Any], bool]:
    return lambda value, expected: isinstance(value, str) and bool(value) and loose(value, str(expected))


URL_LOOSE: dict[str, Callable[[Any, Any], bool]] = {
    "missing": lambda value, expected: value is ABSENT,
    "other-host": _url(lambda v, e: urlsplit(v).path == urlsplit(e).path and urlsplit(v).scheme == urlsplit(e).scheme),
    "other-scheme": _url(lambda v, e: v.partition("://")[2] == e.partition("://")[2]),
    "trailing-slash": _url(lambda v, e: v.rstrip("/") == e),
    "prefix": _url(lambda v, e: e.startswith(v) and "://" in v),
    "suffix": _url(lambda v, e: v.startswith(e) and not v[len(e)].startswith(("/", "?"))),
    "case-folded": _url(lambda v, e: v.lower() == e.lower()),
    "default-port": _url(lambda v, e: _netloc_default_port(v) == _netloc_default_port(e)),
    "whitespace": _url(lambda v, e: v.strip() == e),
}
SUB_LOOSE = {
    **URL_LOOSE,
    "path-appended": _url(lambda v, e: v.startswith(e + "/")),
    "array": lambda value, expected: isinstance(value, list) and expected in value,
}
AUD_LOOSE = {
    **URL_LOOSE,
    "other-path": _url(lambda v, e: v.rsplit("/", 1)[0] == e.rsplit("/", 1)[0]),
    "path-only": _url(lambda v, e: v.startswith("/") and e.endswith(v)),
    "base-only": _url(lambda v, e: e.startswith(v + "/api/")),
    "query": _url(lambda v, e: v.partition("?")[0] == e),
    "array-without-url": lambda value, expected: isinstance(value, list) and bool(value),
}


# --- algorithms and keys -------------------------------------------------------------------------------------------


def _jwk(fixtures: Fixtures) -> dict[str, str]:
    x = _b64url(_public(fixtures).public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw))
    return {"crv": "Ed25519", "kty": "OKP", "x": x}


HMAC_SECRETS: dict[str, Callable[[Fixtures], bytes]] = {
    "hs256-pem": lambda fx: _public(fx).public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    ),
    "hs256-jwk-json": lambda fx: json.dumps(_jwk(fx), separators=(",", ":"), sort_keys=True).encode(),
    "hs256-jwk-member": lambda fx: _jwk(fx)["x"].encode(),
    "hs256-raw-key": lambda fx: _public(fx).public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw),
}


def _hs256_keyed(secret: Callable[[Fixtures], bytes]) -> Check:
    """HS256 verified with the listener's public key material as the HMAC secret (RFC 8725 2.1)."""

    def check(fixtures: Fixtures, request: Request, token: Token) -> bool:
        if token.header.get("alg") != "HS256":
            return False
        expected = hmac.new(secret(fixtures), token.signing_input, hashlib.sha256).digest()
        return hmac.compare_digest(expected, token.signature)

    return check


def _unverified(fixtures: Fixtures, request: Request, token: Token) -> bool:
    """A token the listener's key did not sign, right in everything else (header and claims)."""
    named = {"jwk", "jku", "x5u", "x5c"} & set(token.header)
    right = all(token.claims.get(key) == value for key, value in _expected(fixtures, request).items())
    plain = token.header.get("kid") == JWT_KID and token.header.get("alg") == "EdDSA" and not named
    return plain and right and not _verifies(fixtures, token)


def _alg_from_key(alg: str) -> Check:
    """The header names `alg`, but the server verifies with the key's own algorithm (EdDSA)."""
    return header(lambda h: h.get("alg") == alg and h.get("kid") == JWT_KID)


def _embedded_jwk(fixtures: Fixtures, request: Request, token: Token) -> bool:
    jwk = token.header.get("jwk")
    if not isinstance(jwk, dict):
        return False
    try:
        key = jwt.PyJWK(jwk).key
    except jwt.PyJWTError:
        return False
    return _verifies(fixtures, token, key)


def _embedded_certificate(fixtures: Fixtures, request: Request, token: Token) -> bool:
    chain = token.header.get("x5c")
    if not isinstance(chain, list) or not chain:
        return False
    try:
        certificate = x509.load_der_x509_certificate(base64.b64decode(chain[0]))
    except ValueError:
        return False
    return _verifies(fixtures, token, certificate.public_key())


def _named_url(member: str) -> Check:
    """Trusts the key at the URL the header names. The kit's attacker URL resolves nowhere, so this server
    stands for one that fetched it: a token naming one is taken as verified."""
    return header(lambda h: isinstance(h.get(member), str) and h.get("kid") == JWT_KID, verified=False)


KID_LOOSE: dict[str, Callable[[Any], bool]] = {
    "kid-missing": lambda kid: kid is ABSENT,  # the JWKS holds one key: it is used
    "kid-prefix": lambda kid: isinstance(kid, str) and bool(kid) and JWT_KID.startswith(kid),
    "kid-suffix": lambda kid: isinstance(kid, str) and kid.startswith(JWT_KID) and kid[len(JWT_KID)].isalnum(),
    "kid-whitespace": lambda kid: isinstance(kid, str) and kid.strip() == JWT_KID,
    "kid-path-traversal": lambda kid: isinstance(kid, str) and kid.rsplit("/", 1)[-1] == JWT_KID,
    "kid-injection": lambda kid: isinstance(kid, str) and kid.split("'", 1)[0] == JWT_KID,
    "kid-case-folded": lambda kid: isinstance(kid, str) and kid.lower() == JWT_KID.lower(),
}


def _kid(loose: Callable[[Any], bool]) -> Check:
    return header(lambda h: h.get("kid", ABSENT) != JWT_KID and loose(h.get("kid", ABSENT)) and h.get("alg") == "EdDSA")


def _first_wins(fixtures: Fixtures, request: Request, token: Token) -> bool:
    """The payload read by a parser that keeps the first of duplicate members (RFC 7519 4 allows only the last)."""
    segment = token.signing_input.decode().split(".")[1]
    first = json.loads(_b64decode(segment), object_pairs_hook=lambda pairs: dict(reversed(pairs)))
    right = all(first.get(key) == value for key, value in _expected(fixtures, request).items())
    return right and token.claims != first and _verifies(fixtures, token)


def _aud_from_host(fixtures: Fixtures, request: Request, token: Token) -> bool:
    """aud taken from the request as received (its Host header), not the listener's URL under the tenant."""
    requested = f"http://{request.header('host') or ''}{request.path}"
    return claim("aud", lambda value, expected: value == requested)(fixtures, request, token)


# --- the time claims ------------------------------------------------------------------------------------------------


def _valid_except(name: str, loose: Callable[[Any], bool]) -> Check:
    """A validly signed token, right in every claim of the contract, whose time claim `name` passes `loose`."""

    def check(fixtures: Fixtures, request: Request, token: Token) -> bool:
        right = all(token.claims.get(key) == value for key, value in _expected(fixtures, request).items())
        return right and _verifies(fixtures, token) and loose(token.claims.get(name, ABSENT))

    return check


def _exp_from_timestamp(expired: bool) -> Check:
    """exp measured from Webhook-Timestamp instead of the server's clock: a token within the limits of the
    timestamp passes though it is `expired` (or else too far ahead) by the clock."""

    def loose(fixtures: Fixtures, request: Request, token: Token) -> bool:
        timestamp = request.header("webhook-timestamp") or ""
        exp = token.claims.get("exp")
        if not timestamp.isdigit() or not isinstance(exp, int | float):
            return False
        by_timestamp = int(timestamp) - LEEWAY < exp <= int(timestamp) + LIFETIME + LEEWAY
        by_clock = exp <= now() - LEEWAY if expired else exp > now() + LIFETIME + LEEWAY
        return by_timestamp and by_clock

    def check(fixtures: Fixtures, request: Request, token: Token) -> bool:
        return loose(fixtures, request, token) and _valid_except("exp", lambda exp: True)(fixtures, request, token)

    return check


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


# --- body hashes ------------------------------------------------------------------------------------------------------


def _htb_of(digest_text: Callable[[bytes], str | None]) -> Check:
    """htb_s256 compared with `digest_text(body)`: another reading of the bytes received."""

    def check(fixtures: Fixtures, request: Request, token: Token) -> bool:
        value = token.claims.get("htb_s256")
        other = digest_text(request.body)
        right = claim("htb_s256", lambda v, e: True)(fixtures, request, token)
        return right and other is not None and value == other

    return check


def _reserialised(body: bytes) -> str | None:
    try:
        return _body_hash(json.dumps(json.loads(body), separators=(",", ":")).encode())
    except ValueError:
        return None


# --- malformed tokens ---------------------------------------------------------------------------------------------


def _lenient(fixtures: Fixtures, request: Request) -> bool:
    """Characters outside the base64url alphabet are dropped before decoding (base64's non-validating mode)."""
    scheme, text = _authorization(request)
    cleaned = re.sub(r"[^A-Za-z0-9_.-]", "", text)
    token = _read(cleaned, scheme)
    return cleaned != text and token is not None and _verifies(fixtures, token)


def _padded(fixtures: Fixtures, request: Request) -> bool:
    """The segments are read as PyJWT reads them: `=` padding to a whole quantum is dropped first."""
    scheme, text = _authorization(request)
    head, _, signature = text.rpartition(".")
    stripped = signature.rstrip("=")
    if stripped == signature or len(signature) % 4:
        return False
    token = _read(f"{head}.{stripped}", scheme)
    return token is not None and _verifies(fixtures, token)


def _json_serialised(fixtures: Fixtures, request: Request) -> bool:
    _, text = _authorization(request)
    try:
        document = json.loads(text)
        token = _read(f"{document['protected']}.{document['payload']}.{document['signature']}")
    except (ValueError, KeyError, TypeError):
        return False
    return token is not None and _verifies(fixtures, token)


def _segments(count: int) -> Callable[[Fixtures, Request], bool]:
    """A token of `count` segments read as a compact JWS: two as unsigned, four by their first three."""

    def check(fixtures: Fixtures, request: Request) -> bool:
        _, text = _authorization(request)
        parts = text.split(".")
        if len(parts) != count:
            return False
        token = _read(".".join(parts[:3])) if count > 3 else None
        return token is not None and _verifies(fixtures, token) if count > 3 else bool(_read(text + "."))

    return check


def _scheme(accept: Callable[[str], bool]) -> Callable[[Fixtures, Request], bool]:
    def check(fixtures: Fixtures, request: Request) -> bool:
        scheme, text = _authorization(request)
        token = _read(text if scheme else (request.header("authorization") or "").strip())
        return accept(scheme) and token is not None and _verifies(fixtures, token)

    return check


# --- the catalogue ------------------------------------------------------------------------------------------------


def _mutant(mutant_id: str, breaks: str, handlers: Callable[[Fixtures], dict[str, Handler]], *covers: str) -> Mutant:
    return Mutant(mutant_id, "webhook", breaks, handlers, covers=covers)


def _claim_mutants(name: str, requirement: str, loose: dict[str, Callable[[Any, Any], bool]]) -> list[Mutant]:
    return [
        _mutant(
            f"webhook-jwt-{name.replace('_', '-')}-{variant}-accepted",
            f"The JWT `{name}` is matched loosely: a token whose {name} is {variant.replace('-', ' ')} is accepted.",
            accepts(claim(name, check)),
            f"{requirement}/{variant}",
        )
        for variant, check in loose.items()
    ]


MUTANTS = [
    _mutant(
        "webhook-jwt-missing-authorization-accepted",
        "A JWT listener processes a delivery without Authorization instead of 401 MISSING_AUTHENTICATION.",
        accepts_request(lambda fx, r: not r.header("authorization")),
        "JWT-AUTHORIZATION/missing",
    ),
    _mutant(
        "webhook-jwt-unknown-kid-accepted",
        "A JWT whose `kid` is not in the JWKS is verified with the JWKS's key instead of 401 UNKNOWN_KID.",
        accepts(_kid(lambda kid: isinstance(kid, str) and not any(loose(kid) for loose in KID_LOOSE.values()))),
        "JWT-KID-KNOWN/unknown-kid",
    ),
    _mutant(
        "webhook-jwt-signature-unchecked",
        "The JWT's signature is not verified: a token signed by another key under the listener's kid is accepted.",
        accepts(_unverified),
        "JWT-SIGNATURE/foreign-key",
    ),
    _mutant(
        "webhook-jwt-none-unsigned-accepted",
        "alg none is honoured: an unsigned token is accepted.",
        accepts(header(lambda h: h.get("alg") == "none", verified=False)),
        "JWT-ALG-ALLOWED/none-unsigned",
    ),
    _mutant(
        "webhook-jwt-none-signed-accepted",
        "alg none skips verification even when a signature is present: such a token is accepted.",
        accepts(lambda fx, r, t: t.header.get("alg") == "none" and bool(t.signature)),
        "JWT-ALG-ALLOWED/none-signed",
    ),
    _mutant(
        "webhook-jwt-none-uppercase-accepted",
        "The alg allowlist is matched case-insensitively on 'none': alg NONE is taken as unsigned and accepted.",
        accepts(
            header(
                lambda h: isinstance(h.get("alg"), str) and h["alg"] != "none" and h["alg"].lower() == "none",
                verified=False,
            )
        ),
        "JWT-ALG-ALLOWED/none-uppercase",
    ),
    _mutant(
        "webhook-jwt-alg-missing-accepted",
        "A token without alg is verified with the key's algorithm and accepted.",
        accepts(header(lambda h: "alg" not in h and h.get("kid") == JWT_KID)),
        "JWT-ALG-ALLOWED/alg-missing",
    ),
    _mutant(
        "webhook-jwt-ps256-accepted",
        "PS256 is allowed (and verified with the key's own algorithm): a PS256 token is accepted.",
        accepts(_alg_from_key("PS256")),
        "JWT-ALG-ALLOWED/ps256",
    ),
    _mutant(
        "webhook-jwt-es512-accepted",
        "ES512 is allowed (and verified with the key's own algorithm): an ES512 token is accepted.",
        accepts(_alg_from_key("ES512")),
        "JWT-ALG-ALLOWED/es512",
    ),
    *[
        _mutant(
            f"webhook-jwt-{variant}-accepted",
            f"Key confusion: HS256 is verified with the listener's public key ({variant[6:].replace('-', ' ')}) "
            "as the HMAC secret, so a token MACed with it is accepted.",
            accepts(_hs256_keyed(secret)),
            f"JWT-ALG-CONFUSION/{variant}",
        )
        for variant, secret in HMAC_SECRETS.items()
    ],
    _mutant(
        "webhook-jwt-rs256-on-ed25519-accepted",
        "The algorithm comes from the key, not the header: RS256 in the header of an Ed25519-signed token passes.",
        accepts(_alg_from_key("RS256")),
        "JWT-ALG-KEY/mismatched-alg-a",
    ),
    _mutant(
        "webhook-jwt-es256-on-ed25519-accepted",
        "The algorithm comes from the key, not the header: ES256 in the header of an Ed25519-signed token passes.",
        accepts(_alg_from_key("ES256")),
        "JWT-ALG-KEY/mismatched-alg-b",
    ),
    _mutant(
        "webhook-jwt-embedded-jwk-trusted",
        "A key embedded in the header (jwk) verifies the token: one signed by the attacker's key is accepted.",
        accepts(_embedded_jwk),
        "JWT-HEADER-KEYS/jwk",
    ),
    _mutant(
        "webhook-jwt-jku-trusted",
        "The JWKS URL in the header (jku) is fetched and trusted: a token naming the attacker's JWKS is accepted.",
        accepts(_named_url("jku")),
        "JWT-HEADER-KEYS/jku",
    ),
    _mutant(
        "webhook-jwt-x5u-trusted",
        "The certificate URL in the header (x5u) is fetched and trusted: a token naming one is accepted.",
        accepts(_named_url("x5u")),
        "JWT-HEADER-KEYS/x5u",
    ),
    _mutant(
        "webhook-jwt-x5c-trusted",
        "The certificate in the header (x5c) verifies the token: one signed by the attacker's key is accepted.",
        accepts(_embedded_certificate),
        "JWT-HEADER-KEYS/x5c",
    ),
    *[
        _mutant(
            f"webhook-jwt-{variant}-accepted",
            f"The JWT kid is matched loosely ({variant[4:].replace('-', ' ')}): a token signed by the listener's "
            "key under such a kid is accepted.",
            accepts(_kid(loose)),
            f"JWT-KID-EXACT/{variant}",
        )
        for variant, loose in KID_LOOSE.items()
    ],
    _mutant(
        "webhook-jwt-crit-ignored",
        "crit is ignored: a token that requires an unknown extension is accepted (RFC 7515 4.1.11).",
        accepts(header(lambda h: isinstance(h.get("crit"), list) and bool(h["crit"]) and "b64" not in h)),
        "JWT-CRIT/crit-unknown",
    ),
    _mutant(
        "webhook-jwt-crit-empty-accepted",
        "An empty crit list is taken as no extension: such a token is accepted.",
        accepts(header(lambda h: h.get("crit") == [])),
        "JWT-CRIT/crit-empty",
    ),
    _mutant(
        "webhook-jwt-b64-false-accepted",
        "b64 false (RFC 7797) is ignored: a token declaring an unencoded payload is accepted.",
        accepts(header(lambda h: h.get("b64") is False)),
        "JWT-CRIT/b64-false",
    ),
    *_claim_mutants("sub", "JWT-SUB", SUB_LOOSE),
    *_claim_mutants("aud", "JWT-AUD", AUD_LOOSE),
    _mutant(
        "webhook-jwt-aud-from-host-header",
        "aud is compared with the URL as requested (the Host header), not the listener's URL under the tenant.",
        accepts(_aud_from_host),
        "JWT-AUD/request-url",
    ),
    _mutant(
        "webhook-jwt-duplicate-claim-first-wins",
        "Duplicate claim names are read first-wins: an aud given right, then wrong, is accepted.",
        accepts(_first_wins),
        "JWT-AUD/duplicate-last-wrong",
    ),
    _mutant(
        "webhook-jwt-exp-missing-accepted",
        "exp is optional: a token without exp is accepted.",
        accepts(_valid_except("exp", lambda exp: exp is ABSENT)),
        "JWT-EXP/missing",
    ),
    _mutant(
        "webhook-jwt-exp-string-accepted",
        "exp is read with float(): a token whose exp is a numeric string is accepted.",
        accepts(_valid_except("exp", lambda exp: isinstance(exp, str) and exp.isdigit() and now() < int(exp))),
        "JWT-EXP/string",
    ),
    _mutant(
        "webhook-jwt-exp-unbounded",
        "The JWT `exp` may be any time ahead: a token valid for more than 10 minutes is accepted.",
        accepts(_valid_except("exp", lambda exp: _number(exp) and exp > now() + LIFETIME + LEEWAY)),
        "JWT-EXP/beyond-limit",
    ),
    _mutant(
        "webhook-jwt-expired-accepted",
        "The JWT `exp` is given a minute of leeway, not 5 seconds: a token expired 7 seconds ago is accepted.",
        accepts(_valid_except("exp", lambda exp: _number(exp) and now() - 60 < exp <= now() - LEEWAY)),
        "JWT-EXP/expired",
    ),
    _mutant(
        "webhook-jwt-exp-from-timestamp-past",
        "exp is measured from Webhook-Timestamp, not the clock: a token expired by the clock but not 5 minutes "
        "after an old timestamp is accepted.",
        accepts(_exp_from_timestamp(expired=True)),
        "JWT-EXP/expired-at-server-time",
    ),
    _mutant(
        "webhook-jwt-exp-from-timestamp-ahead",
        "The 10-minute ceiling is measured from Webhook-Timestamp: with a timestamp ahead, a token 11 minutes "
        "ahead of the clock is accepted.",
        accepts(_exp_from_timestamp(expired=False)),
        "JWT-EXP/beyond-limit-at-server-time",
    ),
    _mutant(
        "webhook-jwt-exp-no-leeway-ahead",
        "The 10-minute ceiling has no leeway: a token whose exp is 10 minutes and 5 seconds ahead is refused.",
        refuses(_valid_except("exp", lambda exp: _number(exp) and exp > now() + LIFETIME), "INVALID_CLAIM"),
        "JWT-EXP-LEEWAY/at-limit",
    ),
    _mutant(
        "webhook-jwt-exp-no-leeway-past",
        "Expiry has no leeway: a token that expired 3 seconds ago is refused TOKEN_EXPIRED.",
        refuses(_valid_except("exp", lambda exp: _number(exp) and exp <= now()), "TOKEN_EXPIRED"),
        "JWT-EXP-LEEWAY/within-leeway",
    ),
    _mutant(
        "webhook-jwt-exp-fraction-refused",
        "exp must be an integer: a fractional NumericDate (RFC 7519 2) is refused.",
        refuses(_valid_except("exp", lambda exp: isinstance(exp, float)), "INVALID_CLAIM"),
        "JWT-EXP-LEEWAY/fraction",
    ),
    _mutant(
        "webhook-jwt-nbf-ignored",
        "nbf is not checked: a token not valid until later is accepted.",
        accepts(_valid_except("nbf", lambda nbf: _number(nbf) and nbf > now() + LEEWAY)),
        "JWT-NBF-IAT/nbf-future",
    ),
    _mutant(
        "webhook-jwt-iat-ignored",
        "iat is not checked: a token issued in the future is accepted.",
        accepts(_valid_except("iat", lambda iat: _number(iat) and iat > now() + LEEWAY)),
        "JWT-NBF-IAT/iat-future",
    ),
    _mutant(
        "webhook-jwt-nbf-no-leeway",
        "nbf has no leeway: a token valid from 5 seconds ahead is refused.",
        refuses(_valid_except("nbf", lambda nbf: _number(nbf) and nbf > now()), "INVALID_CLAIM"),
        "JWT-TIME-LEEWAY/nbf-within-leeway",
    ),
    _mutant(
        "webhook-jwt-iat-no-leeway",
        "iat has no leeway: a token issued 5 seconds ahead (the sender's clock) is refused.",
        refuses(_valid_except("iat", lambda iat: _number(iat) and iat > now()), "INVALID_CLAIM"),
        "JWT-TIME-LEEWAY/iat-within-leeway",
    ),
    *_claim_mutants(
        "jti",
        "JWT-JTI",
        {
            "missing": lambda value, expected: value is ABSENT,
            "other-uuid": lambda value, expected: (
                isinstance(value, str) and bool(re.fullmatch(r"[0-9a-f-]{36}", value))
            ),
            "urn": lambda value, expected: isinstance(value, str) and value.removeprefix("urn:uuid:") == expected,
            "no-hyphens": lambda value, expected: isinstance(value, str) and value == expected.replace("-", ""),
            "array": lambda value, expected: value == [expected],
        },
    ),
    _mutant(
        "webhook-jwt-jti-case-refused",
        "jti is compared as text: the event id in other letter case (the same UUID) is refused.",
        refuses(
            lambda fx, r, t: (
                isinstance(t.claims.get("jti"), str)
                and t.claims["jti"] != (r.header("webhook-event-id") or "")
                and t.claims["jti"].lower() == (r.header("webhook-event-id") or "").lower()
            ),
            "INVALID_CLAIM",
        ),
        "JWT-JTI-CASE/other-letter-case",
    ),
    *_claim_mutants(
        "htm",
        "JWT-HTM",
        {
            "missing": lambda value, expected: value is ABSENT,
            "get": lambda value, expected: value == "GET",
            "lowercase": lambda value, expected: isinstance(value, str) and value.upper() == expected,
        },
    ),
    _mutant(
        "webhook-jwt-htb-missing-accepted",
        "htb_s256 is optional: a token without it is accepted.",
        accepts(claim("htb_s256", lambda value, expected: value is ABSENT)),
        "JWT-HTB/missing",
    ),
    _mutant(
        "webhook-jwt-htb-ignored",
        "The JWT `htb_s256` is not verified against the body: a token for another body is accepted.",
        accepts(claim("htb_s256", lambda value, expected: isinstance(value, str) and len(value) == 43)),
        "JWT-HTB/other-body",
    ),
    *[
        _mutant(
            f"webhook-jwt-htb-{variant}-accepted",
            f"htb_s256 is compared with another reading of the body ({variant.replace('-', ' ')}): such a "
            "token is accepted.",
            accepts(_htb_of(reading)),
            f"JWT-HTB/{variant}",
        )
        for variant, reading in {
            "trailing-newline": lambda body: _body_hash(body + b"\n"),
            "newline-stripped": lambda body: _body_hash(body.rstrip(b"\n")) if body.endswith(b"\n") else None,
            "reserialised": _reserialised,
            "padded": lambda body: base64.urlsafe_b64encode(hashlib.sha256(body).digest()).decode(),
            "standard-base64": lambda body: base64.b64encode(hashlib.sha256(body).digest()).decode(),
            "hex": lambda body: hashlib.sha256(body).hexdigest(),
        }.items()
    ],
    _mutant(
        "webhook-jwt-two-parts-accepted",
        "A token of two segments is taken as unsigned and accepted.",
        accepts_request(_segments(2)),
        "JWT-FORMAT/two-parts",
    ),
    _mutant(
        "webhook-jwt-four-parts-accepted",
        "A token of four segments is read by its first three and accepted.",
        accepts_request(_segments(4)),
        "JWT-FORMAT/four-parts",
    ),
    _mutant(
        "webhook-jwt-lenient-base64-accepted",
        "base64url is decoded leniently: characters outside the alphabet are dropped and the token accepted.",
        accepts_request(_lenient),
        "JWT-FORMAT/bad-base64",
    ),
    _mutant(
        "webhook-jwt-padded-signature-accepted",
        "The signature segment is read with PyJWT's padding rule: a token whose signature ends in '==' is accepted.",
        accepts_request(_padded),
        "JWT-FORMAT/padded-signature",
    ),
    _mutant(
        "webhook-jwt-json-serialisation-accepted",
        "A JWS JSON serialisation in the Authorization header is read and accepted.",
        accepts_request(_json_serialised),
        "JWT-FORMAT/json-serialisation",
    ),
    _mutant(
        "webhook-jwt-no-scheme-accepted",
        "A bare token in Authorization (no Bearer scheme) is accepted.",
        accepts_request(_scheme(lambda scheme: scheme == "")),
        "JWT-FORMAT/no-scheme",
    ),
    _mutant(
        "webhook-jwt-other-scheme-accepted",
        "Any Authorization scheme is taken for Bearer: 'JWT <token>' is accepted.",
        accepts_request(_scheme(lambda scheme: bool(scheme) and scheme.lower() != "bearer")),
        "JWT-FORMAT/other-scheme",
    ),
    _mutant(
        "webhook-jwt-bearer-case-refused",
        "The Bearer scheme is matched case-sensitively: 'bearer <token>' is refused (RFC 9110 11.1: it is not).",
        refuses(lambda fx, r, t: t.scheme != "Bearer", "MISSING_AUTHENTICATION"),
        "JWT-BEARER-FORMS/bearer-lowercase",
    ),
    _mutant(
        "webhook-jwt-bearer-spaces-refused",
        "The token is taken from after exactly 'Bearer ': with more spaces it is refused.",
        refuses(lambda fx, r, t: (r.header("authorization") or "").startswith(t.scheme + "  "), "INVALID_TOKEN"),
        "JWT-BEARER-FORMS/bearer-extra-spaces",
    ),
    _mutant(
        "webhook-jwt-iss-refused",
        "A token with an iss claim is refused (the contract does not check iss).",
        refuses(lambda fx, r, t: "iss" in t.claims, "INVALID_CLAIM"),
        "JWT-EXTRA-CLAIMS/iss-any",
    ),
    _mutant(
        "webhook-jwt-extra-claim-refused",
        "A token with a claim the contract does not name is refused.",
        refuses(lambda fx, r, t: bool(set(t.claims) - KNOWN_CLAIMS), "INVALID_CLAIM"),
        "JWT-EXTRA-CLAIMS/extra-claim",
    ),
    _mutant(
        "webhook-jwt-aud-array-refused",
        "aud must be a string: an array holding the listener's URL (RFC 7519 4.1.3) is refused.",
        refuses(lambda fx, r, t: isinstance(t.claims.get("aud"), list), "INVALID_CLAIM"),
        "JWT-AUD-ARRAY/aud-array-with-url",
    ),
]


# --- controls -----------------------------------------------------------------------------------------------------


def _other_documented_code(request: Request) -> str | None:
    """The other 401 code the contract allows for this refused token, where it leaves a choice: a kid that names
    no key but is not a plain unknown one (missing, a look-alike) may be INVALID_TOKEN; a token signed by a key
    its header names (jwk, jku, x5u, x5c) may be UNKNOWN_KID; a token without the Bearer scheme INVALID_TOKEN."""
    scheme, text = _authorization(request)
    token = _read(text)
    if scheme.lower() != "bearer":
        return "INVALID_TOKEN" if token is not None else None
    if token is None:
        return None
    if {"jwk", "jku", "x5u", "x5c"} & set(token.header):
        return "UNKNOWN_KID"
    kid = token.header.get("kid", ABSENT)
    if kid != JWT_KID and any(loose(kid) for loose in KID_LOOSE.values()):
        return "INVALID_TOKEN"
    return None


def _refusal_codes(fixtures: Fixtures) -> dict[str, Handler]:
    async def handle(request: Request, forward: Forward) -> Response:
        response = await forward(request)
        code = _other_documented_code(request) if _is_jwt(fixtures, request) and response.status == 401 else None
        if code is None:
            return response
        body = response.json()
        return Response(response.status, response.headers, json.dumps({**body, "code": code}).encode())

    return {"webhook": handle}


CONTROLS = [
    Mutant(
        "control-webhook-jwt-refusal-codes",
        "webhook",
        "Where the contract allows either 401 code, the JWT listener answers the other one (a kid look-alike or "
        "none: INVALID_TOKEN; a key named in the header: UNKNOWN_KID; no Bearer scheme: INVALID_TOKEN).",
        _refusal_codes,
        control=True,
        covers=(
            "JWT-REFUSAL-CODES/kid-look-alike-invalid-token",
            "JWT-REFUSAL-CODES/header-key-unknown-kid",
            "JWT-REFUSAL-CODES/no-scheme-invalid-token",
        ),
    ),
]
