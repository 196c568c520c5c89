"""Where the key file lives (one rule for the server and the CLI), that a second key file is never created beside
sealed rows, and that a running keyring picks up a rotation made by another process at once."""

from __future__ import annotations

from pathlib import Path

import pytest

from accessgov.config import Settings
from accessgov.keys import Keyring, KeyringError, open_sealed, seal
from accessgov.keys.keyring import key_file_path, key_source
from accessgov.storage import listeners
from accessgov.storage.backends import create_engine
from accessgov.storage.engine import migrate, session_factory
from accessgov.storage.sealing import database_file


def key_file_of(settings: Settings) -> Path:
    """The key file the rule picks for `settings`, beside their database's file where its backend has one."""
    return key_file_path(settings, database_file(settings))


def test_the_key_file_sits_next_to_the_sqlite_database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # the working directory plays no part
    url = f"sqlite:///{tmp_path / 'db' / 'accessgov.db'}"
    assert key_file_of(Settings.validated({"DATABASE_URL": url})) == tmp_path / "db" / "secret.keys"


def test_the_key_file_setting_wins(tmp_path: Path) -> None:
    env = {"ACCESSGOV_SECRET_KEY_FILE": str(tmp_path / "k.json"), "DATABASE_URL": "sqlite:////srv/x.db"}
    assert key_file_of(Settings.validated(env)) == tmp_path / "k.json"


def test_postgresql_keys_live_in_the_per_user_data_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = Settings(database_url="postgresql://u@127.0.0.1/db")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert key_file_of(settings) == tmp_path / "accessgov/secret.keys"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert key_file_of(settings) == tmp_path / ".local/share/accessgov/secret.keys"
    assert "per-user" in key_source(settings, database_file(settings))[1]


def test_no_second_key_file_beside_sealed_rows(tmp_path: Path) -> None:
    """The database holds secrets sealed under a key file elsewhere: a start without that file refuses (with the
    path it looked at) instead of creating a new, useless key."""
    url = f"sqlite:///{tmp_path / 'accessgov.db'}"
    engine = create_engine(url)
    migrate(engine)
    other = Keyring.from_file(tmp_path / "other" / "secret.keys", create=True)
    with session_factory(engine).begin() as session:
        listeners.create_listener(
            session, auth_method="HMAC", hmac_secret="whsec_x", automation_name="a", automation_steps=[], keyring=other
        )
    engine.dispose()
    from accessgov.storage.sealing import open_keyring

    with pytest.raises(KeyringError, match=r"secret\.keys") as refused:
        open_keyring(Settings(database_url=url))
    assert other.primary_id in str(refused.value)
    assert not (tmp_path / "secret.keys").exists()
    # An empty database gets its key file next to it.
    (tmp_path / "fresh").mkdir()
    fresh = f"sqlite:///{tmp_path / 'fresh' / 'accessgov.db'}"
    migrate(create_engine(fresh))
    assert open_keyring(Settings(database_url=fresh)).path == tmp_path / "fresh" / "secret.keys"


def test_a_rotation_by_another_process_is_seen_at_once(tmp_path: Path) -> None:
    """The server's keyring just re-read the file (a periodic reload); the CLI rotates; the very next unseal of a
    value under the new key succeeds."""
    path = tmp_path / "secret.keys"
    server = Keyring.from_file(path, create=True)
    server.reload()
    cli = Keyring.from_file(path)
    new = cli.add_primary()
    sealed = seal(cli, "whsec_new", b"ad")
    assert open_sealed(server, sealed, b"ad") == "whsec_new"
    assert server.primary_id == new


def test_an_unknown_key_id_rereads_only_a_changed_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Values under a key that is nowhere cannot make the keyring read its file again and again."""
    path = tmp_path / "secret.keys"
    keyring = Keyring.from_file(path, create=True)
    reads = []
    original = keyring.reload

    def counted() -> None:
        reads.append(1)
        original()

    monkeypatch.setattr(keyring, "reload", counted)
    for _ in range(50):
        with pytest.raises(KeyringError):
            keyring.key("kmissing")
    assert reads == []
    Keyring.from_file(path).add_primary()
    with pytest.raises(KeyringError):
        keyring.key("kmissing")
    assert reads == [1]
