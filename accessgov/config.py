"""The server's settings: `Settings` declares every variable once (type, default, unit, text; docs/operations.md's
table is generated from it) and is what the server, `accessgov serve` and every CLI command receive. This module is
the only one that reads the process environment (`Settings.load`, and the few variables of the process itself:
the key file's per-user directory, the supervisor of `serve`'s workers, prometheus-client's multiprocess
directory); nothing reads it at import."""

from __future__ import annotations

import ipaddress
import math
import os
import re
from collections.abc import Mapping
from datetime import timedelta
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

from pydantic import AliasGenerator, BeforeValidator, Field, SecretStr, ValidationError, model_validator
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, EnvSettingsSource, NoDecode, PydanticBaseSettingsSource, SettingsConfigDict

DEFAULT_TENANT_BASE_URL = "https://example.accessgov.example"
DEFAULT_DATA_DIR = Path("data")
SQLITE_FILENAME = "accessgov.db"
ENV_PREFIX = "ACCESSGOV_"
_PG_PREFIXES = ("postgres://", "postgresql://")
LIMIT_OFF = ("0", "off", "none")  # a failure limit that is off (`failure_limits.OFF` adds the blank)

_DURATION = re.compile(r"(\d{1,12}(?:\.\d{1,6})?)(ms|[smhd]?)")
_UNITS = {"ms": 0.001, "": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}
MAX_DURATION = timedelta(days=3650)


def parse_duration(text: str) -> timedelta:
    """`24h`, `30m`, `1.5s`, `250ms`, `3600`, `1d` or `0` as a timedelta, at most ten years: the one parser of every
    duration (the CLI's arguments and the variables); ValueError for anything else."""
    match = _DURATION.fullmatch(text.strip().lower())
    if match is None:
        raise ValueError(f"{text!r} is not a duration such as 24h, 30m, 1.5s, 250ms or 0")
    seconds = float(match.group(1)) * _UNITS[match.group(2)]
    if seconds > MAX_DURATION.total_seconds():
        raise ValueError(f"the duration {text!r} is longer than ten years")
    return timedelta(seconds=seconds)


def _seconds(value: object) -> object:
    return parse_duration(value).total_seconds() if isinstance(value, str) else value


def _whole_seconds(value: object) -> object:
    if not isinstance(value, str):
        return value
    seconds = parse_duration(value).total_seconds()
    if seconds != int(seconds):
        raise ValueError(f"the duration {value!r} must be whole seconds")
    return int(seconds)


def _digits(value: object) -> object:
    # int() would also take "+5", " 5" and "1_000"; a count in a variable is written in plain digits.
    if isinstance(value, str) and not (value.isascii() and value.isdigit()):
        raise ValueError("expected a whole number written in digits")
    return value


def _number(value: object) -> object:
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            raise ValueError("expected a number") from None
        if not math.isfinite(number):
            raise ValueError("expected a finite number")
        return number
    return value


def _lower(value: object) -> object:
    return value.lower() if isinstance(value, str) else value


def _upper(value: object) -> object:
    return value.upper() if isinstance(value, str) else value


def _base_url(value: object) -> object:
    return value.rstrip("/") if isinstance(value, str) else value


def _cidrs(value: object) -> object:
    """A comma-separated list of CIDR ranges (each checked here, so a typo stops start-up)."""
    if not isinstance(value, str):
        return value
    ranges = tuple(part.strip() for part in value.split(",") if part.strip())
    for cidr in ranges:
        try:
            ipaddress.ip_network(cidr, strict=False)
        except ValueError:
            raise ValueError(f"{cidr!r} is not an IPv4 or IPv6 CIDR range") from None
    return ranges


def _rate_limit(value: object) -> object:
    if isinstance(value, str) and value.lower() not in LIMIT_OFF:
        from limits import parse as parse_rate_limit  # only when one is given: `limits` takes ~0.1 s to import

        try:
            parse_rate_limit(value)
        except ValueError:
            raise ValueError("expected a rate such as 30/minute or 5/10 seconds, or off") from None
    return value


Count = Annotated[int, BeforeValidator(_digits)]
Seconds = Annotated[float, BeforeValidator(_seconds)]
WholeSeconds = Annotated[int, BeforeValidator(_whole_seconds)]
Number = Annotated[float, BeforeValidator(_number)]
BaseUrl = Annotated[str, BeforeValidator(_base_url)]
RateLimit = Annotated[str, BeforeValidator(_rate_limit)]


def _setting(
    default: Any,
    text: str,
    unit: str | None = None,
    *,
    env: str | None = None,
    shown: str | None = None,
    option: bool = False,
    **constraints: Any,
) -> Any:
    """A variable's declaration: `unit` for numbers, `env` for a name without the prefix, `shown` for the default
    as the docs and `--help` show it (when the value itself is not it), `option` when `serve` has a flag for it."""
    extra: dict[str, Any] = {"option": option}
    if unit:
        extra["unit"] = unit
    if shown:
        extra["shown"] = shown
    return Field(default, description=text, validation_alias=env, json_schema_extra=extra, **constraints)


class SettingsError(ValueError):
    """Variables with wrong values: each named with what it expects (start-up stops on it)."""

    def __init__(self, problems: list[tuple[str, str, object]]) -> None:
        self.problems = problems  # (variable, what is expected, the value given)
        super().__init__("; ".join(f"{name}={value!r}: {expected}" for name, expected, value in problems))


class Settings(BaseSettings):
    """Every environment variable of the server, `accessgov serve` and the validation proxy, declared once, frozen.
    `Settings(field=...)` is the defaults and what is given (never the environment); `Settings.load()` reads the
    process's environment; `validated` a mapping of variables or fields, `updated` changes some: both check every
    value, and a name that is no setting is an error (`SettingsError`). A blank variable is the default."""

    # Each field is read from its variable's name exactly as declared (`ACCESSGOV_DB_READERS`, never
    # `accessgov_db_readers`: environment names are case-sensitive everywhere else), and may be given by its name.
    model_config = SettingsConfigDict(
        case_sensitive=True,
        alias_generator=AliasGenerator(validation_alias=lambda field: ENV_PREFIX + field.upper()),
        validate_by_name=True,
        validate_by_alias=True,
        env_ignore_empty=True,
        extra="forbid",
        frozen=True,
    )
    # Never stripped: a secret's spaces are part of it.
    _VERBATIM: ClassVar[frozenset[str]] = frozenset({"page_token_secret", "secret_key", "proxy_token"})

    # The deployment
    database_url: str | None = _setting(
        None,
        "database URL: `postgresql://...` (psycopg 3), or `sqlite:///path`",
        env="DATABASE_URL",
        shown="SQLite `./data/accessgov.db`",
    )
    tenant_base_url: BaseUrl = _setting(DEFAULT_TENANT_BASE_URL, "the tenant's base URL: the JWT `sub` of deliveries")
    public_base_url: BaseUrl | None = _setting(
        None,
        "base URL clients reach this server at: base of the listener URLs the CLI prints and of a listener's JWT `aud`",
        shown="the tenant base URL",
    )
    jwt_audience_from_request: bool = _setting(
        False, "take a listener's JWT `aud` from the request as received (its `Host` header) instead of the base URL"
    )
    run_automations: bool = _setting(
        True, "run queued automations in the server process (`0` when `accessgov worker` processes run them)"
    )
    db_readers: Count = _setting(
        4,
        "PostgreSQL: reader threads and pool connections, and the loop's async connections for pages (a process "
        "opens at most 3 * readers + 2 * writers connections; `serve` warns when its workers may exceed the "
        "server's `max_connections`)",
        "connections",
        ge=1,
    )
    db_writers: Count = _setting(
        2, "PostgreSQL: writer threads and connections, and the loop's for deliveries and restarts", "connections", ge=1
    )
    sqlite_synchronous: Annotated[Literal["FULL", "NORMAL", "EXTRA"], BeforeValidator(_upper)] = _setting(
        "FULL",
        "SQLite's `synchronous`: `FULL` answers once the commit is on disk (an acknowledged event survives a power "
        "loss); `NORMAL` skips that fdatasync and survives a process crash only",
    )
    gil_switch_interval: Number = _setting(
        0.0002,
        "how long a thread waiting for the GIL lets its holder run on (Python's is 0.005): the event loop and the "
        "database threads hand the GIL to each other on every unit",
        "seconds",
        gt=0,
    )
    page_token_secret: SecretStr | None = _setting(
        None,
        "the key that signs page tokens (the operator's: nothing is stored or rotated); unset: the server generates "
        "one and keeps it in the database",
        shown="generated",
    )
    secret_key: SecretStr | None = _setting(
        None,
        "fixed keys that seal signing secrets at rest: `kid:<base64url of 32 bytes>[,kid:key...]`, the first primary",
        shown="the key file",
    )
    secret_key_file: Path | None = _setting(
        None,
        "the key file (created with mode 0600 on first use)",
        shown="`secret.keys` next to the SQLite file, else `$XDG_DATA_HOME/accessgov/secret.keys`",
    )
    jwks_ttl_seconds: Count = _setting(300, "how long a listener's fetched JWKS is reused", "seconds")
    listener_cache_seconds: Number = _setting(
        2.0,
        "how long a listener read from the database (its secrets, switches and automation) is reused: a change made "
        "elsewhere (the CLI, another worker) is seen within it",
        "seconds",
        gt=0,
    )
    trusted_proxies: Annotated[tuple[str, ...], NoDecode, BeforeValidator(_cidrs)] = _setting(
        (), "comma-separated CIDR ranges whose `X-Forwarded-For` is honoured", shown="none"
    )
    # Failed authentications (docs/keys-and-limits.md)
    auth_failure_limit: RateLimit = _setting(
        "30/minute", "failed authentications per source address before its failures get 429 (`off`: no limit)"
    )
    auth_failure_limit_per_credential: RateLimit = _setting(
        "60/minute", "failed authentications per credential before a warning (never a refusal; `off`: none)"
    )
    auth_failure_ipv6_prefix: Count = _setting(
        64, "IPv6 sources are counted by network of this prefix (one host usually has a /64)", "bits", ge=0, le=128
    )
    redis_url: str | None = _setting(
        None, "Redis for counters shared by every worker and server (`redis://host:6379/0`)", shown="in memory"
    )
    limiter_timeout_ms: Number = _setting(
        5.0, "how long a failed authentication waits for the shared counters", "milliseconds", gt=0
    )
    limiter_failure_mode: Annotated[Literal["open", "closed"], BeforeValidator(_lower)] = _setting(
        "open", "what a failed authentication gets when the shared counters do not answer: its 401, or 429"
    )
    # `accessgov serve` (docs/operations.md, "Serving in production")
    workers: Count = _setting(1, "worker processes under uvicorn's supervisor", "processes", ge=1, option=True)
    http: Annotated[Literal["httptools", "h11"], BeforeValidator(_lower)] = _setting(
        "httptools", "HTTP/1.1 parser (h11: the pure-Python one)", option=True
    )
    head_timeout: Seconds = _setting(
        10.0,
        "time for a request head, from connecting (or the next request's first byte); then the connection closes",
        "seconds",
        gt=0,
        option=True,
    )
    body_timeout: Seconds = _setting(
        10.0, "time between two chunks of a request body; then the connection closes", "seconds", gt=0, option=True
    )
    keep_alive: WholeSeconds = _setting(5, "idle keep-alive time between requests", "seconds", ge=0, option=True)
    limit_concurrency: Count = _setting(
        1000, "connections (or requests in flight) per worker before 503; 0: no cap", "connections", option=True
    )
    backlog: Count = _setting(2048, "connections the kernel queues before accepting", "connections", ge=1, option=True)
    graceful_shutdown: WholeSeconds = _setting(
        10, "time requests in flight get to finish after SIGTERM", "seconds", ge=0, option=True
    )
    access_log: Annotated[Literal["json", "uvicorn", "off"], BeforeValidator(_lower)] = _setting(
        "json", "one JSON line per request on stderr, uvicorn's text access log, or none", option=True
    )
    gc_threshold: Count = _setting(
        50_000,
        "allocations between young garbage collections, per process (Python's is 700; `accessgov/http/gc_tuning.py`); "
        "0: Python's unchanged",
        "allocations",
        le=2**31 - 1,
        option=True,
    )
    max_header_line_bytes: Count = _setting(
        8 * 1024, "the request target, or one header line (name and value), before 431", "bytes", ge=1, option=True
    )
    max_headers: Count = _setting(100, "header lines of a request before 431", "lines", ge=1, option=True)
    max_head_bytes: Count = _setting(
        32 * 1024, "a request head (target and every header's name and value) before 431", "bytes", ge=1, option=True
    )
    # The API reference page and the validation proxy
    docs_html: Path | None = _setting(
        None, "the Redocly page served at `/docs`", shown="`build/docs/index.html` (`make docs`)"
    )
    proxy_upstream: str | None = _setting(
        None, "`uvicorn --factory accessgov.proxy:app_from_env`: the implementation's base URL", shown="required"
    )
    proxy_errors: bool = _setting(False, "the proxy answers a violating response with a 502 report")
    proxy_token: SecretStr | None = _setting(
        None, "the token `GET /__proxy/violations` needs", shown="loopback clients only"
    )
    proxy_max_body: Count = _setting(
        1024 * 1024, "request body cap of operations whose contract states none, and of unknown paths", "bytes", ge=1
    )

    @model_validator(mode="before")
    @classmethod
    def _blank_is_default(cls, data: Any) -> Any:
        """Blank values mean the default; the others lose surrounding spaces (but secrets)."""
        if not isinstance(data, dict):
            return data
        verbatim = {name for name in cls._VERBATIM} | {env_name(name) for name in cls._VERBATIM}
        return {
            key: (value if key in verbatim else value.strip()) if isinstance(value, str) else value
            for key, value in data.items()
            if not (isinstance(value, str) and not value.strip())
        }

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # `Settings(...)` is what it is given: a test's settings never depend on the environment it runs in.
        return (init_settings,)

    @classmethod
    def load(cls, **changes: Any) -> Settings:
        """The settings the process's environment gives (read by pydantic-settings' own source), `changes` (fields
        by name: a command's options) over them; SettingsError names every variable with a wrong value."""
        fields = {env_name(name): name for name in cls.model_fields}
        # The source also matches a variable spelt as the field (`db_readers`, fields may be given by name): only
        # the declared names count.
        read = {fields[key]: value for key, value in EnvSettingsSource(cls)().items() if key in fields}
        return cls.validated({**read, **changes})

    @classmethod
    def validated(cls, values: Mapping[str, Any]) -> Settings:
        """The settings of `values` (variables, `ACCESSGOV_WORKERS`, or fields, `workers`), each checked;
        SettingsError names every wrong value and every name that is no setting."""
        try:
            return cls.model_validate(dict(values))
        except ValidationError as error:
            raise SettingsError(_problems(error, values)) from None

    def updated(self, **changes: Any) -> Settings:
        """These settings with `changes` (fields by name), checked as `validated` checks them: a misspelt name or a
        wrong value is a SettingsError, never ignored (`model_copy(update=...)` would check neither)."""
        return type(self).validated({**self.model_dump(exclude_unset=True), **changes})

    @property
    def database(self) -> str:
        """The database URL to connect to: `database_url` (a bare `postgres://` one pointed at psycopg 3), else the
        SQLite file `./data/accessgov.db` (its directory created)."""
        return _database_url(self.database_url)

    @property
    def page_token_key(self) -> bytes:
        """The operator's page-token key; empty: the server generates one and keeps it in the database, shared by
        every worker."""
        secret = self.page_token_secret
        return secret.get_secret_value().encode() if secret else b""

    @property
    def listener_base_url(self) -> str:
        """Base URL clients use to reach this server: listener URLs printed by the CLI, a listener's JWT `aud`."""
        return self.public_base_url or self.tenant_base_url

    @property
    def jwt_audience_base_url(self) -> str | None:
        """The base of a listener's JWT `aud`; None when it is taken from the request as received (Host header)."""
        return None if self.jwt_audience_from_request else self.listener_base_url

    def environment(self) -> dict[str, str]:
        """The variables that give these settings' chosen values (those not left to their defaults), as
        `Settings.load` reads them: what `accessgov serve` hands its worker processes."""
        return {env_name(name): _as_variable(getattr(self, name)) for name in sorted(self.model_fields_set)}


def _as_variable(value: object) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, SecretStr):
        return value.get_secret_value()
    if isinstance(value, tuple):
        return ",".join(str(item) for item in value)
    return "" if value is None else str(value)


def env_name(field: str) -> str:
    """The variable a settings field is read from."""
    alias = Settings.model_fields[field].validation_alias
    assert isinstance(alias, str)  # every field's: the alias generator's, or `_setting(env=...)`
    return alias


def setting_field(field: str) -> FieldInfo:
    return Settings.model_fields[field]


def _extra(info: FieldInfo) -> dict[str, Any]:
    return info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}


def setting_unit(field: str) -> str | None:
    unit = _extra(setting_field(field)).get("unit")
    return str(unit) if unit else None


def is_serve_option(info: FieldInfo) -> bool:
    """Whether `accessgov serve` has an option for the setting (`--head-timeout` for `head_timeout`)."""
    return bool(_extra(info).get("option"))


def _problems(error: ValidationError, values: Mapping[str, Any]) -> list[tuple[str, str, object]]:
    by_key = {name: name for name in Settings.model_fields} | {env_name(name): name for name in Settings.model_fields}
    problems = []
    for item in error.errors(include_url=False):
        key = str(item["loc"][0]) if item["loc"] else ""
        field = by_key.get(key, key)
        message = item["msg"].removeprefix("Value error, ")
        if item["type"] == "extra_forbidden":
            message = "no such setting (a misspelt name?)"
        given = values.get(key, item.get("input"))
        problems.append((env_name(field) if field in Settings.model_fields else key, message, given))
    return problems


def check_setting(field: str, text: str) -> Any:
    """`text` read as the field's value (a command-line option's type); ValueError says what it expects."""
    try:
        return getattr(Settings.validated({env_name(field): text}), field)
    except SettingsError as error:
        raise ValueError("; ".join(expected for _, expected, _ in error.problems)) from None


DEFAULTS = Settings()


def shown_default(field: str) -> str:
    """The field's default as the docs and `--help` show it."""
    info = setting_field(field)
    extra = _extra(info)
    if "shown" in extra:
        return str(extra["shown"])
    value = info.default
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float) and value == int(value):
        return str(int(value))
    return str(value)


def normalize_database_url(url: str) -> str:
    """Point bare `postgres://` / `postgresql://` URLs (as hosting platforms hand them out) at psycopg 3."""
    for prefix in _PG_PREFIXES:
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def _database_url(url: str | None) -> str:
    if url:
        return normalize_database_url(url)
    directory = DEFAULT_DATA_DIR.resolve()
    directory.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{directory / SQLITE_FILENAME}"


# The process's own variables, not settings of an operator's: read here too, so that this module is the only one
# that touches the environment.
SUPERVISOR_PID_ENV = "ACCESSGOV_SUPERVISOR_PID"  # set by `serve`'s supervisor for its workers
METRICS_DIRECTORY_ENV = "PROMETHEUS_MULTIPROC_DIR"  # prometheus-client's multiprocess mode


def user_data_directory() -> Path:
    """The per-user data directory (XDG: `$XDG_DATA_HOME/accessgov`, else `~/.local/share/accessgov`)."""
    data_home = (os.environ.get("XDG_DATA_HOME") or "").strip()
    if data_home:
        return (Path(data_home) / "accessgov").absolute()
    return (Path(os.environ.get("HOME") or Path.home()) / ".local" / "share" / "accessgov").absolute()


def supervisor_pid() -> int:
    """The pid of the `serve` supervisor this process is a worker of (0: none)."""
    value = os.environ.get(SUPERVISOR_PID_ENV, "")
    return int(value) if value.isascii() and value.isdigit() else 0


def export_to_workers(settings: Settings, supervisor: int) -> None:
    """Hand `settings` (a command's options over the environment's) and the supervisor's pid to the worker
    processes it spawns, which inherit the environment and `Settings.load()` it."""
    os.environ.update(settings.environment())
    os.environ[SUPERVISOR_PID_ENV] = str(supervisor)


def metrics_directory() -> str | None:
    """prometheus-client's multiprocess directory, when one is set."""
    return os.environ.get(METRICS_DIRECTORY_ENV) or None


def set_metrics_directory(directory: str | None) -> None:
    """Set (or, None, unset) prometheus-client's multiprocess directory, for the workers this process spawns."""
    if directory is None:
        os.environ.pop(METRICS_DIRECTORY_ENV, None)
    else:
        os.environ[METRICS_DIRECTORY_ENV] = directory
