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
import fcntl
import hashlib
import json
import os
import re
import secrets
import threading
import time
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path

from accessgov.config import Settings, env_name, user_data_directory

KEY_BYTES = 32
# Declared in `config.Settings` (docs/operations.md's table); the settings each caller passes are read by the one
# rule of `key_source`.
ENV_KEY = env_name("secret_key")
ENV_KEY_FILE = env_name("secret_key_file")
DEFAULT_KEY_FILENAME = "secret.keys"
_KID = re.compile(r"[A-Za-z0-9_-]{1,32}")
# How long a command that changes the key file waits for another one (a rotation re-seals every value while it
# holds the lock) before it refuses; and how often it looks meanwhile.
LOCK_WAIT_SECONDS = 60.0
LOCK_POLL_SECONDS = 0.05


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
        self._changing = 0  # depth of `changing()` in this process: the file lock is taken once
        self._changing_lock = threading.RLock()

    @classmethod
    def generate(cls) -> Keyring:
        """A keyring of one fresh key (tests, tools)."""
        kid = new_key_id()
        return cls(kid, {kid: secrets.token_bytes(KEY_BYTES)})

    @classmethod
    def from_settings(cls, settings: Settings, database_file: Path | None) -> Keyring:
        """The keyring `settings` name (ACCESSGOV_SECRET_KEY's fixed keys, else the key file `key_source` finds for
        their database, whose file is `database_file`); creates the key file on first use (mode 0600). Servers and
        the CLI go through `storage.sealing.open_keyring`."""
        value = _fixed_keys(settings)
        if value:
            primary, keys = parse_env_keys(value)
            return cls(primary, keys)
        return cls.from_file(key_file_path(settings, database_file), create=True)

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
        """The key new values are sealed under: the key file's current primary (re-read when a `stat` says the file
        changed; sealing is rare), so a server never seals under a key a rotation and a prune just retired."""
        if self.path is not None and not self._changing:
            with self._lock:
                state = _file_state(self.path)
                if state is not None and state != self._file_state:
                    with contextlib.suppress(KeyringError):  # unreadable now: keep sealing under the keys held
                        self.reload()
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

    @contextlib.contextmanager
    def changing(self, wait: float = LOCK_WAIT_SECONDS) -> Iterator[None]:
        """Hold the key file's lock (an exclusive `flock` on `<file>.lock` beside it) and re-read the file under
        it: every command that changes the file, or needs it unchanged while it writes sealed values (a rotation's
        re-sealing, a prune's look at the keys in use), runs inside. Another process holding it is waited for at
        most `wait` seconds, then refused with a `KeyringError` naming the file. Re-entrant in one process."""
        if self.path is None:
            yield
            return
        with self._changing_lock:
            if self._changing:
                self._changing += 1
                try:
                    yield
                finally:
                    self._changing -= 1
                return
            with _file_lock(self.path, wait):
                self._changing = 1
                try:
                    self.reload()  # what the previous holder wrote
                    yield
                finally:
                    self._changing = 0

    @contextlib.contextmanager
    def sealing(self, wait: float = LOCK_WAIT_SECONDS) -> Iterator[None]:
        """Hold the key file's lock shared while new values are sealed and until they are stored (committed).
        A prune holds it exclusively across its look at the keys in use and its write, so it either finished
        before (and `primary()`, read inside, is a key it kept) or starts after (and sees the stored values): no
        value lands under a key it dropped. Seals wait for a rotation's re-sealing at most `wait` seconds. Inside
        `changing()` (this process holds the lock exclusively) it takes nothing."""
        if self.path is None or self._changing:
            yield
            return
        with _file_lock(self.path, wait, shared=True):
            yield

    def add_primary(self) -> str:
        """Add a new key and make it primary, in the key file too (under its lock, re-read first: keys another
        process added are kept); returns its id."""
        if self.path is None:
            raise KeyringError(f"keys from {ENV_KEY} are fixed: put a new key first in the variable instead")
        with self.changing():
            kid = new_key_id()
            keys = {**self._keys, kid: secrets.token_bytes(KEY_BYTES)}
            created = {**self.created, kid: _now()}
            _write_key_file(self.path, kid, keys, replace=True, created=created)
            self.reload()
        return kid

    def remove(self, kids: set[str]) -> None:
        """Drop keys (never the primary) from the key file, under its lock. The caller holds `changing()` across
        its check that no stored value needs them (`storage.sealing.prune_keys`)."""
        if self.path is None:
            raise KeyringError(f"keys from {ENV_KEY} are fixed: remove them from the variable instead")
        with self.changing():
            kids = kids - {self._primary}
            keys = {kid: key for kid, key in self._keys.items() if kid not in kids}
            created = {kid: when for kid, when in self.created.items() if kid in keys}
            _write_key_file(self.path, self._primary, keys, replace=True, created=created)
            self.reload()


def _fixed_keys(settings: Settings) -> str:
    return settings.secret_key.get_secret_value().strip() if settings.secret_key else ""


def key_source(settings: Settings, database_file: Path | None) -> tuple[Path | None, str]:
    """(the key file, or None for `ACCESSGOV_SECRET_KEY`; why this one): the one rule for every process.
    `database_file` is the file of the database `settings` name, None for one that is not a file (its backend
    says: `storage.sealing.database_file`)."""
    if _fixed_keys(settings):
        return None, f"{ENV_KEY} (fixed keys from the environment)"
    return _key_file(settings, database_file)


def _key_file(settings: Settings, database_file: Path | None) -> tuple[Path, str]:
    if settings.secret_key_file is not None:
        return settings.secret_key_file.expanduser().absolute(), ENV_KEY_FILE
    if database_file is not None:
        return database_file.parent / DEFAULT_KEY_FILENAME, "next to the SQLite database"
    where = "the per-user data directory (the database is not a SQLite file)"
    return user_data_directory() / DEFAULT_KEY_FILENAME, where


def key_file_path(settings: Settings, database_file: Path | None) -> Path:
    """Where the key file is for the database `settings` name, whose file is `database_file` (whether or not they
    also give fixed keys)."""
    return _key_file(settings, database_file)[0]


def lock_path(path: Path) -> Path:
    """The lock file of the key file `path`: beside it, never replaced (the key file itself is, by rename)."""
    return path.with_name(path.name + ".lock")


@contextlib.contextmanager
def _file_lock(path: Path, wait: float, *, shared: bool = False) -> Iterator[None]:
    """A `flock` on the key file's lock file, exclusive (a command changing the file) or shared (values being
    sealed and stored), waited for at most `wait` seconds. The kernel drops it when the process dies, so a killed
    command never leaves the file locked."""
    path.parent.mkdir(parents=True, exist_ok=True)
    where = lock_path(path)
    descriptor = os.open(where, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(descriptor, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    holder = (
                        f"an `accessgov keys` command is changing the key file {path}"
                        if shared
                        else f"another `accessgov keys` command is changing the key file {path}, or a process is "
                        "storing a value sealed under it"
                    )
                    raise KeyringError(
                        f"{holder} (it holds {where}); waited {wait:g} s: try again when it has finished"
                    ) from None
                time.sleep(LOCK_POLL_SECONDS)
        try:
            yield
        finally:
            fcntl.flock(descriptor, fcntl.LOCK_UN)
    finally:
        os.close(descriptor)


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
    """Write the whole file to a private temporary file (0600) in the same directory, fsync it, put it in place
    atomically and fsync the directory: readers never see half a file, and a crash leaves the old file or the new
    one, never neither. `replace=False` fails if the file exists (the first of several starting processes wins)."""
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
    _fsync_directory(path.parent)


def _fsync_directory(directory: Path) -> None:
    """Make a rename or link in `directory` durable (the new entry survives a power loss)."""
    descriptor = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _create_key_file(path: Path) -> None:
    kid = new_key_id()
    with contextlib.suppress(FileExistsError):
        _write_key_file(path, kid, {kid: secrets.token_bytes(KEY_BYTES)}, replace=False, created={kid: _now()})
