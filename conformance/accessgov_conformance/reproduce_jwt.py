"""A webhook's JWT made afresh when its reproduce snippet is pasted (see curl.py for the HMAC signature).

A token the kit signed with the listener's configured key (checked: the signature verifies with its public
half) is signed again by a python3 program (it needs only `cryptography`) with the key file, or the PEM, named by
an environment variable: the same header and claims, but `iat`/`exp`/`nbf` as the same offsets from the current
time, `jti` the snippet's fresh event id (in the letter case it had), `htb_s256` the hash of the body file. An
unsigned token (`alg: none`) is rebuilt the same way without a key. Any other token is shown as sent.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from dataclasses import dataclass
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization

from .config import Config, Listener
from .context import Exchange

NEAR = 86_400
TIME_CLAIMS = ("iat", "exp", "nbf")


@dataclass
class Token:
    """A token the snippet can make again: its parts and how its claims tie to the request."""

    header: dict[str, Any]
    claims: dict[str, Any]
    offsets: dict[str, int]  # time claim -> seconds from now
    jti: str | None  # "e", "e.lower()" or "e.upper()": tied to the event id header
    htb: bool  # htb_s256 is the hash of the body sent
    signed: bool  # False: alg none


def _segment(text: str) -> Any:
    return json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))


def recognise(exchange: Exchange, listener: Listener, event_id: str) -> Token | None:
    """The exchange's Bearer token as a `Token`, when the kit can make it again; None otherwise."""
    bearer = next((v for k, v in exchange.request_headers.items() if k.lower() == "authorization"), "")
    scheme, _, token = bearer.partition(" ")
    parts = token.split(".")
    if scheme.lower() != "bearer" or len(parts) != 3:
        return None
    try:
        header, claims = _segment(parts[0]), _segment(parts[1])
    except (ValueError, binascii.Error):
        return None
    if not isinstance(header, dict) or not isinstance(claims, dict):
        return None
    signed = str(header.get("alg", "")).lower() != "none"
    if signed and not _verifies(token, header, listener):
        return None
    if not signed and parts[2]:
        return None
    now = exchange.webhook.now if exchange.webhook is not None and exchange.webhook.now else int(exchange.sent_at)
    offsets = {
        name: claims[name] - now
        for name in TIME_CLAIMS
        if type(claims.get(name)) is int and abs(claims[name] - now) <= NEAR
    }
    jti = claims.get("jti")
    tie = next((expr for expr, value in _cases(event_id) if event_id and jti == value), None)
    digest = base64.urlsafe_b64encode(hashlib.sha256(exchange.request_body).digest()).decode().rstrip("=")
    return Token(header, claims, offsets, tie, claims.get("htb_s256") == digest, signed)


def _cases(event_id: str) -> list[tuple[str, str]]:
    return [("e", event_id), ("e.lower()", event_id.lower()), ("e.upper()", event_id.upper())]


def _verifies(token: str, header: dict[str, Any], listener: Listener) -> bool:
    if not listener.private_key:
        return False
    try:
        public: Any = serialization.load_pem_private_key(listener.private_key, password=None).public_key()
        jwt.api_jws.PyJWS().decode_complete(
            token, public, algorithms=[str(header.get("alg"))], options={"verify_signature": True}
        )
    except (ValueError, TypeError, jwt.PyJWTError):
        return False
    return True


def key_variable(listener: Listener, config: Config) -> tuple[str, str]:
    """(variable, value) that gives the snippet the listener's key: its file's path, else the PEM itself."""
    cleaned = "".join(ch if ch.isalnum() else "_" for ch in listener.id).upper()
    if listener.private_key_file is not None:
        return f"WEBHOOK_JWT_KEY_FILE_{cleaned}", str(listener.private_key_file)
    return f"WEBHOOK_JWT_KEY_{cleaned}", (listener.private_key or b"").decode()


def program(token: Token, variable: str, from_file: bool) -> str:
    """Python (cryptography only) that prints the fresh token; argv: the event id, the body file."""
    lines = [
        "import base64, hashlib, json, os, sys, time",
        "e, path = sys.argv[1], sys.argv[2]",
        "now = int(time.time())",
        "b64 = lambda b: base64.urlsafe_b64encode(b).decode().rstrip('=')",
        f"header = json.loads({json.dumps(token.header)!r})",
        f"claims = json.loads({json.dumps(token.claims)!r})",
    ]
    lines += [f"claims[{name!r}] = now + {offset}" for name, offset in token.offsets.items()]
    if token.jti is not None:
        lines.append(f"claims['jti'] = {token.jti}")
    if token.htb:
        lines.append("claims['htb_s256'] = b64(hashlib.sha256(open(path, 'rb').read()).digest())")
    lines.append(
        "data = (b64(json.dumps(header, separators=(',', ':')).encode()) + '.' + "
        "b64(json.dumps(claims, separators=(',', ':')).encode())).encode()"
    )
    if not token.signed:
        return "\n".join([*lines, "print(data.decode() + '.')"])
    read = f"open(os.environ[{variable!r}], 'rb').read()" if from_file else f"os.environ[{variable!r}].encode()"
    lines += [
        "from cryptography.hazmat.primitives import hashes, serialization",
        "from cryptography.hazmat.primitives.asymmetric import ec, padding, utils",
        f"key = serialization.load_pem_private_key({read}, None)",
        "alg = header['alg']",
        "h = {'256': hashes.SHA256(), '384': hashes.SHA384(), '512': hashes.SHA512()}.get(alg[2:])",
        "if alg == 'EdDSA':",
        "    sig = key.sign(data)",
        "elif alg.startswith('ES'):",
        "    r, s = utils.decode_dss_signature(key.sign(data, ec.ECDSA(h)))",
        "    n = (key.curve.key_size + 7) // 8",
        "    sig = r.to_bytes(n, 'big') + s.to_bytes(n, 'big')",
        "elif alg.startswith('PS'):",
        "    sig = key.sign(data, padding.PSS(mgf=padding.MGF1(h), salt_length=h.digest_size), h)",
        "else:",
        "    sig = key.sign(data, padding.PKCS1v15(), h)",
        "print(data.decode() + '.' + b64(sig))",
    ]
    return "\n".join(lines)
