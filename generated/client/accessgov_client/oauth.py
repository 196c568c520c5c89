"""OAuth2 client credentials (the `oauth` scheme) with authlib: the token is fetched on first use, cached, and
fetched again `leeway` seconds before it expires; the async client does that without blocking the event loop.

Client authentication is HTTP Basic (`client_secret_basic`, RFC 6749 section 2.3.1) unless `auth_method` says
`client_secret_post` (id and secret in the form body).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import httpx
from authlib.integrations.httpx_client import AsyncOAuth2Client, OAuth2Client

from .exceptions import UndecodableResponseError, error_from_response, json_or_none

TOKEN_PATH = "/auth/v1/token"
# RFC 6750's b64token, loosely: visible ASCII, so the token goes into an Authorization header as it came.
_TOKEN_CHARS = re.compile(r"[\x21-\x7e]{1,8192}")


def _raise_for_error(response: httpx.Response) -> httpx.Response:
    """authlib compliance hook: a refused token request raises the SDK's typed error (status, headers, body), and
    so does a redirect (never followed: the client secret stays with the token endpoint); a 2xx answer that is no
    token (not a JSON object, no usable `access_token`, another `token_type` than Bearer, an `expires_in` that is
    not a number) is an `UndecodableResponseError`, before authlib reads it."""
    if response.status_code >= 300 or response.status_code < 200:
        raise error_from_response(response.status_code, response.headers, response.content, operation="get_token")
    problem = _token_problem(json_or_none(response.content))
    if problem:
        message = f"get_token: HTTP {response.status_code}: the token endpoint's answer {problem}"
        raise UndecodableResponseError(message, request=response.request)
    return response


def _token_problem(token: Any) -> str:
    """What makes a token endpoint's parsed answer unusable, `""` when nothing does."""
    if not isinstance(token, dict):
        return "is not a JSON object"
    access = token.get("access_token")
    if not isinstance(access, str) or not access or not _TOKEN_CHARS.fullmatch(access):
        return "has no access_token the SDK can send (a non-empty string of visible ASCII)"
    kind = token.get("token_type", "Bearer")
    if not isinstance(kind, str) or kind.lower() != "bearer":
        return f"issues a {str(kind)[:40]!r} token, not a Bearer token"
    lifetime = token.get("expires_in")
    if lifetime is not None and (
        isinstance(lifetime, bool) or not isinstance(lifetime, int | float) or not math.isfinite(lifetime)
    ):
        return "has an expires_in that is not a number of seconds"
    return ""


@dataclass(frozen=True)
class ClientCredentials:
    """An OAuth2 client's id and secret; give it to `AccessGov(..., credentials=...)`."""

    client_id: str
    client_secret: str
    scope: str | None = None
    auth_method: str = "client_secret_basic"
    leeway: int = 60
    token_path: str = TOKEN_PATH

    def _options(self, base_url: str) -> dict[str, Any]:
        return {
            "client_id": self.client_id,
            "client_secret": self.client_secret,
            "scope": self.scope,
            "token_endpoint_auth_method": self.auth_method,
            "token_endpoint": base_url.rstrip("/") + self.token_path,
            "grant_type": "client_credentials",
            "leeway": self.leeway,
        }

    def sync_client(self, base_url: str, **httpx_kwargs: Any) -> OAuth2Client:
        """An `httpx.Client` (authlib's `OAuth2Client`) for `base_url` that sends a current token on every
        request; `httpx_kwargs` go to `httpx.Client` (`timeout`, `transport`, ...)."""
        client = OAuth2Client(**self._options(base_url), base_url=base_url, **httpx_kwargs)
        client.register_compliance_hook("access_token_response", _raise_for_error)
        return client

    def async_client(self, base_url: str, **httpx_kwargs: Any) -> AsyncOAuth2Client:
        """`sync_client` for asyncio: an `httpx.AsyncClient` whose token requests are awaited."""
        client = AsyncOAuth2Client(**self._options(base_url), base_url=base_url, **httpx_kwargs)
        client.register_compliance_hook("access_token_response", _raise_for_error)
        return client
