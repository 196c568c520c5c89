"""A value sealed while a `keys rotate` and a `keys prune` run is never stored under a key they drop: from the
moment the primary key is read until the value is committed (or rolled back), the sealing process holds the key
file's lock shared, which the rotation and the prune need exclusively (SQLite and PostgreSQL)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, sessionmaker

from accessgov.keys import Keyring, KeyringError
from accessgov.keys.secretbox import key_id_of
from accessgov.storage import listeners, sealing
from accessgov.storage.backends import create_engine
from accessgov.storage.engine import migrate
from tests.server.storage.conftest import NOW, plaintext_database

SECRET = "whsec_sealed_while_keys_change"


def _add(session: Session, keyring: Keyring) -> str:
    listener = listeners.create_listener(
        session,
        auth_method="HMAC",
        hmac_secret=SECRET,
        automation_name="echo",
        automation_steps=[{"name": "echo", "expression": "ctx.trigger"}],
        now=NOW,
        keyring=keyring,
    )
    assert listener.hmac_secret_sealed is not None
    return listener.id


def _opens(sessions: sessionmaker[Session], listener_id: str, path: Path) -> str | None:
    """The listener's secret as a process that reads the key file now opens it."""
    with sessions() as session:
        stored = listeners.get_listener(session, listener_id)
        assert stored is not None
        return listeners.secrets_of(stored, Keyring.from_file(path))[0]


def test_rotate_and_prune_wait_for_a_sealed_value_to_be_committed(
    engine: Engine, sessions: sessionmaker[Session], tmp_path: Path
) -> None:
    path = tmp_path / "secret.keys"
    server, commands = Keyring.from_file(path, create=True), Keyring.from_file(path)
    first = server.primary_id
    session = sessions()
    session.begin()
    listener_id = _add(session, server)  # sealed under `first`, flushed, not committed
    for command in (sealing.rotate_keys, sealing.prune_keys):
        with pytest.raises(KeyringError, match="storing a value sealed under it"):
            command(engine, commands, wait=0.2)
    done: list[str] = []
    keys = threading.Thread(
        target=lambda: done.extend([sealing.rotate_keys(engine, commands)[0], *sealing.prune_keys(engine, commands)])
    )
    keys.start()
    keys.join(0.5)
    assert keys.is_alive(), "a rotation ran while a sealed value was not yet stored"
    session.commit()
    session.close()
    keys.join(30)
    assert not keys.is_alive()
    second, *pruned = done
    assert second != first and pruned == [first]  # re-sealed under the new key, then the old one dropped
    assert Keyring.from_file(path).key_ids == (second,)
    assert _opens(sessions, listener_id, path) == SECRET


def test_a_rolled_back_seal_lets_the_commands_run(
    engine: Engine, sessions: sessionmaker[Session], tmp_path: Path
) -> None:
    path = tmp_path / "secret.keys"
    server, commands = Keyring.from_file(path, create=True), Keyring.from_file(path)
    with sessions() as session, session.begin():
        _add(session, server)
        session.rollback()
    new, _count = sealing.rotate_keys(engine, commands, wait=0.2)
    assert sealing.prune_keys(engine, commands, wait=0.2) == {server.primary_id} - {new}


def test_a_seal_during_a_rotation_waits_and_takes_the_new_key(
    engine: Engine, sessions: sessionmaker[Session], tmp_path: Path
) -> None:
    path = tmp_path / "secret.keys"
    server, commands = Keyring.from_file(path, create=True), Keyring.from_file(path)
    sealed: list[str] = []

    def seal_and_commit() -> None:
        with sessions.begin() as session:
            listener_id = _add(session, server)
            stored = listeners.get_listener(session, listener_id)
            assert stored is not None and stored.hmac_secret_sealed is not None
            sealed.append(stored.hmac_secret_sealed)

    with commands.changing():
        new = commands.add_primary()
        writer = threading.Thread(target=seal_and_commit)
        writer.start()
        writer.join(0.5)
        assert writer.is_alive(), "a value was sealed while the key file was being changed"
    writer.join(30)
    assert [key_id_of(value) for value in sealed] == [new]


def test_the_migration_that_seals_plaintext_waits_for_a_key_change(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The upgrade that seals an older database's plaintext holds the lock shared until it commits, like any seal."""
    path = tmp_path / "secret.keys"
    monkeypatch.delenv("ACCESSGOV_SECRET_KEY", raising=False)
    monkeypatch.setenv("ACCESSGOV_SECRET_KEY_FILE", str(path))  # the migration's keyring: this database's key file
    commands = Keyring.from_file(path, create=True)
    engine = create_engine(db_url)
    try:
        plaintext_database(engine)
        with commands.changing():
            new = commands.add_primary()
            migration = threading.Thread(target=migrate, args=(engine,))
            migration.start()
            migration.join(0.5)
            assert migration.is_alive(), "the migration sealed while the key file was being changed"
        migration.join(60)
        assert not migration.is_alive()
        with engine.connect() as connection:
            assert sealing.referenced_key_ids(connection) == {new}
        first = set(commands.key_ids) - {new}
        assert first and sealing.prune_keys(engine, commands, wait=0.2) == first  # nothing needs the first key
    finally:
        engine.dispose()
