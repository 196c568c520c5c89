"""Server configuration, from the environment: `Settings` declares every variable once (type, default, unit, text;
docs/operations.md's table is generated from it), `ServerConfig` is what the server derives from it."""

from __future__ import annotations

import ipaddress
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BeforeValidator, Field, SecretStr, ValidationError, model_validator
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, EnvSettingsSource, NoDecode, PydanticBaseSettingsSource, SettingsConfigDict
from pydantic_settings.sources.utils import parse_env_vars

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


class _MappingSource(EnvSettingsSource):
    """pydantic-settings' environment source over a given mapping (the process's environment, or a test's)."""

    def __init__(self, settings_cls: type[BaseSettings], env: Mapping[str, str]) -> None:
        self._env = env
        super().__init__(settings_cls)

    def _load_env_vars(self) -> Mapping[str, str | None]:
        # Every variable is declared in capitals; pydantic-settings would match `accessgov_db_readers` too, so only
        # the names as declared are read (environment names are case-sensitive everywhere else).
        declared = {name: value for name, value in self._env.items() if name.isupper()}
        return parse_env_vars(declared, self.case_sensitive, self.env_ignore_empty, self.env_parse_none_str)


class Settings(BaseSettings):
    """Every environment variable of the server, `accessgov serve` and the validation proxy, declared once. A blank
    value is the default; `from_env` reads a mapping (the process's environment by default)."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX, case_sensitive=False, env_ignore_empty=True, populate_by_name=True, frozen=True
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
        # `Settings()` is the defaults; `from_env` passes what it read from the environment it is given.
        return (init_settings,)

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ) -> Settings:
        """The settings `env` gives; SettingsError names every variable with a wrong value and what it expects."""
        values = _MappingSource(cls, env)()
        try:
            return cls(**values)
        except ValidationError as error:
            raise SettingsError(_problems(error, values)) from None


def env_name(field: str) -> str:
    """The variable a settings field is read from."""
    alias = Settings.model_fields[field].validation_alias
    return alias if isinstance(alias, str) else ENV_PREFIX + field.upper()


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
        given = values.get(key, item.get("input"))
        problems.append((env_name(field) if field in Settings.model_fields else key, message, given))
    return problems


def check_setting(field: str, text: str) -> Any:
    """`text` read as the field's value (a command-line option's type); ValueError says what it expects."""
    try:
        return getattr(Settings.from_env({env_name(field): text}), field)
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


def database_url_from_env(env: Mapping[str, str] = os.environ, data_dir: Path | None = None) -> str:
    """`DATABASE_URL` if set, else a SQLite file `<data_dir or ./data>/accessgov.db` (directory created)."""
    return _database_url(Settings.from_env({"DATABASE_URL": env.get("DATABASE_URL", "")}).database_url, data_dir)


def _database_url(url: str | None, data_dir: Path | None) -> str:
    if url:
        return normalize_database_url(url)
    directory = (data_dir or DEFAULT_DATA_DIR).resolve()
    directory.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{directory / SQLITE_FILENAME}"


@dataclass(frozen=True)
class ServerConfig:
    """Everything the reference server needs to know about its deployment (its defaults: `Settings`'s)."""

    database_url: str
    tenant_base_url: str = DEFAULTS.tenant_base_url
    # Base URL clients use to reach this server: listener URLs printed by the CLI, and the JWT `aud` of a
    # listener (this plus its path). Unset: the tenant base URL.
    public_base_url: str | None = None
    # Only when the operator asks for it is the JWT `aud` built from the request as received (Host header).
    jwt_audience_from_request: bool = DEFAULTS.jwt_audience_from_request
    page_token_secret: bytes = b""
    trusted_proxies: tuple[str, ...] = ()
    jwks_ttl_seconds: int = DEFAULTS.jwks_ttl_seconds
    jwks_timeout_seconds: float = 3.0
    access_token_ttl_seconds: int = 3600
    # Run queued automations in the server process; off when separate `accessgov worker` processes do it.
    run_automations: bool = DEFAULTS.run_automations
    db_readers: int = DEFAULTS.db_readers
    db_writers: int = DEFAULTS.db_writers  # PostgreSQL only: SQLite has one writer
    # Seconds a thread waiting for the GIL lets its holder run on (Python's default is 0.005); see `create_app`.
    gil_switch_interval: float = DEFAULTS.gil_switch_interval
    # Failed authentications allowed per source address (past it: 429 for its failures), and per credential (past it:
    # a warning, never a refusal), in the `limits` notation; "off" disables (docs/keys-and-limits.md).
    auth_failure_limit: str = DEFAULTS.auth_failure_limit
    auth_failure_limit_per_credential: str = DEFAULTS.auth_failure_limit_per_credential
    # IPv6 sources are counted by network: one host is usually given a whole /64. IPv4: per address.
    auth_failure_ipv6_prefix: int = DEFAULTS.auth_failure_ipv6_prefix
    # Shared limiter counters (several workers and servers enforce one limit); unset: in memory, per process.
    redis_url: str | None = None
    # Milliseconds a failed authentication waits for the shared counters before giving up on them for a while; and
    # what such a failure gets then: "open" (its 401) or "closed" (429).
    limiter_timeout_ms: float = DEFAULTS.limiter_timeout_ms
    limiter_failure_mode: str = DEFAULTS.limiter_failure_mode
    # "json": one JSON line per request on stderr; "uvicorn" (uvicorn's own access log) and "off": none of ours.
    access_log: str = DEFAULTS.access_log

    @property
    def listener_base_url(self) -> str:
        return self.public_base_url or self.tenant_base_url

    @property
    def jwt_audience_base_url(self) -> str | None:
        return None if self.jwt_audience_from_request else self.listener_base_url

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ, data_dir: Path | None = None) -> ServerConfig:
        """The configuration `env` gives (SettingsError for a variable with a wrong value)."""
        return cls.from_settings(Settings.from_env(env), data_dir=data_dir)

    @classmethod
    def from_settings(cls, settings: Settings, data_dir: Path | None = None) -> ServerConfig:
        secret = settings.page_token_secret
        return cls(
            database_url=_database_url(settings.database_url, data_dir),
            tenant_base_url=settings.tenant_base_url,
            public_base_url=settings.public_base_url or None,
            jwt_audience_from_request=settings.jwt_audience_from_request,
            # Empty: the server generates one and keeps it in the database, shared by every worker.
            page_token_secret=secret.get_secret_value().encode() if secret else b"",
            trusted_proxies=settings.trusted_proxies,
            jwks_ttl_seconds=settings.jwks_ttl_seconds,
            run_automations=settings.run_automations,
            db_readers=settings.db_readers,
            db_writers=settings.db_writers,
            gil_switch_interval=settings.gil_switch_interval,
            auth_failure_limit=settings.auth_failure_limit,
            auth_failure_limit_per_credential=settings.auth_failure_limit_per_credential,
            auth_failure_ipv6_prefix=settings.auth_failure_ipv6_prefix,
            redis_url=settings.redis_url,
            limiter_timeout_ms=settings.limiter_timeout_ms,
            limiter_failure_mode=settings.limiter_failure_mode,
            access_log=settings.access_log,
        )
