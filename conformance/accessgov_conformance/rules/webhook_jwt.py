"""JWT listener rules: the attack lists of RFC 8725 (JWT BCP), RFC 7519 and RFC 7515 against the contract's JWT
method (`spec/components/securitySchemes/webhookJwt.yaml`), each forbidden variant sent on its own, and the forms
the contract allows accepted.

Tokens are built here byte by byte (`_compact`), not by a JWT library: a library refuses to make most attacks
(`none`, HS256 keyed with a public key, a header naming another algorithm than the signature's).
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import hmac
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import jwt
from accessgov_client.webhooks import jwt_algorithm
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from cryptography.x509.oid import NameOID

from ..context import Context, Exchange
from ..registry import Variant, rule, variants
from ..signing import MISSING, b64url
from ..verdicts import Fail, NoEvidence
from ._webhook import SECTION_ERRORS, accepted

FAMILY = "webhook-jwt"
SCHEME = "spec/components/securitySchemes/webhookJwt.yaml#/description"
SECTION = "Authentication > JWT method (Required claims)"
SECTION_ALG = "Authentication > JWT method (Supported algorithms)"
SECTION_KID = "Authentication > JWT method (kid)"
BODY = b'{"conformance":true}'
ALLOWED_ALGORITHMS = ("RS256", "ES256", "EdDSA")
LEEWAY = 5  # seconds of clock skew the contract allows on every time claim, and no more
MAX_LIFETIME = 600  # exp at most 10 minutes ahead
MARGIN = 2  # seconds either side of an exact limit: the kit's and the target's clock reads differ by a request
AUTH_CODES = ("INVALID_TOKEN", "UNKNOWN_KID", "INVALID_CLAIM", "TOKEN_EXPIRED", "MISSING_AUTHENTICATION")

Signer = Callable[[bytes], bytes]


# --- tokens ------------------------------------------------------------------------------------------------------


def _segment(value: Mapping[str, Any]) -> str:
    return b64url(json.dumps(value, separators=(",", ":")).encode())


def _compact(header: Mapping[str, Any], claims: Mapping[str, Any] | str, sign: Signer | None) -> str:
    """A compact JWS of the claims (or the claims' JSON text): `sign` gets the signing input; None leaves the
    signature empty."""
    payload = b64url(claims.encode()) if isinstance(claims, str) else _segment(claims)
    signing_input = f"{_segment(header)}.{payload}"
    return f"{signing_input}.{b64url(sign(signing_input.encode())) if sign else ''}"


def _private_key(ctx: Context) -> Any:
    """The configured JWT listener's signing key."""
    return serialization.load_pem_private_key(ctx.listener("jwt").private_key or b"", password=None)


def _signer(key: Any, alg: str | None = None) -> Signer:
    """Signs with `key` under `alg`, by default the key's own (PyJWT's algorithm objects: ECDSA as r||s, RSA-PSS
    salted)."""
    algorithm = jwt.get_algorithm_by_name(alg or jwt_algorithm(key))
    return lambda data: algorithm.sign(data, key)


def _hmac(secret: bytes, digest: str = "sha256") -> Signer:
    return lambda data: hmac.new(secret, data, digest).digest()


def _public_jwk(key: Any) -> dict[str, Any]:
    """The public JWK of `key` with only the RFC 7638 required members (what a JWKS entry holds at least)."""
    public = key.public_key()
    alg = jwt_algorithm(key)
    jwk: dict[str, Any] = json.loads(jwt.get_algorithm_by_name(alg).to_jwk(public))
    required = {"RSA": ("e", "kty", "n"), "EC": ("crv", "kty", "x", "y"), "OKP": ("crv", "kty", "x")}[jwk["kty"]]
    return {name: jwk[name] for name in required}


def public_key_secrets(key: Any) -> dict[str, bytes]:
    """The listener's public key material as an attacker would feed it to HMAC (RFC 8725 2.1, 3.1): its PEM, its
    JWK as canonical JSON (RFC 7638 member order, no whitespace), the JWK's key member (`x`, or `n` for RSA) as
    text, and the raw public key bytes."""
    public = key.public_key()
    jwk = _public_jwk(key)
    if isinstance(public, ed25519.Ed25519PublicKey):
        raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    elif isinstance(public, ec.EllipticCurvePublicKey):
        raw = public.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    else:
        raw = public.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.PKCS1)
    return {
        "hs256-pem": public.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo),
        "hs256-jwk-json": json.dumps(jwk, separators=(",", ":"), sort_keys=True).encode(),
        "hs256-jwk-member": str(jwk.get("x", jwk.get("n"))).encode(),
        "hs256-raw-key": raw,
    }


def _attacker_key(key: Any) -> Any:
    """A fresh key of the listener key's type: what an attacker signs with and names in the header."""
    if isinstance(key, rsa.RSAPrivateKey):
        return rsa.generate_private_key(public_exponent=65537, key_size=2048)
    if isinstance(key, ec.EllipticCurvePrivateKey):
        return ec.generate_private_key(ec.SECP256R1())
    return ed25519.Ed25519PrivateKey.generate()


def _self_signed(key: Any) -> str:
    """An `x5c` entry: a self-signed certificate for `key`, base64 DER (RFC 7515 4.1.6)."""
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "conformance attacker")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .sign(key, None if isinstance(key, ed25519.Ed25519PrivateKey) else hashes.SHA256())
    )
    return base64.b64encode(certificate.public_bytes(serialization.Encoding.DER)).decode()


@dataclass(frozen=True)
class Attack:
    """One delivery to the JWT listener: the token's header, claims and signer changed as given, or a whole
    Authorization value; the body sent and the body the token's `htb_s256` hashes."""

    header: Mapping[str, Any] | None = None  # merged over {alg, kid}; MISSING removes a member
    claims: Mapping[str, Any] | None = None  # merged over the six required claims; MISSING removes one
    sign: Signer | None = None  # None: the listener's key under its algorithm
    unsigned: bool = False
    authorization: Callable[[str], str] | None = None  # the header value made of the token
    body: bytes = BODY
    hashed_body: bytes | None = None
    token: Callable[[str], str] | None = None  # rewrites the compact token
    payload: Callable[[Mapping[str, Any]], str] | None = None  # the claims' JSON text made of the claims
    jti: Callable[[str], Any] | None = None  # the jti claim made of the event id sent
    timestamp_offset: int = 0  # Webhook-Timestamp, seconds from now (within the window)


def claim_attacks(claim: str, values: Mapping[str, Any]) -> dict[str, Attack]:
    """An attack per named value of `claim` (MISSING: without it), every other claim and the header correct."""
    return {name: Attack(claims={claim: value}) for name, value in values.items()}


def header_attacks(member: str, values: Mapping[str, Any]) -> dict[str, Attack]:
    """An attack per named value of the header's `member` (MISSING: without it), validly signed."""
    return {name: Attack(header={member: value}) for name, value in values.items()}


@dataclass(frozen=True)
class At:
    """A time claim `seconds` from the moment its token is made (`text`: as a string): a token made again after
    a 429 was waited out keeps its claims' distance from the clock."""

    seconds: float
    text: bool = False

    def value(self, now: int) -> Any:
        moment = now + self.seconds
        return str(int(moment)) if self.text else (int(moment) if float(moment).is_integer() else moment)


def send(ctx: Context, attack: Attack = Attack()) -> Exchange:
    """Deliver `attack` to the configured JWT listener, every other part of the request correct; the token is
    made for the moment each attempt is sent."""
    listener = ctx.listener("jwt")
    key = _private_key(ctx)
    event_id = ctx.event_id()

    def authorization(now: int) -> dict[str, str]:
        return {"Authorization": _authorization(ctx, attack, listener, key, event_id, now)}

    exchange = ctx.deliver(
        listener, attack.body, event_id=event_id, timestamp_offset=attack.timestamp_offset, headers_at=authorization
    )
    if exchange.webhook is not None:
        # A fresh event id and the clock the claims were made at (the recipe's): a pasted reproduce line can make
        # both again.
        exchange.webhook.fresh_event_id = True
    return exchange


def _authorization(ctx: Context, attack: Attack, listener: Any, key: Any, event_id: str, now: int) -> str:
    """The Authorization value of `attack`, its token made at `now`."""
    claims: dict[str, Any] = {
        "sub": ctx.config.tenant_base_url,
        "aud": ctx.webhook_url(listener.id),
        "iat": now,
        "exp": now + 300,
        "jti": event_id,
        "htm": "POST",
        "htb_s256": b64url(hashlib.sha256(attack.body if attack.hashed_body is None else attack.hashed_body).digest()),
    }
    header: dict[str, Any] = {"alg": jwt_algorithm(key), "typ": "JWT", "kid": listener.kid or ""}
    if attack.jti is not None:
        claims["jti"] = attack.jti(event_id)
        if claims["jti"] is MISSING:
            del claims["jti"]
    for target, changes in ((claims, attack.claims), (header, attack.header)):
        for name, value in (changes or {}).items():
            if value is MISSING:
                target.pop(name, None)
            else:
                target[name] = value.value(now) if isinstance(value, At) else value
    sign = None if attack.unsigned else attack.sign or _signer(key)
    token = _compact(header, attack.payload(claims) if attack.payload else claims, sign)
    if attack.token is not None:
        token = attack.token(token)
    return attack.authorization(token) if attack.authorization else f"Bearer {token}"


# --- verdicts ----------------------------------------------------------------------------------------------------


def _baseline(ctx: Context) -> None:
    """A correct token is accepted by the same listener first: a refusal only means something from a listener
    that accepts what the contract allows (else every attack would 'pass' against a listener refusing all)."""
    exchange = send(ctx)
    if exchange.status != 200:
        raise NoEvidence(
            f"the JWT listener refuses a correct token (HTTP {exchange.status}), so its refusals show nothing "
            "(see WH-JWT-001)"
        )
    accepted(ctx, exchange, what="a correct token")


def refused(
    ctx: Context, attacks: Mapping[str, Attack], codes: Iterable[str] = AUTH_CODES, *, baseline: bool = True
) -> None:
    """Each attack is answered 401 with one of `codes`; every accepted attack is named in one failure."""
    if baseline:
        _baseline(ctx)
    allowed = tuple(codes)
    failures: list[str] = []
    for name, attack in attacks.items():
        exchange = send(ctx, attack)
        try:
            body = ctx.expect(exchange, 401, what=name)
            if isinstance(body, dict) and body.get("code") not in allowed:
                raise Fail(
                    f"{name}: HTTP 401 as expected but Error.code is {body.get('code')!r}, not {' or '.join(allowed)}"
                )
        except Fail as failure:
            failures.append(str(failure))
    if failures:
        raise Fail("; ".join(failures))


def admitted(ctx: Context, attacks: Mapping[str, Attack]) -> None:
    """Each delivery, which the contract allows, is accepted (200 naming its event)."""
    failures: list[str] = []
    for name, attack in attacks.items():
        try:
            accepted(ctx, send(ctx, attack), what=name)
        except Fail as failure:
            failures.append(str(failure))
    if failures:
        raise Fail("; ".join(failures))


@dataclass(frozen=True)
class Refusals:
    """Attacks on the JWT listener, made afresh by each check, and the codes a 401 refusing one may carry."""

    attacks: Callable[[Context], Mapping[str, Attack]]
    codes: tuple[str, ...]


def all_refused(ctx: Context, value: Refusals) -> None:
    """Each attack is refused (see `refused`), once a correct token was accepted."""
    refused(ctx, value.attacks(ctx), value.codes)


# --- URL spellings -----------------------------------------------------------------------------------------------


def _default_port(url: str) -> str:
    """`url` with its scheme's default port spelled out (or, when it names a port, without it)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    host = f"[{host}]" if ":" in host else host
    netloc = host if parts.port is not None else f"{host}:{443 if parts.scheme == 'https' else 80}"
    return urlunsplit(parts._replace(netloc=netloc))


def _other_scheme(url: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(scheme="http" if parts.scheme == "https" else "https"))


def _other_host(url: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(netloc="other-tenant.accessgov.example"))


def url_variants(url: str) -> dict[str, str]:
    """The spellings of `url` that name another (or only a look-alike) address: exact matching refuses each."""
    return {
        "other-host": _other_host(url),
        "other-scheme": _other_scheme(url),
        "trailing-slash": url + "/",
        "prefix": url[:-1],
        "suffix": url + "x",
        "case-folded": url.upper(),
        "default-port": _default_port(url),
        "whitespace": url + " ",
    }


# --- rules -------------------------------------------------------------------------------------------------------


@rule(
    "WH-JWT-001",
    family=FAMILY,
    title="A correctly signed JWT is accepted",
    text="A delivery with a JWT carrying every required claim, signed by the configured key, is accepted (200).",
    spec=SCHEME,
    requirements=SECTION,
)
def valid(ctx: Context) -> None:
    accepted(ctx, send(ctx))


@rule(
    "WH-JWT-002",
    family=FAMILY,
    title="A JWT listener requires Authorization",
    text="A delivery without Authorization is answered 401 MISSING_AUTHENTICATION.",
    spec="spec/components/schemas/Error.yaml#/description (MISSING_AUTHENTICATION)",
    requirements=SECTION_ERRORS,
)
def missing(ctx: Context) -> None:
    _baseline(ctx)
    exchange = ctx.deliver(ctx.listener("jwt"), omit=("Authorization",))
    ctx.expect(exchange, 401, code="MISSING_AUTHENTICATION", what="no Authorization")


# The rules that only refuse: each function below makes a rule's attacks, the table after them names the rule and
# the codes its 401s may carry (`all_refused`).


def unknown_kid(ctx: Context) -> dict[str, Attack]:
    kid = f"conformance-{ctx.rng.getrandbits(32):08x}"
    return {"unknown kid": Attack(header={"kid": kid})}


def forged(ctx: Context) -> dict[str, Attack]:
    key = _private_key(ctx)
    other = _attacker_key(key)
    return {"foreign key": Attack(sign=_signer(other))}


def algorithms(ctx: Context) -> dict[str, Attack]:
    key = _private_key(ctx)
    own = _signer(key)
    pss = _signer(key, "PS256") if isinstance(key, rsa.RSAPrivateKey) else own
    es512 = (
        _signer(key, "ES512") if isinstance(key, ec.EllipticCurvePrivateKey) and key.curve.name == "secp521r1" else own
    )
    return {
        "none-unsigned": Attack(header={"alg": "none"}, unsigned=True),
        "none-signed": Attack(header={"alg": "none"}),
        "none-uppercase": Attack(header={"alg": "NONE"}, unsigned=True),
        "alg-missing": Attack(header={"alg": MISSING}),
        "ps256": Attack(header={"alg": "PS256"}, sign=pss),
        "es512": Attack(header={"alg": "ES512"}, sign=es512),
    }


def key_confusion(ctx: Context) -> dict[str, Attack]:
    key = _private_key(ctx)
    return {
        name: Attack(header={"alg": "HS256"}, sign=_hmac(secret)) for name, secret in public_key_secrets(key).items()
    }


def mismatched_algorithms(key: Any) -> list[str]:
    """The contract's algorithms that do not fit `key`, in the contract's order."""
    return [alg for alg in ALLOWED_ALGORITHMS if alg != jwt_algorithm(key)]


def algorithm_fits_key(ctx: Context) -> dict[str, Attack]:
    key = _private_key(ctx)
    names = ("mismatched-alg-a", "mismatched-alg-b")
    return header_attacks("alg", dict(zip(names, mismatched_algorithms(key), strict=True)))


def header_keys(ctx: Context) -> dict[str, Attack]:
    listener = ctx.listener("jwt")
    other = _attacker_key(_private_key(ctx))
    sign = _signer(other)
    jwk = {**_public_jwk(other), "kid": listener.kid, "use": "sig", "alg": jwt_algorithm(other)}
    return {
        "jwk": Attack(header={"jwk": jwk}, sign=sign),
        "jku": Attack(header={"jku": "https://attacker.invalid/jwks.json"}, sign=sign),
        "x5u": Attack(header={"x5u": "https://attacker.invalid/cert.pem"}, sign=sign),
        "x5c": Attack(header={"x5c": [_self_signed(other)]}, sign=sign),
    }


def kid_variants(kid: str) -> dict[str, Any]:
    """kid values that name no key of the JWKS but look like the listener's (each token validly signed)."""
    variants: dict[str, Any] = {
        "kid-missing": MISSING,
        "kid-prefix": kid[:-1],
        "kid-suffix": kid + "x",
        "kid-whitespace": kid + " ",
        "kid-path-traversal": "../" + kid,
        "kid-injection": kid + "' OR '1'='1",
    }
    if kid.swapcase() != kid:
        variants["kid-case-folded"] = kid.swapcase()
    return variants


def kid_exact(ctx: Context) -> dict[str, Attack]:
    kid = ctx.listener("jwt").kid or ""
    return header_attacks("kid", kid_variants(kid))


def critical(ctx: Context) -> dict[str, Attack]:
    return {
        "crit-unknown": Attack(header={"crit": ["conformance-ext"], "conformance-ext": True}),
        "crit-empty": Attack(header={"crit": []}),
        "b64-false": Attack(header={"b64": False, "crit": ["b64"]}),
    }


def subject(ctx: Context) -> dict[str, Attack]:
    base = ctx.config.tenant_base_url
    values: dict[str, Any] = {"missing": MISSING, **url_variants(base), "path-appended": base + "/api/v1"}
    values["array"] = [base]
    return claim_attacks("sub", values)


def audience(ctx: Context) -> dict[str, Attack]:
    listener = ctx.listener("jwt")
    url = ctx.webhook_url(listener.id)
    values: dict[str, Any] = {"missing": MISSING, **url_variants(url)}
    values["other-path"] = ctx.webhook_url(listener.id + "-other")
    values["path-only"] = urlsplit(url).path
    values["base-only"] = ctx.config.webhook_audience_base
    values["query"] = url + "?listener=" + listener.id
    values["array-without-url"] = [ctx.webhook_url(listener.id + "-other")]
    requested = ctx.config.base_url.rstrip("/") + urlsplit(url).path
    if requested != url:  # the URL the kit sends to, when it is not the listener's (a test or a proxy in front)
        values["request-url"] = requested
    attacks = claim_attacks("aud", values)
    # RFC 7519 4: a parser rejects duplicate claim names or keeps the last one; the last one here is wrong.
    attacks["duplicate-last-wrong"] = Attack(payload=lambda claims: _duplicate(claims, "aud", _other_host(url)))
    return attacks


variants(
    FAMILY,
    all_refused,
    (
        Variant(
            "WH-JWT-003",
            title="The JWT's kid must name a key of the listener's JWKS",
            text="A JWT whose header kid is not in the JWKS is answered 401 UNKNOWN_KID.",
            spec="spec/components/schemas/Error.yaml#/description (UNKNOWN_KID)",
            requirements=SECTION_KID,
            value=Refusals(unknown_kid, ("UNKNOWN_KID",)),
        ),
        Variant(
            "WH-JWT-004",
            title="The JWT's signature is verified",
            text="A JWT signed by another key under the listener's kid is answered 401 INVALID_TOKEN.",
            spec="spec/components/schemas/Error.yaml#/description (INVALID_TOKEN)",
            requirements=SECTION_ERRORS,
            value=Refusals(forged, ("INVALID_TOKEN",)),
        ),
        Variant(
            "WH-JWT-005",
            title="Only RS256, ES256 and EdDSA are accepted",
            text="A JWT with alg none (unsigned, signed, or spelled NONE), no alg, or an algorithm the contract does "
            "not name (PS256, ES512; validly signed where the listener's key allows it) is answered 401 "
            "INVALID_TOKEN.",
            spec=SCHEME,
            requirements=SECTION_ALG,
            value=Refusals(algorithms, ("INVALID_TOKEN",)),
        ),
        Variant(
            "WH-JWT-CONFUSION",
            title="HS256 keyed with the listener's public key is refused",
            text="A JWT with alg HS256 whose HMAC key is the listener's public key material (its PEM, its JWK as "
            "JSON, the JWK's x or n member, the raw key bytes) is answered 401 INVALID_TOKEN (RFC 8725 2.1).",
            spec=SCHEME,
            requirements=SECTION_ALG,
            value=Refusals(key_confusion, ("INVALID_TOKEN",)),
        ),
        Variant(
            "WH-JWT-ALGKEY",
            title="The algorithm must fit the key",
            text="A JWT signed by the listener's key whose header names one of the other two allowed algorithms "
            "(RS256 on an Ed25519 key, ES256 on an RSA key...) is answered 401 INVALID_TOKEN: the algorithm comes "
            "from the header and must be the key's (RFC 8725 3.1).",
            spec=SCHEME,
            requirements=SECTION_ALG,
            value=Refusals(algorithm_fits_key, ("INVALID_TOKEN",)),
        ),
        Variant(
            "WH-JWT-HDRKEY",
            title="Keys named in the token's header are ignored",
            text="A JWT signed by another key that the header names (an embedded jwk, a jku or x5u URL, an x5c "
            "certificate), under the listener's kid, is answered 401: keys come only from the listener's JWKS.",
            spec=SCHEME,
            requirements="Authentication > JWT method (JWKS)",
            value=Refusals(header_keys, ("INVALID_TOKEN", "UNKNOWN_KID", "JWKS_UNREACHABLE")),
        ),
        Variant(
            "WH-JWT-KID",
            title="kid is matched exactly",
            text="A JWT signed by the listener's key whose kid is missing, a prefix or an extension of the key's kid, "
            "in other letter case, with whitespace, a path (../kid) or an injection is answered 401.",
            spec=SCHEME,
            requirements=SECTION_KID,
            value=Refusals(kid_exact, ("UNKNOWN_KID", "INVALID_TOKEN")),
        ),
        Variant(
            "WH-JWT-CRIT",
            title="A JWT that asks for extensions is refused",
            text="A JWT whose header has crit naming an unknown extension, an empty crit, or b64 false (RFC 7797) is "
            "answered 401 INVALID_TOKEN: the listener implements no JWS extension (RFC 7515 4.1.11).",
            spec=SCHEME,
            requirements=SECTION_ALG,
            value=Refusals(critical, ("INVALID_TOKEN",)),
        ),
        Variant(
            "WH-JWT-SUB",
            title="sub is exactly the tenant base URL",
            text="A JWT whose sub is missing, another host or scheme, the base URL with a trailing slash, a prefix or "
            "an extension of it, case-folded, with whitespace, with the default port spelled out, with a path, or an "
            "array is answered 401 INVALID_CLAIM.",
            spec=SCHEME,
            requirements=f"{SECTION} sub",
            value=Refusals(subject, ("INVALID_CLAIM",)),
        ),
        Variant(
            "WH-JWT-AUD",
            title="aud is exactly the full URL of the endpoint called",
            text="A JWT whose aud is missing, another host, path or scheme, the URL with a trailing slash, a prefix "
            "or an extension of it, case-folded, with whitespace, its path only, the base URL only, the URL the "
            "request was sent to (when another), with a query string or the default port, an array without the URL, "
            "or given twice with the last one wrong is answered 401.",
            spec=SCHEME,
            requirements=f"{SECTION} aud",
            value=Refusals(audience, ("INVALID_CLAIM", "INVALID_TOKEN")),
        ),
    ),
)


def _duplicate(claims: Mapping[str, Any], name: str, last: Any) -> str:
    """The claims' JSON with `name` written twice: its value first, then `last`."""
    text = json.dumps(claims, separators=(",", ":"))
    return f"{text[:-1]},{json.dumps(name)}:{json.dumps(last)}}}"


@rule(
    "WH-JWT-EXP",
    family=FAMILY,
    title="exp is required, not passed, and at most 10 minutes ahead, with 5 seconds of leeway",
    text="A JWT without exp, with exp as a string, or more than 10 minutes and 5 seconds ahead is 401 "
    "INVALID_CLAIM; one that expired more than 5 seconds ago is 401 TOKEN_EXPIRED (each 2 s past the limit for "
    "the clock reads); both measured on the server's clock, not from Webhook-Timestamp.",
    spec=SCHEME,
    requirements=f"{SECTION} exp; Limits (JWT exp)",
)
def expiry(ctx: Context) -> None:

    refused(
        ctx,
        {
            "missing": Attack(claims={"exp": MISSING}),
            "string": Attack(claims={"exp": At(300, text=True)}),
            "beyond-limit": Attack(claims={"exp": At(MAX_LIFETIME + LEEWAY + MARGIN)}),
        },
        ("INVALID_CLAIM",),
    )
    refused(
        ctx,
        {
            "expired": Attack(claims={"exp": At(-LEEWAY - MARGIN)}),
            # Within 10 minutes of a Webhook-Timestamp 200 s old, but past by the server's clock.
            "expired-at-server-time": Attack(claims={"exp": At(-60)}, timestamp_offset=-200),
        },
        ("TOKEN_EXPIRED",),
        baseline=False,
    )
    # Not expired and within 10 minutes of a Webhook-Timestamp 250 s ahead, but beyond them by the server's clock.
    beyond = Attack(claims={"exp": At(MAX_LIFETIME + 100)}, timestamp_offset=250)
    refused(ctx, {"beyond-limit-at-server-time": beyond}, ("INVALID_CLAIM",), baseline=False)


@rule(
    "WH-JWT-EXP-OK",
    family=FAMILY,
    title="exp within the limits and the leeway is accepted",
    text="A JWT whose exp is exactly 10 minutes and 5 seconds ahead, 3 seconds past (within the leeway), or a "
    "fractional NumericDate (RFC 7519 2) is accepted; so is exp 10 minutes and 5 seconds ahead with iat and nbf 5 "
    "minutes past, or with Webhook-Timestamp 250 s past: the limit is measured from the server's now, not from "
    "iat, nbf or the timestamp.",
    spec=SCHEME,
    requirements=f"{SECTION} exp; Limits (JWT exp)",
)
def expiry_allowed(ctx: Context) -> None:

    admitted(
        ctx,
        {
            # The target reads its clock after the kit: now + 605 is at most its limit, never past it.
            "at-limit": Attack(claims={"exp": At(MAX_LIFETIME + LEEWAY)}),
            "within-leeway": Attack(claims={"exp": At(-LEEWAY + MARGIN)}),
            "fraction": Attack(claims={"exp": At(300.5)}),
            "at-limit-old-iat": Attack(claims={"exp": At(MAX_LIFETIME + LEEWAY), "iat": At(-300)}),
            "at-limit-old-nbf": Attack(claims={"exp": At(MAX_LIFETIME + LEEWAY), "iat": At(-300), "nbf": At(-300)}),
            "at-limit-old-timestamp": Attack(claims={"exp": At(MAX_LIFETIME + LEEWAY)}, timestamp_offset=-250),
        },
    )


@rule(
    "WH-JWT-NBF",
    family=FAMILY,
    title="nbf and iat in the future are refused beyond the leeway",
    text="A JWT whose nbf or iat is more than 5 seconds ahead (by 2 s) is 401 INVALID_CLAIM; at 5 seconds ahead "
    "each is accepted.",
    spec=SCHEME,
    requirements=f"{SECTION} (time claims)",
)
def not_before(ctx: Context) -> None:

    ahead = At(LEEWAY + MARGIN)
    refused(
        ctx,
        {"nbf-future": Attack(claims={"nbf": ahead}), "iat-future": Attack(claims={"iat": ahead})},
        ("INVALID_CLAIM",),
    )

    admitted(
        ctx,
        {
            "nbf-within-leeway": Attack(claims={"nbf": At(LEEWAY)}),
            "iat-within-leeway": Attack(claims={"iat": At(LEEWAY)}),
        },
    )


@rule(
    "WH-JWT-JTI",
    family=FAMILY,
    title="jti is the Webhook-Event-Id",
    text="A JWT whose jti is missing, another UUID v4, the event id as a URN, without hyphens, or in an array is "
    "answered 401 INVALID_CLAIM; the same UUID in other letter case is accepted (UUIDs compare by value).",
    spec=SCHEME,
    requirements=f"{SECTION} jti",
)
def token_id(ctx: Context) -> None:
    variants: dict[str, Callable[[str], Any]] = {
        "missing": lambda _: MISSING,
        "other-uuid": lambda _: ctx.event_id(),
        "urn": lambda event_id: "urn:uuid:" + event_id,
        "no-hyphens": lambda event_id: event_id.replace("-", ""),
        "array": lambda event_id: [event_id],
    }
    refused(ctx, {name: Attack(jti=jti) for name, jti in variants.items()}, ("INVALID_CLAIM",))
    admitted(ctx, {"jti in upper case, Webhook-Event-Id in lower case": Attack(jti=str.upper)})


# More rules that only refuse (a table as above).


def method(ctx: Context) -> dict[str, Attack]:
    values = {"missing": MISSING, "get": "GET", "lowercase": "post"}
    return claim_attacks("htm", values)


def _dashed_body() -> bytes:
    """A body whose SHA-256 in base64url holds '-' or '_': its standard base64 then differs in more than padding."""
    for n in range(1000):
        body = b'{"conformance":%d}' % n
        if set(b64url(hashlib.sha256(body).digest())) & {"-", "_"}:
            return body
    raise AssertionError("unreachable: one body in a few has '-' or '_' in its hash")


def htb_variants() -> dict[str, Attack]:
    """Tokens whose htb_s256 is not base64url (no padding) of SHA-256 over the exact bytes sent."""
    body = _dashed_body()
    digest = hashlib.sha256(body).digest()
    return {
        "missing": Attack(claims={"htb_s256": MISSING}),
        "other-body": Attack(body=b'{"amount":43}', hashed_body=b'{"amount":42}'),
        "trailing-newline": Attack(body=BODY, hashed_body=BODY + b"\n"),
        "newline-stripped": Attack(body=BODY + b"\n", hashed_body=BODY),
        "reserialised": Attack(body=b'{ "conformance" : true }', hashed_body=BODY),
        "padded": Attack(body=body, claims={"htb_s256": b64url(digest) + "="}),
        "standard-base64": Attack(body=body, claims={"htb_s256": base64.b64encode(digest).decode()}),
        "hex": Attack(body=body, claims={"htb_s256": digest.hex()}),
    }


def body_hash(ctx: Context) -> dict[str, Attack]:
    return htb_variants()


def padded(token: str) -> str:
    """The token with its signature segment padded with `=` to a whole base64 quantum (PyJWT reads it)."""
    return token + "=" * (-len(token.rpartition(".")[2]) % 4 or 4)


def token_format(ctx: Context) -> dict[str, Attack]:
    def stray(token: str) -> str:
        head, _, signature = token.rpartition(".")
        return f"{head}.{signature[:10]}!{signature[10:]}"

    def json_serialised(token: str) -> str:
        protected, payload, signature = token.split(".")
        return json.dumps({"protected": protected, "payload": payload, "signature": signature}, separators=(",", ":"))

    return {
        "two-parts": Attack(token=lambda token: token.rpartition(".")[0]),
        "four-parts": Attack(token=lambda token: token + ".AAAA"),
        "bad-base64": Attack(token=stray),
        "padded-signature": Attack(token=padded),
        "json-serialisation": Attack(token=json_serialised),
        "no-scheme": Attack(authorization=lambda token: token),
        "other-scheme": Attack(authorization=lambda token: f"JWT {token}"),
    }


variants(
    FAMILY,
    all_refused,
    (
        Variant(
            "WH-JWT-HTM",
            title="htm is exactly POST",
            text="A JWT whose htm is missing, GET, or post in lower case is answered 401 INVALID_CLAIM.",
            spec=SCHEME,
            requirements=f"{SECTION} htm",
            value=Refusals(method, ("INVALID_CLAIM",)),
        ),
        Variant(
            "WH-JWT-HTB",
            title="htb_s256 is base64url SHA-256 of the exact bytes received",
            text="A JWT whose htb_s256 is missing, hashes another body, the body with a trailing newline added or "
            "removed or re-serialised, or is padded, standard base64 or hex is answered 401 INVALID_CLAIM.",
            spec=SCHEME,
            requirements=f"{SECTION} htb_s256",
            value=Refusals(body_hash, ("INVALID_CLAIM",)),
        ),
        Variant(
            "WH-JWT-FORMAT",
            title="Only a compact JWS after 'Bearer ' is a token",
            text="An Authorization value with two or four token segments, a stray character in the base64url, = "
            "padding, a JWS JSON serialisation, the token without the Bearer scheme, or under another scheme is "
            "answered 401.",
            spec="spec/components/securitySchemes/webhookJwt.yaml",
            requirements="Authentication > JWT method (Authorization: Bearer)",
            value=Refusals(token_format, ("INVALID_TOKEN", "MISSING_AUTHENTICATION")),
        ),
    ),
)


@rule(
    "WH-JWT-FORMS",
    family=FAMILY,
    title="What the contract allows of a token is accepted",
    text="The Bearer scheme in lower case and with more than one space (RFC 6750, RFC 9110 11.1), an iss claim "
    "(not checked), an extra claim, and aud as an array holding the URL (RFC 7519 4.1.3) are accepted.",
    spec=SCHEME,
    requirements=SECTION,
)
def allowed_forms(ctx: Context) -> None:
    url = ctx.webhook_url(ctx.listener("jwt").id)
    admitted(
        ctx,
        {
            "bearer-lowercase": Attack(authorization=lambda token: f"bearer {token}"),
            "bearer-extra-spaces": Attack(authorization=lambda token: f"Bearer   {token}"),
            "iss-any": Attack(claims={"iss": "https://sender.conformance.example"}),
            "extra-claim": Attack(claims={"conformance": {"nested": [1, 2]}}),
            "aud-array-with-url": Attack(claims={"aud": [url, "https://other.conformance.example/hook"]}),
        },
    )
