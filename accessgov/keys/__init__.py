"""Encryption of signing secrets at rest: a keyring (key id -> AES-256 key, one primary) and the sealed-value
format. See `keyring.py` for where keys come from and `secretbox.py` for the ciphertext format."""

from accessgov.keys.keyring import Keyring, KeyringError
from accessgov.keys.secretbox import is_sealed, open_sealed, seal
from accessgov.keys.unavailable import key_unavailable

__all__ = [
    "Keyring",
    "KeyringError",
    "is_sealed",
    "key_unavailable",
    "open_sealed",
    "seal",
]
