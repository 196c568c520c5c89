"""The probes of the JWT listener's mutants (tests/conformance/selftest/mutants/webhook_jwt.py): one delivery each,
whose status the mutant answers differently from the unchanged reference server (test_mutants.py runs them); tokens are
built byte by byte here, as the attacks need."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
import uuid
from collections.abc import Callable
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519

from tests.conformance.selftest.mutants.webhook_jwt import HMAC_SECRETS
from tests.conformance.selftest.probes.probing import Probe, Target
from tests.conformance.selftest.target import JWT_KID, JWT_LISTENER_ID
from tests.support.keys import certificate

BODY = b'{"orderId":"A-1"}'
PATH = f"/api/v1/webhooks/incoming/{JWT_LISTENER_ID}"
DROP = object()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _hash(body: bytes) -> str:
    return _b64(hashlib.sha256(body).digest())


def _key(t: Target) -> ed25519.Ed25519PrivateKey:
    key = serialization.load_pem_private_key(t.fx.jwt_private_pem, password=None)
    assert isinstance(key, ed25519.Ed25519PrivateKey)
    return key


def deliver(
    t: Target,
    *,
    header: dict[str, Any] | None = None,
    claims: dict[str, Any] | None = None,
    sign: Callable[[bytes], bytes] | None = None,
    unsigned: bool = False,
    body: bytes = BODY,
    hashed: bytes | None = None,
    token: Callable[[str], str] = lambda token: token,
    authorization: Callable[[str], str] = lambda token: f"Bearer {token}",
    headers: dict[str, str] | None = None,
    payload_suffix: str = "",
    skew: int = 0,
) -> int:
    """The status of one delivery to the JWT listener, correct but for what the keywords change."""
    now = int(time.time())
    event_id = str(uuid.uuid4())
    payload: dict[str, Any] = {
        "sub": t.fx.tenant_base_url,
        "aud": t.fx.tenant_base_url + PATH,
        "iat": now,
        "exp": now + 300,
        "jti": event_id,
        "htm": "POST",
        "htb_s256": _hash(body if hashed is None else hashed),
    }
    head: dict[str, Any] = {"alg": "EdDSA", "typ": "JWT", "kid": JWT_KID}
    for target, changes in ((payload, claims), (head, header)):
        for name, value in (changes or {}).items():
            if value is DROP:
                target.pop(name, None)
            else:
                target[name] = value
    text = json.dumps(payload)[:-1] + payload_suffix + "}"  # a suffix writes members again (duplicates)
    signing_input = f"{_b64(json.dumps(head).encode())}.{_b64(text.encode())}"
    signature = b"" if unsigned else (sign or _key(t).sign)(signing_input.encode())
    compact = token(f"{signing_input}.{_b64(signature)}")
    sent = {
        "Content-Type": "application/json",
        "Webhook-Timestamp": str(now + skew),
        "Webhook-Event-Id": event_id,
        "Authorization": authorization(compact),
        **(headers or {}),
    }
    return t.client.post(PATH, content=body, headers=sent).status_code


def _other() -> ed25519.Ed25519PrivateKey:
    return ed25519.Ed25519PrivateKey.generate()


def _x5c(key: ed25519.Ed25519PrivateKey) -> str:
    return base64.b64encode(certificate("probe", key).public_bytes(serialization.Encoding.DER)).decode()


def _foreign(t: Target, **header: Any) -> int:
    other = _other()
    if header.pop("embed_jwk", False):
        raw = other.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        header["jwk"] = {"kty": "OKP", "crv": "Ed25519", "x": _b64(raw), "kid": JWT_KID}
    if header.pop("embed_x5c", False):
        header["x5c"] = [_x5c(other)]
    return deliver(t, header=header, sign=other.sign)


def _hs256(variant: str) -> Callable[[Target], int]:
    def probe(t: Target) -> int:
        secret = HMAC_SECRETS[variant](t.fx)
        return deliver(t, header={"alg": "HS256"}, sign=lambda data: hmac.new(secret, data, hashlib.sha256).digest())

    return probe


def _url_variants(url: str) -> dict[str, str]:
    scheme, _, rest = url.partition("://")
    host, slash, path = rest.partition("/")
    return {
        "other-host": f"{scheme}://other-tenant.accessgov.example{slash}{path}",
        "other-scheme": ("http" if scheme == "https" else "https") + "://" + rest,
        "trailing-slash": url + "/",
        "prefix": url[:-1],
        "suffix": url + "x",
        "case-folded": url.upper(),
        "default-port": f"{scheme}://{host}:{443 if scheme == 'https' else 80}{slash}{path}",
        "whitespace": url + " ",
    }


def _claim(name: str, value: Callable[[Target], Any]) -> Callable[[Target], int]:
    return lambda t: deliver(t, claims={name: value(t)})


def _claim_probes() -> dict[str, Callable[[Target], int]]:
    probes: dict[str, Callable[[Target], int]] = {}
    for variant in _url_variants("https://x/y"):
        probes[f"webhook-jwt-sub-{variant}-accepted"] = _claim(
            "sub", lambda t, v=variant: _url_variants(t.fx.tenant_base_url)[v]
        )
        probes[f"webhook-jwt-aud-{variant}-accepted"] = _claim(
            "aud", lambda t, v=variant: _url_variants(t.fx.tenant_base_url + PATH)[v]
        )
    aud = {
        "missing": lambda t: DROP,
        "other-path": lambda t: t.fx.tenant_base_url + PATH + "-other",
        "path-only": lambda t: PATH,
        "base-only": lambda t: t.fx.tenant_base_url,
        "query": lambda t: t.fx.tenant_base_url + PATH + "?x=1",
        "array-without-url": lambda t: [t.fx.tenant_base_url + PATH + "-other"],
    }
    sub = {
        "missing": lambda t: DROP,
        "path-appended": lambda t: t.fx.tenant_base_url + "/api/v1",
        "array": lambda t: [t.fx.tenant_base_url],
    }
    for name, values in (("aud", aud), ("sub", sub)):
        for variant, value in values.items():
            probes[f"webhook-jwt-{name}-{variant}-accepted"] = _claim(name, value)
    return probes


def _jti(change: Callable[[str], Any]) -> Callable[[Target], int]:
    """A token whose jti is `change(event id)`."""

    def probe(t: Target) -> int:
        event_id = str(uuid.uuid4())
        return deliver(t, claims={"jti": change(event_id)}, headers={"Webhook-Event-Id": event_id})

    return probe


def _stray(token: str) -> str:
    head, _, signature = token.rpartition(".")
    return f"{head}.{signature[:10]}!{signature[10:]}"


def _json_serialised(token: str) -> str:
    protected, payload, signature = token.split(".")
    return json.dumps({"protected": protected, "payload": payload, "signature": signature}, separators=(",", ":"))


def _dashed_body() -> bytes:
    for n in range(1000):
        body = b'{"n":%d}' % n
        if set(_hash(body)) & {"-", "_"}:
            return body
    raise AssertionError("no body hash with - or _")


DASHED = _dashed_body()
DIGEST = hashlib.sha256(DASHED).digest()
KID_VARIANTS = {
    "missing": DROP,
    "prefix": JWT_KID[:-1],
    "suffix": JWT_KID + "x",
    "whitespace": JWT_KID + " ",
    "path-traversal": "../" + JWT_KID,
    "injection": JWT_KID + "' OR '1'='1",
    "case-folded": JWT_KID.upper(),
}

PROBES: dict[str, Probe] = {
    "webhook-jwt-missing-authorization-accepted": lambda t: deliver(t, authorization=lambda token: ""),
    "webhook-jwt-unknown-kid-accepted": lambda t: deliver(t, header={"kid": "not-in-jwks"}),
    "webhook-jwt-signature-unchecked": lambda t: _foreign(t),
    "webhook-jwt-none-unsigned-accepted": lambda t: deliver(t, header={"alg": "none"}, unsigned=True),
    "webhook-jwt-none-signed-accepted": lambda t: deliver(t, header={"alg": "none"}),
    "webhook-jwt-none-uppercase-accepted": lambda t: deliver(t, header={"alg": "NONE"}, unsigned=True),
    "webhook-jwt-alg-missing-accepted": lambda t: deliver(t, header={"alg": DROP}),
    "webhook-jwt-ps256-accepted": lambda t: deliver(t, header={"alg": "PS256"}),
    "webhook-jwt-es512-accepted": lambda t: deliver(t, header={"alg": "ES512"}),
    **{f"webhook-jwt-{variant}-accepted": _hs256(variant) for variant in HMAC_SECRETS},
    "webhook-jwt-rs256-on-ed25519-accepted": lambda t: deliver(t, header={"alg": "RS256"}),
    "webhook-jwt-es256-on-ed25519-accepted": lambda t: deliver(t, header={"alg": "ES256"}),
    "webhook-jwt-embedded-jwk-trusted": lambda t: _foreign(t, embed_jwk=True),
    "webhook-jwt-jku-trusted": lambda t: _foreign(t, jku="https://attacker.invalid/jwks.json"),
    "webhook-jwt-x5u-trusted": lambda t: _foreign(t, x5u="https://attacker.invalid/cert.pem"),
    "webhook-jwt-x5c-trusted": lambda t: _foreign(t, embed_x5c=True),
    **{
        f"webhook-jwt-kid-{variant}-accepted": lambda t, kid=kid: deliver(t, header={"kid": kid})
        for variant, kid in KID_VARIANTS.items()
    },
    "webhook-jwt-crit-ignored": lambda t: deliver(t, header={"crit": ["ext"], "ext": 1}),
    "webhook-jwt-crit-empty-accepted": lambda t: deliver(t, header={"crit": []}),
    "webhook-jwt-b64-false-accepted": lambda t: deliver(t, header={"b64": False, "crit": ["b64"]}),
    **_claim_probes(),
    "webhook-jwt-duplicate-claim-first-wins": lambda t: deliver(t, payload_suffix=',"aud":"https://other.example/x"'),
    "webhook-jwt-aud-from-host-header": _claim("aud", lambda t: str(t.client.base_url).rstrip("/") + PATH),
    "webhook-jwt-exp-from-timestamp-past": lambda t: deliver(t, claims={"exp": int(time.time()) - 60}, skew=-200),
    "webhook-jwt-exp-from-timestamp-ahead": lambda t: deliver(t, claims={"exp": int(time.time()) + 700}, skew=250),
    "webhook-jwt-exp-missing-accepted": _claim("exp", lambda t: DROP),
    "webhook-jwt-exp-string-accepted": _claim("exp", lambda t: str(int(time.time()) + 300)),
    "webhook-jwt-exp-unbounded": _claim("exp", lambda t: int(time.time()) + 3600),
    "webhook-jwt-expired-accepted": _claim("exp", lambda t: int(time.time()) - 10),
    "webhook-jwt-exp-no-leeway-ahead": _claim("exp", lambda t: int(time.time()) + 604),
    "webhook-jwt-exp-no-leeway-past": _claim("exp", lambda t: int(time.time())),
    "webhook-jwt-exp-fraction-refused": _claim("exp", lambda t: time.time() + 300.5),
    "webhook-jwt-nbf-ignored": _claim("nbf", lambda t: int(time.time()) + 60),
    "webhook-jwt-iat-ignored": _claim("iat", lambda t: int(time.time()) + 60),
    "webhook-jwt-nbf-no-leeway": _claim("nbf", lambda t: int(time.time()) + 4),
    "webhook-jwt-iat-no-leeway": _claim("iat", lambda t: int(time.time()) + 4),
    "webhook-jwt-jti-missing-accepted": _jti(lambda event_id: DROP),
    "webhook-jwt-jti-other-uuid-accepted": _jti(lambda event_id: str(uuid.uuid4())),
    "webhook-jwt-jti-urn-accepted": _jti(lambda event_id: "urn:uuid:" + event_id),
    "webhook-jwt-jti-no-hyphens-accepted": _jti(lambda event_id: event_id.replace("-", "")),
    "webhook-jwt-jti-array-accepted": _jti(lambda event_id: [event_id]),
    "webhook-jwt-jti-case-refused": _jti(lambda event_id: event_id.upper()),
    "webhook-jwt-htm-missing-accepted": _claim("htm", lambda t: DROP),
    "webhook-jwt-htm-get-accepted": _claim("htm", lambda t: "GET"),
    "webhook-jwt-htm-lowercase-accepted": _claim("htm", lambda t: "post"),
    "webhook-jwt-htb-missing-accepted": _claim("htb_s256", lambda t: DROP),
    "webhook-jwt-htb-ignored": lambda t: deliver(t, hashed=b"{}"),
    "webhook-jwt-htb-trailing-newline-accepted": lambda t: deliver(t, hashed=BODY + b"\n"),
    "webhook-jwt-htb-newline-stripped-accepted": lambda t: deliver(t, body=BODY + b"\n", hashed=BODY),
    "webhook-jwt-htb-reserialised-accepted": lambda t: deliver(t, body=b'{ "orderId" : "A-1" }', hashed=BODY),
    "webhook-jwt-htb-padded-accepted": lambda t: deliver(t, body=DASHED, claims={"htb_s256": _b64(DIGEST) + "="}),
    "webhook-jwt-htb-standard-base64-accepted": lambda t: deliver(
        t, body=DASHED, claims={"htb_s256": base64.b64encode(DIGEST).decode()}
    ),
    "webhook-jwt-htb-hex-accepted": lambda t: deliver(t, body=DASHED, claims={"htb_s256": DIGEST.hex()}),
    "webhook-jwt-two-parts-accepted": lambda t: deliver(t, token=lambda token: token.rpartition(".")[0]),
    "webhook-jwt-four-parts-accepted": lambda t: deliver(t, token=lambda token: token + ".AAAA"),
    "webhook-jwt-lenient-base64-accepted": lambda t: deliver(t, token=_stray),
    "webhook-jwt-padded-signature-accepted": lambda t: deliver(t, token=lambda token: token + "=="),
    "webhook-jwt-json-serialisation-accepted": lambda t: deliver(t, token=_json_serialised),
    "webhook-jwt-no-scheme-accepted": lambda t: deliver(t, authorization=lambda token: token),
    "webhook-jwt-other-scheme-accepted": lambda t: deliver(t, authorization=lambda token: f"JWT {token}"),
    "webhook-jwt-bearer-case-refused": lambda t: deliver(t, authorization=lambda token: f"bearer {token}"),
    "webhook-jwt-bearer-spaces-refused": lambda t: deliver(t, authorization=lambda token: f"Bearer   {token}"),
    "webhook-jwt-iss-refused": _claim("iss", lambda t: "https://sender.example"),
    "webhook-jwt-extra-claim-refused": _claim("probe", lambda t: True),
    "webhook-jwt-aud-array-refused": _claim("aud", lambda t: [t.fx.tenant_base_url + PATH, "https://other.example"]),
}
