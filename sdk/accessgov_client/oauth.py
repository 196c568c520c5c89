"""OAuth2 client credentials (the `oauth` scheme) with authlib: the token is fetched on first use, cached, and
fetched again `leeway` seconds before it expires; the async client does that without blocking the event loop.

Client authentication is HTTP Basic (`client_secret_basic`, RFC 6749 section 2.3.1) unless `auth_method` says
`client_secret_post` (id and secret in the form body).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx
from authlib.integrations.httpx_client import AsyncOAuth2Client, OAuth2Client

from .exceptions import error_from_response, json_or_none

TOKEN_PATH = "/auth/v1/token"


def _raise_for_error(response: httpx.Response) -> httpx.Response:
    """authlib compliance hook: a refused token request raises the SDK's typed error (status, headers, body), and
    so does an answer that is no token: a redirect (never followed: the client secret stays with the token
    endpoint) or a body that is not a JSON object."""
    if response.status_code >= 300 or not isinstance(json_or_none(response.content), dict):
        raise error_from_response(response.status_code, response.headers, response.content, operation="get_token")
    return response


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
