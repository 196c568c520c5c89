"""`accessgov.config.Settings`: every variable declared once; the CLI's `serve` options, the server's and the edge's
defaults and docs/operations.md's table follow it; a wrong value stops start-up naming the variable."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from accessgov import cli, settings_doc
from accessgov.config import DEFAULTS, Settings, SettingsError, env_name, is_serve_option
from accessgov.http import edge, gc_tuning
from accessgov.http.server import header_limits


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
    resolved = cli.serve_settings(parser.parse_args([]), Settings())
    assert resolved == DEFAULTS
    for name in settings_options:
        action = options[name]
        assert action.option_strings == ["--" + name.replace("_", "-")]
        assert action.default is None  # so the variable applies when the option is not given
        assert f"[{env_name(name)}, " in (action.help or "")


def test_options_override_variables_which_override_defaults() -> None:
    parser = _serve_parser()
    env = {"ACCESSGOV_MAX_HEADERS": "50", "ACCESSGOV_HEAD_TIMEOUT": "2.5s", "ACCESSGOV_WORKERS": "3"}
    args = parser.parse_args(["--max-headers", "7", "--keep-alive", "1m"])
    settings = cli.serve_settings(args, Settings.validated(env))
    assert header_limits(settings).count == 7
    assert settings.keep_alive == 60
    assert settings.head_timeout == 2.5
    assert settings.workers == 3
    assert header_limits(settings).head_bytes == DEFAULTS.max_head_bytes


@pytest.mark.parametrize("argv", [["--max-headers", "0"], ["--max-head-bytes", "abc"], ["--head-timeout", "-1"]])
def test_a_wrong_option_is_a_usage_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        _serve_parser().parse_args(argv)
    assert caught.value.code == 2
    assert argv[0] in capsys.readouterr().err


def test_the_edge_defaults_are_the_settings_defaults() -> None:
    # The edge module is vendored into the mock and imports nothing of the package: its own defaults must agree.
    assert edge.HeaderLimits() == header_limits(DEFAULTS)
    assert (DEFAULTS.head_timeout, DEFAULTS.body_timeout) == (edge.DEFAULT_HEAD_TIMEOUT, edge.DEFAULT_BODY_TIMEOUT)
    assert DEFAULTS.gc_threshold == gc_tuning.DEFAULT_YOUNG_THRESHOLD


def test_variable_names_are_read_as_declared_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Environment names are case-sensitive: a lower- or mixed-case spelling is another variable, not this one."""
    for name in [*(env_name(field) for field in Settings.model_fields), "accessgov_db_readers"]:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("accessgov_db_readers", "7")
    monkeypatch.setenv("Accessgov_Workers", "3")
    monkeypatch.setenv("database_url", "sqlite:///x.db")
    monkeypatch.setenv("ACCESSGOV_DB_WRITERS", "5")
    settings = Settings.load()
    assert (settings.db_readers, settings.workers, settings.database_url) == (
        DEFAULTS.db_readers,
        DEFAULTS.workers,
        None,
    )
    assert settings.db_writers == 5


def test_accepted_values_keep_their_meaning() -> None:
    settings = Settings.validated(
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
    assert settings.page_token_key == b" spaced "  # a secret is taken verbatim
    assert settings.database == "postgresql+psycopg://db/x"


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
        Settings.validated({variable: value})
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
    assert "ACCESSGOV_PAGE_TOKEN_SECRET" in named  # the scan reads the package


@pytest.mark.parametrize("value", ["1", "64", "0", "-1", "abc", "+5", "1.5", "٣", "  ", ""])
def test_the_mock_reads_the_head_limits_as_the_server_does(value: str) -> None:
    from generated.stub_server.__main__ import head_limits

    env = {"ACCESSGOV_MAX_HEADERS": value}
    try:
        mock: int | None = head_limits(env).count
    except ValueError:
        mock = None
    try:
        server: int | None = header_limits(Settings.validated(env)).count
    except SettingsError:
        server = None
    assert mock == server


def test_a_misspelt_or_wrong_override_is_an_error() -> None:
    with pytest.raises(SettingsError, match="workerz"):
        DEFAULTS.updated(workerz=2)
    with pytest.raises(SettingsError, match="ACCESSGOV_WORKERS"):
        DEFAULTS.updated(workers=0)
    with pytest.raises(SettingsError, match="ACCESSGOV_DB_READERZ"):
        Settings.validated({"ACCESSGOV_DB_READERZ": "3"})
    with pytest.raises(ValueError, match="workerz"):
        Settings(workerz=2)  # type: ignore[call-arg]
    changed = DEFAULTS.updated(workers=3, head_timeout="2.5s")
    assert (changed.workers, changed.head_timeout, changed.db_readers) == (3, 2.5, DEFAULTS.db_readers)
    assert DEFAULTS.workers == 1  # frozen: `updated` made another object
    with pytest.raises(ValueError, match="frozen"):
        DEFAULTS.workers = 2  # type: ignore[misc]


def test_a_worker_process_loads_the_settings_its_supervisor_chose(monkeypatch: pytest.MonkeyPatch) -> None:
    """`serve --workers N` hands its settings (options over variables) to the workers in their environment."""
    chosen: dict[str, Any] = {
        "workers": 3,
        "head_timeout": 2.5,
        "keep_alive": 60,
        "access_log": "off",
        "trusted_proxies": ("10.0.0.0/8", "::1"),
        "run_automations": False,
        "page_token_secret": " spaced ",
        "database_url": "postgres://db/x",
        "docs_html": Path("/srv/docs.html"),
    }
    settings = DEFAULTS.updated(**chosen)
    for name in Settings.model_fields:
        monkeypatch.delenv(env_name(name), raising=False)
    for name, value in settings.environment().items():
        monkeypatch.setenv(name, value)
    assert Settings.load() == settings


def test_nothing_outside_the_settings_module_reads_the_environment() -> None:
    """Every variable is read in `accessgov/config.py`; the rest of the package receives `Settings`."""
    package = Path(cli.__file__).parent
    readers = re.compile(r"\bos\.environ\b|\bgetenv\b|\benviron\b|\bputenv\b")
    found = [
        f"{path.relative_to(package)}:{number}: {line.strip()}"
        for path in sorted(package.rglob("*.py"))
        if path != package / "config.py"
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if readers.search(line)
    ]
    assert found == []
    assert readers.search((package / "config.py").read_text())  # the scan would see a reader
