"""Signing secrets at rest: sealed with AES-GCM under the keyring, never plaintext in the database; an older
plaintext database is sealed by the migration; a key rotation re-seals everything and the old key can go."""

from __future__ import annotations

import os
import stat
from datetime import timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, sessionmaker

from accessgov.config import Settings
from accessgov.keys import Keyring, KeyringError, open_sealed, seal
from accessgov.keys.secretbox import SealedValueError, key_id_of
from accessgov.storage import listeners, page_keys, sealing
from accessgov.storage.backends import create_engine
from accessgov.storage.engine import migrate, session_factory
from accessgov.storage.schema import Base
from tests.server.storage.conftest import HMAC_SECRET, NOW, MakeListener, plaintext_database


def dump(engine: Engine) -> str:
    """Every value of every table, as text: what a copy of the database shows."""
    parts = []
    with engine.connect() as connection:
        for table in Base.metadata.sorted_tables:
            for row in connection.execute(sa.select(table)):
                parts.append(repr(tuple(row)))
        if engine.dialect.name == "sqlite":
            parts.extend(connection.connection.dbapi_connection.iterdump())  # type: ignore[union-attr]
    return "\n".join(parts)


def test_no_plaintext_secret_in_a_database_dump(
    engine: Engine, sessions: sessionmaker[Session], make_listener: MakeListener
) -> None:
    listener = make_listener()
    with sessions.begin() as session:
        listeners.rotate_secret(session, listener.id, "whsec_rotated_secret_value", now=NOW)
        keys = page_keys.rotate(session, NOW, timedelta(hours=24))
    text = dump(engine)
    for secret in (HMAC_SECRET, "whsec_rotated_secret_value", keys.current.hex(), keys.previous[0][0].hex()):
        assert secret not in text
    # ...and yet they are all there, for whoever holds the key.
    with sessions() as session:
        stored = listeners.get_listener(session, listener.id)
        assert stored is not None
        assert listeners.secrets_of(stored) == ("whsec_rotated_secret_value", HMAC_SECRET)
        assert page_keys.load_or_create(session) == keys


def test_a_ciphertext_does_not_open_in_another_row(
    sessions: sessionmaker[Session], make_listener: MakeListener
) -> None:
    first, second = make_listener(), make_listener(hmac_secret="whsec_other")
    with sessions.begin() as session:
        victim = listeners.get_listener(session, second.id)
        assert victim is not None
        victim.hmac_secret_sealed = first.hmac_secret_sealed  # an attacker with write access swaps rows
    with sessions() as session:
        stored = listeners.get_listener(session, second.id)
        assert stored is not None
        with pytest.raises(SealedValueError):
            listeners.secrets_of(stored)


def test_expired_previous_secrets_are_purged(sessions: sessionmaker[Session], make_listener: MakeListener) -> None:
    listener = make_listener()
    with sessions.begin() as session:
        listeners.rotate_secret(session, listener.id, "whsec_next", grace=timedelta(minutes=30), now=NOW)
        assert listeners.purge_expired_previous_secrets(session, NOW + timedelta(minutes=29)) == 0
        assert listeners.purge_expired_previous_secrets(session, NOW + timedelta(minutes=30)) == 1
    with sessions() as session:
        stored = listeners.get_listener(session, listener.id)
        assert stored is not None and listeners.secrets_of(stored) == ("whsec_next", None)
        assert stored.previous_secret_expires_at is None


def test_an_old_plaintext_database_is_sealed_by_the_migration(db_url: str) -> None:
    engine = create_engine(db_url)
    try:
        plaintext_database(engine)
        migrate(engine)
        text = dump(engine)
        assert "plain-old-secret" not in text and "ab" * 32 not in text
        with session_factory(engine)() as session:
            stored = listeners.get_listener(session, "wh_old")
            assert stored is not None and listeners.secrets_of(stored) == ("plain-old-secret", None)
            assert page_keys.load_or_create(session).current == bytes.fromhex("ab" * 32)  # old tokens still verify
    finally:
        engine.dispose()


def test_key_rotation_reseals_everything_then_the_old_key_can_go(
    engine: Engine, sessions: sessionmaker[Session], make_listener: MakeListener, tmp_path: Path
) -> None:
    keyring = Keyring.from_file(tmp_path / "secret.keys", create=True)
    old = keyring.primary_id
    made = [make_listener(keyring=keyring, hmac_secret=f"whsec_{n}") for n in range(3)]
    with sessions.begin() as session:
        page_keys.load_or_create(session, keyring)
    with engine.connect() as connection:
        assert sealing.referenced_key_ids(connection) == {old}
    new = keyring.add_primary()
    with engine.begin() as connection:
        assert sealing.reseal_all(connection, keyring) == 4
        assert sealing.referenced_key_ids(connection) == {new}
        assert sealing.reseal_all(connection, keyring) == 0  # idempotent
    keyring.remove({old})
    fresh = Keyring.from_file(tmp_path / "secret.keys")  # what another process reads now
    assert fresh.key_ids == (new,)
    with sessions() as session:
        for n, listener in enumerate(made):
            stored = listeners.get_listener(session, listener.id)
            assert stored is not None and listeners.secrets_of(stored, fresh) == (f"whsec_{n}", None)
        page_keys.load_or_create(session, fresh)


def test_key_file_is_private_and_a_running_process_sees_a_rotation(tmp_path: Path) -> None:
    path = tmp_path / "data" / "secret.keys"
    server = Keyring.from_settings(Settings(secret_key_file=path), None)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    operator = Keyring.from_file(path)
    new = operator.add_primary()
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    sealed = seal(operator, "value", b"ad")
    assert key_id_of(sealed) == new
    assert open_sealed(server, sealed, b"ad") == "value"  # re-read the (changed) file on the unknown key id
    with pytest.raises(KeyringError):
        server.key("k_never")  # the file has not changed since: no second read, and no such key anyway
    assert server.primary_id == new  # and the periodic re-read makes the new key the one it seals with
    newer = operator.add_primary()
    server.reload()
    assert server.primary_id == newer and key_id_of(seal(server, "v", b"ad")) == newer


def test_keys_from_the_environment() -> None:
    first, second = Keyring.generate(), Keyring.generate()
    (kid1, key1), (kid2, key2) = first.primary(), second.primary()
    from accessgov.keys.keyring import encode_key

    ring = Keyring.from_settings(
        Settings.validated({"ACCESSGOV_SECRET_KEY": f"{kid2}:{encode_key(key2)},{kid1}:{encode_key(key1)}"}), None
    )
    assert ring.primary_id == kid2 and set(ring.key_ids) == {kid1, kid2}
    assert open_sealed(ring, seal(first, "x", b"a"), b"a") == "x"
    bare = Keyring.from_settings(Settings.validated({"ACCESSGOV_SECRET_KEY": encode_key(key1)}), None)
    assert len(bare.key_ids) == 1
    for bad in ("short", "k1:" + encode_key(b"x" * 16), "bad id!:" + encode_key(key1)):
        with pytest.raises(KeyringError):
            Keyring.from_settings(Settings.validated({"ACCESSGOV_SECRET_KEY": bad}), None)
