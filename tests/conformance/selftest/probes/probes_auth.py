"""Probes of the authentication mutants added for issue 37 (tests/conformance/selftest/mutants/errors_auth.py): one
request each on which the mutant answers differently from the unchanged reference server."""

from __future__ import annotations

import base64
from urllib.parse import urlencode

import httpx

from tests.conformance.selftest.probes.probing import LIST, Probe, Target

TOKEN = "/auth/v1/token"
CLIENT = ("demo-client", "demo-client-secret")
GRANT = {"grant_type": "client_credentials"}
FORM = {**GRANT, "client_id": CLIENT[0], "client_secret": CLIENT[1]}


def _token(t: Target, form: dict[str, str] | None = None, basic: tuple[str, str] | None = None) -> httpx.Response:
    return t.client.post(TOKEN, data=FORM if form is None and basic is None else form or GRANT, auth=basic)


def _issued(t: Target) -> str:
    token: str = _token(t).json()["access_token"]
    return token


def _bearer(value: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {value}"}


def _near(t: Target) -> int:
    token = _issued(t)
    return t.page(headers=_bearer(token[:-1] + ("A" if token[-1] != "A" else "B"))).status_code


def _status(form: dict[str, str] | None = None, basic: tuple[str, str] | None = None) -> Probe:
    return lambda t: _token(t, form, basic).status_code


def _json_token(t: Target) -> int:
    return t.client.post(TOKEN, json=FORM).status_code


def _charset_token(t: Target) -> int:
    headers = {"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"}
    return t.client.post(TOKEN, content=urlencode(FORM).encode(), headers=headers).status_code


PROBES: dict[str, Probe] = {
    "auth-token-json-accepted": _json_token,
    "auth-token-charset-refused": _charset_token,
    "auth-near-token-accepted": _near,
    "auth-token-case-insensitive": lambda t: t.page(headers=_bearer(_issued(t).swapcase())).status_code,
    "auth-oauth-token-refused": lambda t: t.page(headers=_bearer(_issued(t))).status_code,
    "auth-scheme-case-sensitive": lambda t: t.page(headers={"Authorization": "bearer demo-admin-token"}).status_code,
    "auth-query-token-accepted": lambda t: t.page(headers={}, access_token="demo-admin-token").status_code,
    "auth-basic-on-api-accepted": lambda t: (
        t.page(headers={"Authorization": "Basic " + base64.b64encode(":".join(CLIENT).encode()).decode()}).status_code
    ),
    "auth-first-of-two-headers": lambda t: (
        t.client.get(
            LIST.format("app-github"),
            headers=[("Authorization", "Bearer demo-admin-token"), ("Authorization", "Bearer not-a-token")],
        ).status_code
    ),
    "auth-token-no-store-missing": lambda t: _token(t).headers.get("cache-control"),
    "auth-token-basic-refused": _status(basic=CLIENT),
    "auth-token-form-refused": _status(FORM),
    "auth-token-unusable": lambda t: t.page(headers=_bearer(_issued(t))).status_code,
    "auth-token-type-not-bearer": lambda t: _token(t).json()["token_type"],
    "auth-token-any-secret": _status({**FORM, "client_secret": "wrong-secret"}),
    "auth-token-secret-prefix": _status({**FORM, "client_secret": CLIENT[1][:-1]}),
    "auth-token-unknown-client-400": _status({**FORM, "client_id": "no-such-client"}),
    "auth-token-basic-failure-400": _status(basic=(CLIENT[0], "wrong-secret")),
    "auth-token-401-without-www-authenticate": lambda t: (
        "www-authenticate" in _token(t, {**FORM, "client_secret": "wrong"}).headers
    ),
    "auth-token-anonymous-issued": _status(GRANT),
    "auth-token-both-methods-accepted": lambda t: t.client.post(TOKEN, data=FORM, auth=CLIENT).status_code,
    "auth-token-password-grant": _status({**FORM, "grant_type": "password"}),
    "auth-token-grant-case-folded": _status({**FORM, "grant_type": "CLIENT_CREDENTIALS"}),
    "auth-token-missing-grant-defaulted": _status({"client_id": CLIENT[0], "client_secret": CLIENT[1]}),
    "auth-token-unsupported-as-invalid-request": lambda t: _token(t, {**FORM, "grant_type": "password"}).json()[
        "error"
    ],
}
