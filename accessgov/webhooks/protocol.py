"""The inbound webhook protocol's constants and encodings, shared by the verifier and the sender.

Signature input is `{timestamp}.{event_id}.{body}`; signatures, secrets and body hashes are base64url
without padding; the limits are the requirements' (64 KB body, 5-minute timestamp window, JWT `exp` at most
10 minutes ahead, 256-bit secrets).
"""

from __future__ import annotations

import base64
import hashlib

MAX_BODY_BYTES = 64 * 1024
TIMESTAMP_WINDOW_SECONDS = 300
MAX_JWT_LIFETIME_SECONDS = 600
SECRET_BYTES = 32  # 256 bits


def b64url(data: bytes) -> str:
    """base64url without padding, as ASCII text."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def signature_input(timestamp: str, event_id: str, body: bytes) -> bytes:
    """`{timestamp}.{event_id}.{body}`: the header texts as received and the exact body bytes."""
    return timestamp.encode("utf-8") + b"." + event_id.encode("utf-8") + b"." + body


def body_hash(body: bytes) -> str:
    """The JWT `htb_s256` claim of a body: base64url (no padding) of its SHA-256."""
    return b64url(hashlib.sha256(body).digest())
