"""`accessgov.config.Settings`: every variable declared once; the CLI's `serve` options, the server's and the edge's
defaults and docs/operations.md's table follow it; a wrong value stops start-up naming the variable."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest

from accessgov import cli, settings_doc
from accessgov.config import DEFAULTS, ServerConfig, Settings, SettingsError, env_name, is_serve_option
from accessgov.http import edge, gc_tuning
from accessgov.http.server import ServeOptions


def _serve_parser() -> argparse.ArgumentParser:
    sub = next(a for a in cli.parser()._actions if isinstance(a, argparse._SubParsersAction))
    parser: argparse.ArgumentParser = sub.choices["serve"]
    return parser


def test_every_serve_option_defaults_to_its_setting_and_names_it_in_its_help() -> None:
    parser = _serve_parser()
    options = {a.dest: a for a in parser._actions if a.option_strings}
    settings_options = [name for name, info in Settings.model_fields.items() if is_serve_option(info)]
    assert {"max_header_line_bytes", "max_headers", "max_head_bytes"} <= set(settings_options)
    assert set(settings_options) <= set(options)
    resolved = cli.serve_options(parser.parse_args([]), env={})
    for name in settings_options:
        action = options[name]
        assert action.option_strings == ["--" + name.replace("_", "-")]
        assert action.default is None  # so the variable applies when the option is not given
        assert f"[{env_name(name)}, " in (action.help or "")
        limits = resolved.header_limits
        head = {
            "max_header_line_bytes": limits.line_bytes,
            "max_headers": limits.count,
            "max_head_bytes": limits.head_bytes,
        }
        value = head[name] if name in head else getattr(resolved, name)
        assert value == getattr(DEFAULTS, name), name


def test_options_override_variables_which_override_defaults() -> None:
    parser = _serve_parser()
    env = {"ACCESSGOV_MAX_HEADERS": "50", "ACCESSGOV_HEAD_TIMEOUT": "2.5s", "ACCESSGOV_WORKERS": "3"}
    options = cli.serve_options(parser.parse_args(["--max-headers", "7", "--keep-alive", "1m"]), env=env)
    assert options.header_limits.count == 7
    assert options.keep_alive == 60
    assert options.head_timeout == 2.5
    assert options.workers == 3
    assert options.header_limits.head_bytes == DEFAULTS.max_head_bytes


@pytest.mark.parametrize("argv", [["--max-headers", "0"], ["--max-head-bytes", "abc"], ["--head-timeout", "-1"]])
def test_a_wrong_option_is_a_usage_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        _serve_parser().parse_args(argv)
    assert caught.value.code == 2
    assert argv[0] in capsys.readouterr().err


def test_server_and_edge_defaults_are_the_settings_defaults() -> None:
    options = ServeOptions()
    for field in fields(ServeOptions):
        if field.name in Settings.model_fields and field.name != "http":
            assert getattr(options, field.name) == getattr(DEFAULTS, field.name), field.name
    # The edge module is vendored into the mock and imports nothing of the package: its own defaults must agree.
    assert edge.HeaderLimits() == options.header_limits
    assert (DEFAULTS.head_timeout, DEFAULTS.body_timeout) == (edge.DEFAULT_HEAD_TIMEOUT, edge.DEFAULT_BODY_TIMEOUT)
    assert DEFAULTS.gc_threshold == gc_tuning.DEFAULT_YOUNG_THRESHOLD
    config = ServerConfig(database_url="sqlite://")
    for name in ("tenant_base_url", "jwks_ttl_seconds", "db_readers", "auth_failure_limit", "access_log"):
        assert getattr(config, name) == getattr(DEFAULTS, name)


def test_variable_names_are_read_as_declared_only() -> None:
    """Environment names are case-sensitive: a lower- or mixed-case spelling is another variable, not this one."""
    settings = Settings.from_env(
        {
            "accessgov_db_readers": "7",
            "Accessgov_Workers": "3",
            "database_url": "sqlite:///x.db",
            "ACCESSGOV_DB_WRITERS": "5",
        }
    )
    assert (settings.db_readers, settings.workers, settings.database_url) == (
        DEFAULTS.db_readers,
        DEFAULTS.workers,
        None,
    )
    assert settings.db_writers == 5


def test_accepted_values_keep_their_meaning() -> None:
    settings = Settings.from_env(
        {
            "ACCESSGOV_WORKERS": "  ",  # blank: the default
            "ACCESSGOV_TENANT_BASE_URL": "https://t.example/",
            "ACCESSGOV_TRUSTED_PROXIES": "10.0.0.0/8, ,::1",
            "ACCESSGOV_AUTH_FAILURE_LIMIT": "off",
            "ACCESSGOV_LIMITER_FAILURE_MODE": "CLOSED",
            "ACCESSGOV_RUN_AUTOMATIONS": "0",
            "ACCESSGOV_JWT_AUDIENCE_FROM_REQUEST": "yes",
            "ACCESSGOV_SQLITE_SYNCHRONOUS": "normal",
            "ACCESSGOV_PAGE_TOKEN_SECRET": " spaced ",
            "DATABASE_URL": "postgres://db/x",
        }
    )
    assert settings.workers == DEFAULTS.workers
    assert settings.tenant_base_url == "https://t.example"
    assert settings.trusted_proxies == ("10.0.0.0/8", "::1")
    assert settings.auth_failure_limit == "off"
    assert settings.limiter_failure_mode == "closed"
    assert (settings.run_automations, settings.jwt_audience_from_request) == (False, True)
    assert settings.sqlite_synchronous == "NORMAL"
    config = ServerConfig.from_settings(settings)
    assert config.page_token_secret == b" spaced "  # a secret is taken verbatim
    assert config.database_url == "postgresql+psycopg://db/x"


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("ACCESSGOV_MAX_HEADERS", "abc"),
        ("ACCESSGOV_MAX_HEADERS", "0"),
        ("ACCESSGOV_MAX_HEADERS", "+5"),
        ("ACCESSGOV_HEAD_TIMEOUT", "-1"),
        ("ACCESSGOV_KEEP_ALIVE", "1.5"),
        ("ACCESSGOV_AUTH_FAILURE_IPV6_PREFIX", "129"),
        ("ACCESSGOV_LIMITER_TIMEOUT_MS", "nan"),
        ("ACCESSGOV_LIMITER_FAILURE_MODE", "ajar"),
        ("ACCESSGOV_TRUSTED_PROXIES", "10.0.0.0/8,proxy"),
        ("ACCESSGOV_AUTH_FAILURE_LIMIT", "lots"),
        ("ACCESSGOV_RUN_AUTOMATIONS", "maybe"),
        ("ACCESSGOV_SQLITE_SYNCHRONOUS", "OFF"),
    ],
)
def test_a_wrong_value_names_its_variable(variable: str, value: str) -> None:
    with pytest.raises(SettingsError) as caught:
        Settings.from_env({variable: value})
    assert [name for name, _, _ in caught.value.problems] == [variable]
    assert str(caught.value).startswith(f"{variable}={value!r}: ")


@pytest.mark.parametrize(
    ("variable", "value"),
    [("ACCESSGOV_MAX_HEADERS", "abc"), ("ACCESSGOV_MAX_HEADERS", "0"), ("ACCESSGOV_HEAD_TIMEOUT", "-1")],
)
def test_a_wrong_value_stops_serve_before_it_starts(variable: str, value: str) -> None:
    # Port 1: were the value accepted, binding it would fail too, but with another message and status.
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from accessgov.cli import main; sys.exit(main())", "serve", "--port", "1"],
        env={"PATH": "/usr/bin:/bin", variable: value},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert f"configuration: {variable}={value!r}" in done.stderr


def test_the_docs_table_is_the_generated_one() -> None:
    document = settings_doc.DOC.read_text()
    assert settings_doc.rendered(document) == document, "run make settings-doc"
    for name in Settings.model_fields:
        assert f"| `{env_name(name)}` |" in document


def test_every_variable_the_package_names_is_declared() -> None:
    declared = {env_name(name) for name in Settings.model_fields}
    internal = {"ACCESSGOV_SUPERVISOR_PID"}  # set by `serve`'s supervisor for its workers, never by an operator
    package = Path(cli.__file__).parent
    named = {
        match
        for path in package.rglob("*.py")
        if "migrations" not in path.parts
        for match in re.findall(r"\bACCESSGOV_[A-Z0-9_]*[A-Z0-9]\b", path.read_text())
    }
    assert named - internal <= declared
    assert "ACCESSGOV_MAX_HEADERS" in named  # the scan reads the package


@pytest.mark.parametrize("value", ["1", "64", "0", "-1", "abc", "+5", "1.5", "٣", "  ", ""])
def test_the_mock_reads_the_head_limits_as_the_server_does(value: str) -> None:
    env = {"ACCESSGOV_MAX_HEADERS": value}
    try:
        mock: int | None = edge.HeaderLimits.from_env(env).count
    except ValueError:
        mock = None
    try:
        server: int | None = ServeOptions.from_env(env).header_limits.count
    except SettingsError:
        server = None
    assert mock == server
