"""Server configuration, from the environment (documented in the README)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_TENANT_BASE_URL = "https://example.accessgov.example"


@dataclass(frozen=True)
class ServerConfig:
    """Everything the reference server needs to know about its deployment."""

    database_url: str
    tenant_base_url: str = DEFAULT_TENANT_BASE_URL
    # Base URL clients use to reach this server; the JWT `aud` of a listener is this plus its path.
    # When unset, the URL of the request as received is used.
    public_base_url: str | None = None
    page_token_secret: bytes = b""
    trusted_proxies: tuple[str, ...] = ()
    jwks_ttl_seconds: int = 300
    access_token_ttl_seconds: int = 3600
    extra: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_env(cls, env: Mapping[str, str] = os.environ, data_dir: Path | None = None) -> ServerConfig:
        from accessgov.storage.engine import database_url_from_env

        url = database_url_from_env(env, data_dir=data_dir)
        secret = env.get("ACCESSGOV_PAGE_TOKEN_SECRET", "")
        return cls(
            database_url=url,
            tenant_base_url=env.get("ACCESSGOV_TENANT_BASE_URL", DEFAULT_TENANT_BASE_URL).rstrip("/"),
            public_base_url=(env.get("ACCESSGOV_PUBLIC_BASE_URL") or "").rstrip("/") or None,
            # Empty: the server generates one and keeps it in the database, shared by every worker.
            page_token_secret=secret.encode(),
            trusted_proxies=tuple(p for p in env.get("ACCESSGOV_TRUSTED_PROXIES", "").split(",") if p.strip()),
            jwks_ttl_seconds=int(env.get("ACCESSGOV_JWKS_TTL_SECONDS", "300")),
        )
