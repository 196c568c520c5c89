"""Server configuration, from the environment (documented in docs/operations.md)."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

DEFAULT_TENANT_BASE_URL = "https://example.accessgov.example"
TRUE = ("1", "true", "yes", "on")
DEFAULT_DATA_DIR = Path("data")
SQLITE_FILENAME = "accessgov.db"
_PG_PREFIXES = ("postgres://", "postgresql://")


def normalize_database_url(url: str) -> str:
    """Point bare `postgres://` / `postgresql://` URLs (as hosting platforms hand them out) at psycopg 3."""
    for prefix in _PG_PREFIXES:
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def database_url_from_env(env: Mapping[str, str] = os.environ, data_dir: Path | None = None) -> str:
    """`DATABASE_URL` if set, else a SQLite file `<data_dir or ./data>/accessgov.db` (directory created)."""
    url = (env.get("DATABASE_URL") or "").strip()
    if url:
        return normalize_database_url(url)
    directory = (data_dir or DEFAULT_DATA_DIR).resolve()
    directory.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{directory / SQLITE_FILENAME}"


def _bounded_int(env: Mapping[str, str], name: str, default: int, low: int, high: int) -> int:
    value = env.get(name, "").strip()
    if not value:
        return default
    if not value.isdigit() or not low <= int(value) <= high:
        raise ValueError(f"{name} must be an integer from {low} to {high}, got {value!r}")
    return int(value)


def _positive_float(env: Mapping[str, str], name: str, default: float) -> float:
    value = env.get(name, "").strip()
    if not value:
        return default
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    if not 0 < number < math.inf:
        raise ValueError(f"{name} must be a positive number, got {value!r}")
    return number


def _choice(env: Mapping[str, str], name: str, choices: tuple[str, ...]) -> str:
    """The variable's value, one of `choices` (the first when unset)."""
    value = env.get(name, "").strip().lower() or choices[0]
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(choices)}, got {value!r}")
    return value


@dataclass(frozen=True)
class ServerConfig:
    """Everything the reference server needs to know about its deployment."""

    database_url: str
    tenant_base_url: str = DEFAULT_TENANT_BASE_URL
    # Base URL clients use to reach this server: listener URLs printed by the CLI, and the JWT `aud` of a
    # listener (this plus its path). Unset: the tenant base URL.
    public_base_url: str | None = None
    # Only when the operator asks for it is the JWT `aud` built from the request as received (Host header).
    jwt_audience_from_request: bool = False
    page_token_secret: bytes = b""
    trusted_proxies: tuple[str, ...] = ()
    jwks_ttl_seconds: int = 300
    jwks_timeout_seconds: float = 3.0
    access_token_ttl_seconds: int = 3600
    # Run queued automations in the server process; off when separate `accessgov worker` processes do it.
    run_automations: bool = True
    db_readers: int = 4
    db_writers: int = 2  # PostgreSQL only: SQLite has one writer
    # Seconds a thread waiting for the GIL lets its holder run on (Python's default is 0.005); see `create_app`.
    gil_switch_interval: float = 0.0002
    # Failed authentications allowed per source address (past it: 429 for its failures), and per credential (past it:
    # a warning, never a refusal), in the `limits` notation; "off" disables (docs/keys-and-limits.md).
    auth_failure_limit: str = "30/minute"
    auth_failure_limit_per_credential: str = "60/minute"
    # IPv6 sources are counted by network: one host is usually given a whole /64. IPv4: per address.
    auth_failure_ipv6_prefix: int = 64
    # Shared limiter counters (several workers and servers enforce one limit); unset: in memory, per process.
    redis_url: str | None = None
    # Milliseconds a failed authentication waits for the shared counters before giving up on them for a while; and
    # what such a failure gets then: "open" (its 401) or "closed" (429).
    limiter_timeout_ms: float = 5.0
    limiter_failure_mode: str = "open"
    # "json": one JSON line per request on stderr; "uvicorn" (uvicorn's own access log) and "off": none of ours.
    access_log: str = "json"

    @property
    def listener_base_url(self) -> str:
        return self.public_base_url or self.tenant_base_url

    @property
    def jwt_audience_base_url(self) -> str | None:
        return None if self.jwt_audience_from_request else self.listener_base_url

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ, data_dir: Path | None = None) -> ServerConfig:
        url = database_url_from_env(env, data_dir=data_dir)
        secret = env.get("ACCESSGOV_PAGE_TOKEN_SECRET", "")
        return cls(
            database_url=url,
            tenant_base_url=env.get("ACCESSGOV_TENANT_BASE_URL", DEFAULT_TENANT_BASE_URL).rstrip("/"),
            public_base_url=(env.get("ACCESSGOV_PUBLIC_BASE_URL") or "").rstrip("/") or None,
            jwt_audience_from_request=env.get("ACCESSGOV_JWT_AUDIENCE_FROM_REQUEST", "").lower() in TRUE,
            # Empty: the server generates one and keeps it in the database, shared by every worker.
            page_token_secret=secret.encode(),
            trusted_proxies=tuple(p for p in env.get("ACCESSGOV_TRUSTED_PROXIES", "").split(",") if p.strip()),
            jwks_ttl_seconds=int(env.get("ACCESSGOV_JWKS_TTL_SECONDS", "300")),
            run_automations=env.get("ACCESSGOV_RUN_AUTOMATIONS", "1").lower() in TRUE,
            db_readers=int(env.get("ACCESSGOV_DB_READERS", "4")),
            db_writers=int(env.get("ACCESSGOV_DB_WRITERS", "2")),
            gil_switch_interval=float(env.get("ACCESSGOV_GIL_SWITCH_INTERVAL", str(cls.gil_switch_interval))),
            auth_failure_limit=env.get("ACCESSGOV_AUTH_FAILURE_LIMIT", "").strip() or cls.auth_failure_limit,
            auth_failure_limit_per_credential=env.get("ACCESSGOV_AUTH_FAILURE_LIMIT_PER_CREDENTIAL", "").strip()
            or cls.auth_failure_limit_per_credential,
            auth_failure_ipv6_prefix=_bounded_int(env, "ACCESSGOV_AUTH_FAILURE_IPV6_PREFIX", 64, 0, 128),
            redis_url=(env.get("ACCESSGOV_REDIS_URL") or "").strip() or None,
            limiter_timeout_ms=_positive_float(env, "ACCESSGOV_LIMITER_TIMEOUT_MS", cls.limiter_timeout_ms),
            limiter_failure_mode=_choice(env, "ACCESSGOV_LIMITER_FAILURE_MODE", ("open", "closed")),
            access_log=(env.get("ACCESSGOV_ACCESS_LOG") or "").strip().lower() or cls.access_log,
        )
