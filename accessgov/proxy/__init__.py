"""`accessgov proxy`: a validation proxy that checks an implementation's traffic against the contract."""

from __future__ import annotations

from accessgov.http.engine import load_bundle
from accessgov.proxy.app import ValidationProxy, Violations
from accessgov.proxy.contract import Contract

__all__ = ["Contract", "ValidationProxy", "Violations", "create_proxy"]


def create_proxy(upstream: str, *, errors: bool = False) -> ValidationProxy:
    """A proxy to `upstream` checking against the bundled contract (`generated/openapi.json`)."""
    return ValidationProxy(upstream, Contract(load_bundle()), errors=errors)


def app_from_env() -> ValidationProxy:
    """Factory for `uvicorn --factory accessgov.proxy:app_from_env`: `ACCESSGOV_PROXY_UPSTREAM`, `..._ERRORS=1`."""
    import os

    return create_proxy(os.environ["ACCESSGOV_PROXY_UPSTREAM"], errors=os.environ.get("ACCESSGOV_PROXY_ERRORS") == "1")
