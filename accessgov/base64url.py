"""Unpadded base64url (RFC 4648 §5) read strictly: the page tokens and the JWT segments accept only the one string
their encoder writes for a value."""

from __future__ import annotations

import base64
import re

ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
_SHAPE = re.compile(rb"[A-Za-z0-9_-]*")
# The last character of 4k+2 (4k+3) characters carries 4 (2) bits beyond the data: zero in the encoder's string.
_CANONICAL_LAST = {
    2: frozenset(ALPHABET[i : i + 1] for i in range(0, 64, 16)),
    3: frozenset(ALPHABET[i : i + 1] for i in range(0, 64, 4)),
}


def decode_canonical(segment: bytes) -> bytes | None:
    """The bytes `segment` encodes when it is their unpadded base64url as the encoder writes it, else None: the
    alphabet only, no length of 4k+1, and the last character's spare bits zero. Several strings decode to the same
    bytes; checking those bits gives the verdict of encoding the result again and comparing, without doing it."""
    tail = len(segment) % 4
    if tail == 1 or _SHAPE.fullmatch(segment) is None or (tail and segment[-1:] not in _CANONICAL_LAST[tail]):
        return None
    return base64.urlsafe_b64decode(segment + b"=" * (-len(segment) % 4))
