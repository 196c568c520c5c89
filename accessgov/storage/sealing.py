"""Every sealed value in the database, in one place: the listeners' two secret columns (bound to
`listener:<id>:hmac`) and the `page_token_keys` setting (bound to `setting:page_token_keys`). Sealing an older
database's plaintext, re-sealing under the primary key (`keys rotate`), the key ids in use (`keys prune`)."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.orm import Session, SessionTransaction

from accessgov.config import Settings
from accessgov.keys import Keyring, KeyringError, is_sealed, open_sealed, seal
from accessgov.keys.keyring import ENV_KEY_FILE, LOCK_WAIT_SECONDS, key_file_path, key_source
from accessgov.keys.secretbox import SealedValueError, key_id_of
from accessgov.storage.page_key_set import PageKeys

PAGE_TOKEN_KEYS = "page_token_keys"
LEGACY_PAGE_TOKEN_SECRET = "page_token_secret"
BATCH = 500

_listeners = sa.table(
    "listeners",
    sa.column("id", sa.String),
    sa.column("hmac_secret_sealed", sa.String),
    sa.column("previous_hmac_secret_sealed", sa.String),
)
_settings = sa.table("settings", sa.column("key", sa.String), sa.column("value", sa.Text))
_LISTENER_COLUMNS = ("hmac_secret_sealed", "previous_hmac_secret_sealed")


def listener_ad(listener_id: str) -> bytes:
    """What a listener's secret is bound to: its ciphertext opens in this row only."""
    return f"listener:{listener_id}:hmac".encode()


def setting_ad(key: str) -> bytes:
    return f"setting:{key}".encode()


def _listener_rows(connection: Connection) -> Iterator[Any]:
    after = ""
    while True:
        rows = connection.execute(
            sa.select(_listeners).where(_listeners.c.id > after).order_by(_listeners.c.id).limit(BATCH)
        ).all()
        if not rows:
            return
        yield from rows
        after = rows[-1].id


def _rewrite(connection: Connection, keyring: Keyring | None, convert: Any) -> int:
    """Apply `convert(keyring, value, ad) -> new value | None` to every sealed or plaintext value; returns how
    many values changed. Batched by primary key, so a large table never sits in memory at once."""
    changed = 0
    for row in _listener_rows(connection):
        values = {}
        for column in _LISTENER_COLUMNS:
            value = getattr(row, column)
            if value:
                new = convert(keyring, value, listener_ad(row.id))
                if new is not None and new != value:
                    values[column] = new
        if values:
            # Only if the row still holds what was read: a server that wrote a new secret meanwhile (sealed under
            # the primary it knows) keeps it, instead of getting the old secret back under the new key.
            unchanged = [getattr(_listeners.c, column) == getattr(row, column) for column in values]
            done = connection.execute(
                _listeners.update().where(_listeners.c.id == row.id, *unchanged).values(**values)
            ).rowcount
            changed += len(values) if done else 0
    stored = connection.execute(sa.select(_settings.c.value).where(_settings.c.key == PAGE_TOKEN_KEYS)).scalar()
    if stored:
        new = convert(keyring, stored, setting_ad(PAGE_TOKEN_KEYS))
        if new is not None and new != stored:
            done = connection.execute(
                _settings.update()
                .where(_settings.c.key == PAGE_TOKEN_KEYS, _settings.c.value == stored)
                .values(value=new)
            ).rowcount
            changed += 1 if done else 0
    return changed


def seal_plaintext_secrets(connection: Connection, keyring: Keyring | None = None) -> int:
    """Seal what an older database kept in plaintext (listener secrets, the page-token secret); returns how many.

    The keyring is loaded only when something needs sealing, so migrating an empty database needs no key.
    """
    legacy = connection.execute(
        sa.select(_settings.c.value).where(_settings.c.key == LEGACY_PAGE_TOKEN_SECRET)
    ).scalar()
    pending = legacy is not None or any(
        getattr(row, column) and not is_sealed(getattr(row, column))
        for row in _listener_rows(connection)
        for column in _LISTENER_COLUMNS
    )
    if not pending:
        return 0
    keyring = keyring or keyring_of(connection)
    _hold_sealing_until_commit(connection, keyring)
    changed = 0
    if legacy is not None:
        document = PageKeys.first(bytes.fromhex(legacy)).to_json()
        connection.execute(_settings.delete().where(_settings.c.key == LEGACY_PAGE_TOKEN_SECRET))
        connection.execute(
            _settings.insert().values(key=PAGE_TOKEN_KEYS, value=seal(keyring, document, setting_ad(PAGE_TOKEN_KEYS)))
        )
        changed += 1

    def seal_plaintext(ring: Keyring, value: str, ad: bytes) -> str | None:
        return None if is_sealed(value) else seal(ring, value, ad)

    return changed + _rewrite(connection, keyring, seal_plaintext)


def reseal_all(connection: Connection, keyring: Keyring) -> int:
    """Re-seal every value not already under the primary key; returns how many were rewritten."""
    primary = keyring.primary_id

    def reseal(ring: Keyring, value: str, ad: bytes) -> str | None:
        if is_sealed(value) and key_id_of(value) == primary:
            return None
        plaintext = open_sealed(ring, value, ad) if is_sealed(value) else value
        return seal(ring, plaintext, ad)

    return _rewrite(connection, keyring, reseal)


def rotate_keys(engine: Engine, keyring: Keyring, *, wait: float = LOCK_WAIT_SECONDS) -> tuple[str, int]:
    """`accessgov keys rotate`: (the new primary, how many values were re-sealed under it).

    In the order that never leaves a value no key on disk opens, under the key file's lock throughout: the new key
    is written to the file (fsynced) first, then every value is re-sealed in one transaction; old keys stay in the
    file (`prune_keys` drops them once nothing uses them). Killed after the write, the file holds the old keys and
    the new one; killed during the re-sealing, the transaction rolls back. Fixed keys (`ACCESSGOV_SECRET_KEY`):
    re-sealed under the first one. Another command holding the lock is waited for at most `wait` seconds."""
    with keyring.changing(wait):
        if keyring.path is not None:
            keyring.add_primary()
        with engine.begin() as connection:
            count = reseal_all(connection, keyring)
    return keyring.primary_id, count


def prune_keys(engine: Engine, keyring: Keyring, *, wait: float = LOCK_WAIT_SECONDS) -> set[str]:
    """`accessgov keys prune`: drop the keys no stored value is sealed under (never the primary); returns them.
    Under the key file's lock, re-read first, so a rotation cannot re-seal between the look and the write; a key
    some value still needs is never dropped."""
    with keyring.changing(wait):
        with engine.connect() as connection:
            used = referenced_key_ids(connection)
        unused = set(keyring.key_ids) - used - {keyring.primary_id}
        if unused:
            keyring.remove(unused)
    return unused


def referenced_key_ids(connection: Connection) -> set[str]:
    """Ids of the keys some stored value is sealed under."""
    found: set[str] = set()

    def collect(ring: Keyring | None, value: str, ad: bytes) -> None:
        if is_sealed(value):
            found.add(key_id_of(value))

    _rewrite(connection, None, collect)
    return found


def unseal_secrets(connection: Connection, keyring: Keyring | None = None) -> int:
    """The downgrade: back to plaintext (listener secrets; the page-token key as the old hex setting)."""
    keyring = keyring or keyring_of(connection)

    def unseal(ring: Keyring, value: str, ad: bytes) -> str | None:
        return open_sealed(ring, value, ad) if is_sealed(value) else None

    stored = connection.execute(sa.select(_settings.c.value).where(_settings.c.key == PAGE_TOKEN_KEYS)).scalar()
    changed = 0
    if stored:
        keys = PageKeys.from_json(open_sealed(keyring, stored, setting_ad(PAGE_TOKEN_KEYS)))
        connection.execute(_settings.delete().where(_settings.c.key == PAGE_TOKEN_KEYS))
        connection.execute(_settings.insert().values(key=LEGACY_PAGE_TOKEN_SECRET, value=keys.current.hex()))
        changed += 1
    return changed + _rewrite(connection, keyring, unseal)


def seal_for(session: Session, plaintext: str, associated_data: bytes, keyring: Keyring | None = None) -> str:
    """`plaintext` sealed for a value `session` stores: under the key file's lock, held shared from before the
    primary key is read until the session's transaction ends (`Keyring.sealing`), so a concurrent `keys prune`
    can never drop the key before the value is committed. One lock a transaction, however many values it seals."""
    ring = keyring or keyring_of(session)
    if session.info.get(_SEAL_LOCK) is None:
        if _SEAL_LOCK not in session.info:  # the session's first seal: release at the end of each transaction
            event.listen(session, "after_transaction_end", _release_seal_lock)
        session.info[_SEAL_LOCK] = _sealing_lock(ring)
    return seal(ring, plaintext, associated_data)


_SEAL_LOCK = "accessgov.seal_lock"


def _sealing_lock(keyring: Keyring) -> contextlib.ExitStack:
    """The key file's lock taken shared (`Keyring.sealing`), held until the returned stack is closed."""
    with contextlib.ExitStack() as stack:
        stack.enter_context(keyring.sealing())
        return stack.pop_all()


def _hold_sealing_until_commit(connection: Connection, keyring: Keyring) -> None:
    """`Keyring.sealing` for values `connection` stores (the migration that seals an older database's plaintext):
    held until its transaction commits or rolls back, whichever comes first."""
    hold = _sealing_lock(keyring)
    for end in ("commit", "rollback"):
        event.listen(connection, end, lambda _connection: hold.close(), once=True)


def _release_seal_lock(session: Session, transaction: SessionTransaction) -> None:
    """At the end of the outermost transaction (committed or rolled back), the lock its seals took."""
    lock = session.info.get(_SEAL_LOCK)
    if transaction.parent is None and lock is not None:
        session.info[_SEAL_LOCK] = None
        lock.close()


def keyring_of(bind: Session | Connection | None) -> Keyring:
    """The process's keyring for the database `bind` talks to (by the one rule of `open_keyring`, with the
    process's settings), so a value is sealed with the key file of the database it is written to, whatever
    `DATABASE_URL` says; the settings' own database's without a bind."""
    settings = Settings.load()
    if bind is None:
        return default_keyring(settings)
    url = (bind.get_bind() if isinstance(bind, Session) else bind).engine.url
    return default_keyring(settings.updated(database_url=url.render_as_string(hide_password=False)))


def database_file(settings: Settings) -> Path | None:
    """The file of the database `settings` name, None where it is not one file (its backend says:
    `Database.database_file`): where `keyring.key_source` puts the key file by default."""
    from accessgov.storage.backends import implementation

    return implementation(settings.database).database_file(settings.database)


def open_keyring(settings: Settings) -> Keyring:
    """The keyring for the database `settings` name, by `keyring.key_source`'s rule. A key file is created on first
    use, never beside a database holding sealed values: a new key could not open them (the usual cause: another
    working directory or `ACCESSGOV_SECRET_KEY_FILE`)."""
    beside = database_file(settings)
    path, why = key_source(settings, beside)
    if path is not None and not path.exists():
        sealed = sealed_key_ids_at(settings.database)
        if sealed:
            raise KeyringError(
                f"no key file at {path} ({why}), but the database holds values sealed under key(s) "
                f"{', '.join(sorted(sealed))}: point {ENV_KEY_FILE} at the key file that holds them "
                "(a new key could not open them; none was created)"
            )
    return Keyring.from_settings(settings, beside)


def sealed_key_ids_at(database_url: str) -> set[str]:
    """The key ids the database's sealed values are under (none before its tables exist)."""
    from accessgov.storage.backends import create_engine

    # Read-only (SQLite: a deferred transaction): the caller may hold the write lock, e.g. the first listener of a
    # seed being sealed in the transaction that creates it.
    engine = create_engine(database_url, read_only=True)
    try:
        with engine.connect() as connection:
            if not sa.inspect(connection).has_table("listeners"):
                return set()
            return referenced_key_ids(connection)
    finally:
        engine.dispose()


@dataclass(frozen=True)
class SealedValue:
    """One stored sealed value, for `accessgov keys doctor`: where it is, its key id, and why it does not open."""

    where: str
    key_id: str
    problem: str | None


def check_sealed_values(connection: Connection, keyring: Keyring) -> list[SealedValue]:
    """Every sealed value, opened with `keyring` (nothing is written): which open and which do not, and why."""
    stored: list[tuple[str, str, bytes]] = []
    for row in _listener_rows(connection):
        for column, label in zip(_LISTENER_COLUMNS, ("secret", "previous secret"), strict=True):
            if getattr(row, column):
                stored.append((f"listener {row.id} ({label})", getattr(row, column), listener_ad(row.id)))
    setting = connection.execute(sa.select(_settings.c.value).where(_settings.c.key == PAGE_TOKEN_KEYS)).scalar()
    if setting:
        stored.append((f"setting {PAGE_TOKEN_KEYS}", setting, setting_ad(PAGE_TOKEN_KEYS)))
    found = []
    for where, value, ad in stored:
        if not is_sealed(value):
            found.append(SealedValue(where, "-", "stored in plaintext (`accessgov migrate` seals it)"))
            continue
        try:
            open_sealed(keyring, value, ad)
            problem = None
        except (KeyringError, SealedValueError) as error:
            problem = str(error)
        found.append(SealedValue(where, key_id_of(value), problem))
    return found


# The process's keyrings live here, not in `keys`: loading one reads the database's sealed rows (storage).
_defaults: dict[Path | str, Keyring] = {}
_default_lock = threading.Lock()


def default_keyring(settings: Settings) -> Keyring:
    """The process's keyring for the database `settings` name, loaded once per key source through `open_keyring`:
    the server and every CLI command find the same key file."""
    fixed = settings.secret_key.get_secret_value().strip() if settings.secret_key else ""
    source: Path | str = fixed or key_file_path(settings, database_file(settings))
    with _default_lock:
        keyring = _defaults.get(source)
        if keyring is None:
            keyring = _defaults[source] = open_keyring(settings)
        return keyring


def reset_default_keyring() -> None:
    """Forget the process's keyrings (after the settings changed, and in tests)."""
    with _default_lock:
        _defaults.clear()
