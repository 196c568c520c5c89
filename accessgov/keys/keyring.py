"""The keyring: key id -> 32-byte AES key, one of them primary (new values are sealed under it).

Sources, first match wins:

- `ACCESSGOV_SECRET_KEY`: `kid:<base64url 32 bytes>[,kid:<key>...]`, the first one primary (a bare key without
  `kid:` gets an id derived from it). Several keys let a rotation run with the environment too.
- the key file `ACCESSGOV_SECRET_KEY_FILE` (default `<data dir>/secret.keys`, next to the SQLite file): JSON
  `{"primary": kid, "keys": {kid: key}}`, created with one new key and mode 0600 on first use. `accessgov keys
  rotate` adds a new primary key to it; a running server that meets an unknown key id re-reads it (at most
  once per `RELOAD_INTERVAL_SECONDS`), so a rotation needs no restart.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import json
import os
import re
import secrets
import threading
import time
from collections.abc import Mapping
from pathlib import Path

KEY_BYTES = 32
ENV_KEY = "ACCESSGOV_SECRET_KEY"
ENV_KEY_FILE = "ACCESSGOV_SECRET_KEY_FILE"
DEFAULT_KEY_FILENAME = "secret.keys"
RELOAD_INTERVAL_SECONDS = 5.0
_KID = re.compile(r"[A-Za-z0-9_-]{1,32}")


class KeyringError(RuntimeError):
    """No usable key: a malformed key source, or a key id that is in no source."""


def new_key_id() -> str:
    return "k" + secrets.token_hex(4)


def encode_key(key: bytes) -> str:
    return base64.urlsafe_b64encode(key).rstrip(b"=").decode("ascii")


def decode_key(text: str, where: str) -> bytes:
    text = text.strip()
    try:
        key = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError) as error:
        raise KeyringError(f"{where}: a key is base64url of {KEY_BYTES} bytes") from error
    if len(key) != KEY_BYTES:
        raise KeyringError(f"{where}: a key is base64url of {KEY_BYTES} bytes, got {len(key)} bytes")
    return key


def parse_env_keys(value: str) -> tuple[str, dict[str, bytes]]:
    """(primary id, keys) from the `ACCESSGOV_SECRET_KEY` format."""
    keys: dict[str, bytes] = {}
    primary = ""
    for item in (part.strip() for part in value.split(",")):
        if not item:
            continue
        kid, colon, text = item.rpartition(":")
        key = decode_key(text, ENV_KEY)
        if not colon:
            kid = "e" + hashlib.sha256(key).hexdigest()[:8]
        if _KID.fullmatch(kid) is None:
            raise KeyringError(f"{ENV_KEY}: key id {kid!r} must be 1-32 characters of [A-Za-z0-9_-]")
        keys[kid] = key
        primary = primary or kid
    if not keys:
        raise KeyringError(f"{ENV_KEY} holds no key")
    return primary, keys


class Keyring:
    """Keys by id and the primary one; backed by a file (reloadable) or fixed (environment, tests)."""

    def __init__(self, primary: str, keys: Mapping[str, bytes], *, path: Path | None = None) -> None:
        if primary not in keys:
            raise KeyringError(f"the primary key {primary!r} is not in the keyring")
        self._primary = primary
        self._keys = dict(keys)
        self.path = path
        self._lock = threading.Lock()
        self._reloaded_at = time.monotonic()

    @classmethod
    def generate(cls) -> Keyring:
        """A keyring of one fresh key (tests, tools)."""
        kid = new_key_id()
        return cls(kid, {kid: secrets.token_bytes(KEY_BYTES)})

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ, data_dir: Path | None = None) -> Keyring:
        """The keyring the environment names; creates the key file on first use (mode 0600)."""
        value = (env.get(ENV_KEY) or "").strip()
        if value:
            primary, keys = parse_env_keys(value)
            return cls(primary, keys)
        return cls.from_file(key_file_path(env, data_dir), create=True)

    @classmethod
    def from_file(cls, path: Path, *, create: bool = False) -> Keyring:
        if create and not path.exists():
            _create_key_file(path)
        primary, keys = _read_key_file(path)
        return cls(primary, keys, path=path)

    @property
    def primary_id(self) -> str:
        return self._primary

    @property
    def key_ids(self) -> tuple[str, ...]:
        return tuple(self._keys)

    def primary(self) -> tuple[str, bytes]:
        return self._primary, self._keys[self._primary]

    def key(self, kid: str) -> bytes:
        """The key `kid`; an unknown id re-reads the key file first (a rotation made by another process)."""
        key = self._keys.get(kid)
        if key is None and self.path is not None:
            with self._lock:
                if kid not in self._keys and time.monotonic() - self._reloaded_at >= RELOAD_INTERVAL_SECONDS:
                    self.reload()
            key = self._keys.get(kid)
        if key is None:
            raise KeyringError(f"key {kid!r} is not in the keyring (ACCESSGOV_SECRET_KEY or the key file)")
        return key

    def reload(self) -> None:
        """Re-read the key file (no-op for fixed keys). Other threads may be reading: the new key map is in place
        before the primary moves to one of its keys."""
        if self.path is None:
            return
        self._reloaded_at = time.monotonic()
        primary, keys = _read_key_file(self.path)
        self._keys = keys
        self._primary = primary

    def add_primary(self) -> str:
        """Add a new key and make it primary, in the key file too; returns its id."""
        if self.path is None:
            raise KeyringError(f"keys from {ENV_KEY} are fixed: put a new key first in the variable instead")
        kid = new_key_id()
        keys = {**self._keys, kid: secrets.token_bytes(KEY_BYTES)}
        _write_key_file(self.path, kid, keys, replace=True)
        self._primary, self._keys = kid, keys
        return kid

    def remove(self, kids: set[str]) -> None:
        """Drop keys (never the primary) from the key file."""
        if self.path is None:
            raise KeyringError(f"keys from {ENV_KEY} are fixed: remove them from the variable instead")
        kids = kids - {self._primary}
        keys = {kid: key for kid, key in self._keys.items() if kid not in kids}
        _write_key_file(self.path, self._primary, keys, replace=True)
        self._keys = keys


def key_file_path(env: Mapping[str, str] = os.environ, data_dir: Path | None = None) -> Path:
    explicit = (env.get(ENV_KEY_FILE) or "").strip()
    if explicit:
        return Path(explicit)
    from accessgov.storage.engine import DEFAULT_DATA_DIR

    return (data_dir or DEFAULT_DATA_DIR).resolve() / DEFAULT_KEY_FILENAME


def _read_key_file(path: Path) -> tuple[str, dict[str, bytes]]:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
        primary = document["primary"]
        keys = {str(kid): decode_key(str(text), str(path)) for kid, text in document["keys"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        raise KeyringError(f"cannot read the key file {path}: {error}") from error
    if primary not in keys:
        raise KeyringError(f"the key file {path} names primary {primary!r} but does not hold it")
    return primary, keys


def _write_key_file(path: Path, primary: str, keys: Mapping[str, bytes], *, replace: bool) -> None:
    """Write the whole file to a private temporary file (0600), then put it in place atomically: readers never
    see half a file. `replace=False` fails if the file exists (the first of several starting processes wins)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    document = {"primary": primary, "keys": {kid: encode_key(key) for kid, key in keys.items()}}
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            json.dump(document, handle, indent=2)
            handle.write("\n")
            handle.flush()
            os.fsync(handle.fileno())
        if replace:
            os.replace(temporary, path)
        else:
            os.link(temporary, path)  # raises FileExistsError when another process created it first
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)


def _create_key_file(path: Path) -> None:
    kid = new_key_id()
    with contextlib.suppress(FileExistsError):
        _write_key_file(path, kid, {kid: secrets.token_bytes(KEY_BYTES)}, replace=False)


_default: Keyring | None = None
_default_lock = threading.Lock()


def default_keyring() -> Keyring:
    """The process's keyring, from the environment (loaded once)."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Keyring.from_env()
        return _default


def reset_default_keyring(keyring: Keyring | None = None) -> None:
    """Forget (or replace) the process's keyring: after the environment changed, and in tests."""
    global _default
    with _default_lock:
        _default = keyring
