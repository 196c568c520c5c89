"""`accessgov keys doctor` (which key file, its keys, whether every sealed value opens) and duration arguments
refused as usage errors, run in process on a real SQLite database and key file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from accessgov import cli
from accessgov.keys import Keyring
from accessgov.storage import listeners
from accessgov.storage.backends import create_engine
from accessgov.storage.engine import migrate, session_factory


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A database and key file of this test's own (the key file left to the rule: next to the database)."""
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'accessgov.db'}")
    monkeypatch.delenv("ACCESSGOV_SECRET_KEY_FILE", raising=False)
    monkeypatch.delenv("ACCESSGOV_SECRET_KEY", raising=False)
    monkeypatch.chdir(tmp_path.parent)  # not the database's directory
    return tmp_path


@pytest.mark.parametrize(
    "argv",
    [
        ["listeners", "rotate", "wh_x", "--grace", "99999999999h"],
        ["listeners", "rotate", "wh_x", "--grace=-1h"],
        ["page-keys", "rotate", "--grace", "9" * 40],
        ["serve", "--head-timeout", "nan"],
        ["serve", "--body-timeout=-3"],
        ["serve", "--head-timeout", "1e400"],
        ["serve", "--graceful-shutdown", "99999999999999999999d"],
        ["serve", "--keep-alive", "inf"],
    ],
)
def test_every_duration_argument_is_a_usage_error_when_wrong(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        cli.parser().parse_args(argv)
    assert exited.value.code == 2
    assert "duration" in capsys.readouterr().err


def test_durations_keep_their_forms() -> None:
    assert cli.parse_duration("24h").total_seconds() == 86400
    assert cli.parse_duration("0").total_seconds() == 0
    assert cli.parse_duration("1.5s").total_seconds() == 1.5
    assert cli.parser().parse_args(["serve", "--head-timeout", "2.5"]).head_timeout == 2.5
    assert cli.parser().parse_args(["serve", "--keep-alive", "5"]).keep_alive == 5


def test_keys_doctor_names_the_key_file_and_checks_every_sealed_value(
    env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["listeners", "create", "--auth", "hmac"]) == 0
    assert cli.main(["page-keys", "rotate"]) == 0
    assert cli.main(["keys", "rotate"]) == 0
    capsys.readouterr()
    assert cli.main(["keys", "doctor"]) == 0
    out = capsys.readouterr().out
    assert str(env / "secret.keys") in out
    assert "next to the SQLite database" in out
    keys = json.loads((env / "secret.keys").read_text())
    for kid in keys["keys"]:
        assert kid in out
    assert "primary" in out
    assert "2 sealed value(s) open, 0 do not" in out  # the listener's secret and the page-token keys


def test_keys_doctor_fails_when_a_sealed_value_does_not_open(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["migrate"]) == 0
    engine = create_engine(f"sqlite:///{env / 'accessgov.db'}")
    migrate(engine)
    assert cli.main(["listeners", "create", "--auth", "hmac"]) == 0
    stranger = Keyring.from_file(env / "elsewhere.keys", create=True)
    with session_factory(engine).begin() as session:
        orphan = listeners.create_listener(
            session, auth_method="HMAC", hmac_secret="whsec_x", automation_name="a", automation_steps=[],
            keyring=stranger,
        )  # fmt: skip
    engine.dispose()
    capsys.readouterr()
    assert cli.main(["keys", "doctor"]) == 1
    out = capsys.readouterr().out
    assert orphan.id in out
    assert stranger.primary_id in out
    assert "do not" in out


def test_a_command_refuses_to_create_a_second_key_file(env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The key file moved away from the database that holds sealed values: commands that need a key say where they
    looked and exit 1; none creates a new key file."""
    assert cli.main(["listeners", "create", "--auth", "hmac"]) == 0
    (env / "secret.keys").rename(env / "moved.keys")
    from accessgov.storage.sealing import reset_default_keyring

    reset_default_keyring()
    capsys.readouterr()
    assert cli.main(["listeners", "create", "--auth", "hmac"]) == 1
    assert cli.main(["keys", "doctor"]) == 1
    output = capsys.readouterr()
    assert str(env / "secret.keys") in output.err
    assert "key file missing" in output.out
    assert not (env / "secret.keys").exists()
