"""`accessgov proxy`: a validation proxy that checks an implementation's traffic against the contract."""

from __future__ import annotations

import os

from accessgov.http.engine import load_bundle
from accessgov.proxy.app import DEFAULT_MAX_BODY, ValidationProxy, Violations
from accessgov.proxy.contract import Contract

__all__ = ["Contract", "ValidationProxy", "Violations", "create_proxy"]

TOKEN_ENV = "ACCESSGOV_PROXY_TOKEN"  # given: `GET /__proxy/violations` needs it; unset: loopback clients only
MAX_BODY_ENV = "ACCESSGOV_PROXY_MAX_BODY"  # bytes, for operations whose contract states no body limit


def create_proxy(
    upstream: str, *, errors: bool = False, report_token: str | None = None, max_body: int | None = None
) -> ValidationProxy:
    """A proxy to `upstream` checking against the bundled contract (`generated/openapi.json`); the report's token
    and the body cap default to `ACCESSGOV_PROXY_TOKEN` and `ACCESSGOV_PROXY_MAX_BODY`."""
    token = report_token if report_token is not None else os.environ.get(TOKEN_ENV, "").strip()
    cap = max_body if max_body is not None else int(os.environ.get(MAX_BODY_ENV, "").strip() or DEFAULT_MAX_BODY)
    return ValidationProxy(upstream, Contract(load_bundle()), errors=errors, report_token=token or None, max_body=cap)


def app_from_env() -> ValidationProxy:
    """Factory for `uvicorn --factory accessgov.proxy:app_from_env`: `ACCESSGOV_PROXY_UPSTREAM`, `..._ERRORS=1`."""
    return create_proxy(os.environ["ACCESSGOV_PROXY_UPSTREAM"], errors=os.environ.get("ACCESSGOV_PROXY_ERRORS") == "1")
