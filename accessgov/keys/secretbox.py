"""Sealed values: AES-256-GCM with a random 96-bit nonce, bound to the row they belong to.

Format (one string, so it fits the column the plaintext used to occupy): `v1:<key id>:<base64url(nonce || ct)>`.
The key id sits beside the ciphertext, so a keyring holding several keys opens any of them and a key rotation
knows which rows still need the old key. The associated data (e.g. `b"listener:<id>:hmac"`) is not stored: it
is the row's identity, so a ciphertext copied into another row (or another setting) does not open.
"""

from __future__ import annotations

import base64
import os
from typing import TYPE_CHECKING

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

if TYPE_CHECKING:
    from accessgov.keys.keyring import Keyring

VERSION = "v1"
NONCE_BYTES = 12


class SealedValueError(ValueError):
    """A sealed value is malformed, was altered, belongs to another row, or its key is not in the keyring."""


def is_sealed(value: str | None) -> bool:
    """True for a value in the sealed format (a plaintext base64url secret never contains `:`)."""
    return bool(value) and value.startswith(VERSION + ":") and value.count(":") == 2  # type: ignore[union-attr]


def key_id_of(value: str) -> str:
    """The id of the key a sealed value was encrypted with."""
    if not is_sealed(value):
        raise SealedValueError("not a sealed value")
    return value.split(":", 2)[1]


def seal(keyring: Keyring, plaintext: str, associated_data: bytes) -> str:
    """Encrypt `plaintext` under the keyring's primary key, bound to `associated_data`."""
    kid, key = keyring.primary()
    nonce = os.urandom(NONCE_BYTES)
    ciphertext = AESGCM(key).encrypt(nonce, plaintext.encode("utf-8"), associated_data)
    blob = base64.urlsafe_b64encode(nonce + ciphertext).rstrip(b"=").decode("ascii")
    return f"{VERSION}:{kid}:{blob}"


def open_sealed(keyring: Keyring, value: str, associated_data: bytes) -> str:
    """The plaintext of a sealed value; `SealedValueError` when it cannot be opened."""
    kid = key_id_of(value)
    key = keyring.key(kid)  # re-reads the key file once (rate-limited) before giving up on an unknown id
    blob = value.split(":", 2)[2]
    try:
        raw = base64.urlsafe_b64decode(blob + "=" * (-len(blob) % 4))
        plaintext = AESGCM(key).decrypt(raw[:NONCE_BYTES], raw[NONCE_BYTES:], associated_data)
    except (InvalidTag, ValueError) as error:
        raise SealedValueError(f"sealed value under key {kid!r} does not open (altered, or another row's)") from error
    return plaintext.decode("utf-8")
