"""The keyring: key id -> 32-byte AES key, one of them primary (new values are sealed under it).

Keys come from `ACCESSGOV_SECRET_KEY` (`kid:<base64url 32 bytes>[,...]`, the first primary; fixed) or from the
key file `key_source` names (one rule for the server and every CLI command), a JSON file created with one key
and mode 0600 on first use. A running server that meets an unknown key id re-reads the file when a `stat` says
it changed, so a rotation needs no restart. The sources, the file's format and rotation: docs/keys-and-limits.md.
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
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path

KEY_BYTES = 32
ENV_KEY = "ACCESSGOV_SECRET_KEY"
ENV_KEY_FILE = "ACCESSGOV_SECRET_KEY_FILE"
DEFAULT_KEY_FILENAME = "secret.keys"
USER_DATA_DIR = Path(".local/share/accessgov")  # under $HOME, when $XDG_DATA_HOME is not set
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
        self.created: dict[str, str] = {}  # kid -> ISO time, from the key file (older files have none)
        self._lock = threading.Lock()
        self._file_state = _file_state(path) if path is not None else None

    @classmethod
    def generate(cls) -> Keyring:
        """A keyring of one fresh key (tests, tools)."""
        kid = new_key_id()
        return cls(kid, {kid: secrets.token_bytes(KEY_BYTES)})

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ, database_url: str | None = None) -> Keyring:
        """The keyring the environment names (for the database at `database_url`, else `DATABASE_URL`'s); creates
        the key file on first use (mode 0600). Servers and the CLI go through `storage.sealing.open_keyring`."""
        value = (env.get(ENV_KEY) or "").strip()
        if value:
            primary, keys = parse_env_keys(value)
            return cls(primary, keys)
        return cls.from_file(key_file_path(env, database_url), create=True)

    @classmethod
    def from_file(cls, path: Path, *, create: bool = False) -> Keyring:
        if create and not path.exists():
            _create_key_file(path)
        state = _file_state(path)  # before the read: a write in between is seen by the next look
        primary, keys, created = _read_key_file(path)
        keyring = cls(primary, keys, path=path)
        keyring.created, keyring._file_state = created, state
        return keyring

    @property
    def primary_id(self) -> str:
        return self._primary

    @property
    def key_ids(self) -> tuple[str, ...]:
        return tuple(self._keys)

    def primary(self) -> tuple[str, bytes]:
        return self._primary, self._keys[self._primary]

    def key(self, kid: str) -> bytes:
        """The key `kid`; an unknown id re-reads the key file first when it changed since it was read (a rotation
        made by another process). Coalesced: threads meeting the new id together wait for one re-read."""
        key = self._keys.get(kid)
        if key is None and self.path is not None:
            with self._lock:
                if kid not in self._keys and _file_state(self.path) != self._file_state:
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
        state = _file_state(self.path)
        primary, keys, created = _read_key_file(self.path)
        self._keys = keys
        self._primary = primary
        self.created = created
        self._file_state = state  # read before the file: a write in between is seen by the next look

    def add_primary(self) -> str:
        """Add a new key and make it primary, in the key file too; returns its id."""
        if self.path is None:
            raise KeyringError(f"keys from {ENV_KEY} are fixed: put a new key first in the variable instead")
        self.reload()  # another process may have added keys since: keep them
        kid = new_key_id()
        keys = {**self._keys, kid: secrets.token_bytes(KEY_BYTES)}
        created = {**self.created, kid: _now()}
        _write_key_file(self.path, kid, keys, replace=True, created=created)
        self.reload()
        return kid

    def remove(self, kids: set[str]) -> None:
        """Drop keys (never the primary) from the key file."""
        if self.path is None:
            raise KeyringError(f"keys from {ENV_KEY} are fixed: remove them from the variable instead")
        kids = kids - {self._primary}
        keys = {kid: key for kid, key in self._keys.items() if kid not in kids}
        created = {kid: when for kid, when in self.created.items() if kid in keys}
        _write_key_file(self.path, self._primary, keys, replace=True, created=created)
        self.reload()


def key_source(env: Mapping[str, str] = os.environ, database_url: str | None = None) -> tuple[Path | None, str]:
    """(the key file, or None for `ACCESSGOV_SECRET_KEY`; why this one): the one rule for every process."""
    if (env.get(ENV_KEY) or "").strip():
        return None, f"{ENV_KEY} (fixed keys from the environment)"
    explicit = (env.get(ENV_KEY_FILE) or "").strip()
    if explicit:
        return Path(explicit).expanduser().absolute(), ENV_KEY_FILE
    if database_url is None:
        from accessgov.config import database_url_from_env

        database_url = database_url_from_env(env)
    database = _sqlite_file(database_url)
    if database is not None:
        return database.parent / DEFAULT_KEY_FILENAME, "next to the SQLite database"
    data_home = (env.get("XDG_DATA_HOME") or "").strip()
    base = Path(data_home) / "accessgov" if data_home else Path(env.get("HOME") or Path.home()) / USER_DATA_DIR
    return base.absolute() / DEFAULT_KEY_FILENAME, "the per-user data directory (the database is not a SQLite file)"


def key_file_path(env: Mapping[str, str] = os.environ, database_url: str | None = None) -> Path:
    """Where the key file is for the database at `database_url` (default: `DATABASE_URL`'s); see `key_source`."""
    path, _why = key_source({name: value for name, value in env.items() if name != ENV_KEY}, database_url)
    assert path is not None
    return path


def _sqlite_file(database_url: str) -> Path | None:
    """The file of a SQLite database URL; None for another backend or an in-memory database."""
    from sqlalchemy.engine import make_url

    url = make_url(database_url)
    if url.get_backend_name() != "sqlite" or not url.database or url.database == ":memory:":
        return None
    return Path(url.database).expanduser().absolute()


def _file_state(path: Path) -> tuple[int, int, int] | None:
    """What changes when the file is replaced or rewritten (inode, size, mtime); None when it is missing."""
    try:
        status = path.stat()
    except OSError:
        return None
    return status.st_ino, status.st_size, status.st_mtime_ns


def _now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def _read_key_file(path: Path) -> tuple[str, dict[str, bytes], dict[str, str]]:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
        primary = document["primary"]
        keys = {str(kid): decode_key(str(text), str(path)) for kid, text in document["keys"].items()}
        created = {str(kid): str(when) for kid, when in (document.get("created") or {}).items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        raise KeyringError(f"cannot read the key file {path}: {error}") from error
    if primary not in keys:
        raise KeyringError(f"the key file {path} names primary {primary!r} but does not hold it")
    return primary, keys, created


def _write_key_file(
    path: Path, primary: str, keys: Mapping[str, bytes], *, replace: bool, created: Mapping[str, str]
) -> None:
    """Write the whole file to a private temporary file (0600), then put it in place atomically: readers never
    see half a file. `replace=False` fails if the file exists (the first of several starting processes wins)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    document = {
        "primary": primary,
        "keys": {kid: encode_key(key) for kid, key in keys.items()},
        "created": {kid: when for kid, when in created.items() if kid in keys},
    }
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
        _write_key_file(path, kid, {kid: secrets.token_bytes(KEY_BYTES)}, replace=False, created={kid: _now()})
