"""`accessgov proxy`: a validation proxy that checks an implementation's traffic against the contract."""

from __future__ import annotations

from accessgov.config import DEFAULTS, Settings
from accessgov.http.engine import load_bundle
from accessgov.proxy.app import ValidationProxy, Violations
from accessgov.proxy.contract import Contract

__all__ = ["Contract", "ValidationProxy", "Violations", "create_proxy"]


def create_proxy(
    upstream: str,
    *,
    errors: bool = False,
    report_token: str | None = None,
    max_body: int | None = None,
    settings: Settings = DEFAULTS,
) -> ValidationProxy:
    """A proxy to `upstream` checking against the bundle (`generated/openapi.json`, found by `accessgov.documents`);
    the report's token and the body cap default to the settings' (`ACCESSGOV_PROXY_TOKEN`,
    `ACCESSGOV_PROXY_MAX_BODY`)."""
    if report_token is None:
        report_token = settings.proxy_token.get_secret_value() if settings.proxy_token else ""
    cap = max_body if max_body is not None else settings.proxy_max_body
    return ValidationProxy(
        upstream, Contract(load_bundle()), errors=errors, report_token=report_token or None, max_body=cap
    )


def app_from_env() -> ValidationProxy:
    """Factory for `uvicorn --factory accessgov.proxy:app_from_env`: `ACCESSGOV_PROXY_UPSTREAM`, `..._ERRORS=1`."""
    settings = Settings.load()
    if not settings.proxy_upstream:
        raise ValueError("ACCESSGOV_PROXY_UPSTREAM is not set: the base URL of the implementation to check")
    return create_proxy(settings.proxy_upstream, errors=settings.proxy_errors, settings=settings)
