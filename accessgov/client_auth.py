"""OAuth2 client credentials for the generated client `accessgov_client` .

The `oauth` security scheme: POST `grant_type=client_credentials&client_id=..&client_secret=..` (form body) to
`{base_url}/auth/v1/token`, then send `Authorization: Bearer <access_token>` until the token expires. Both schemes
of the API (`bearerAuth`, `oauth`) travel in that one header.

    credentials = ClientCredentials("https://example.accessgov.example", "my-client", "my-secret")
    client = credentials.authenticated_client()
    restart_task.sync("1042", client=client, body=TaskActionsServiceRestartRequest())

The token is cached until shortly before `expires_in` and fetched again on the first request after that; a 401
answer drops it and repeats the request once with a fresh token. The fetch is synchronous (also inside an
`httpx.AsyncClient`, where it blocks the event loop for the duration of the token request).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import httpx

if TYPE_CHECKING:
    from accessgov_client import AuthenticatedClient

TOKEN_PATH = "/auth/v1/token"


class TokenError(Exception):
    """The token endpoint refused the credentials or answered with something that is not a token."""

    def __init__(self, message: str, status_code: int | None = None, error: str | None = None) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.error = error


@dataclass(frozen=True)
class AccessToken:
    """A bearer token and the clock reading after which it is no longer used."""

    value: str
    refresh_at: float


class ClientCredentials:
    """Fetches, caches and refreshes an access token with the OAuth2 client-credentials grant."""

    def __init__(
        self,
        base_url: str,
        client_id: str,
        client_secret: str,
        *,
        refresh_margin: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
        http_client: httpx.Client | None = None,
        timeout: float = 10.0,
    ) -> None:
        """`refresh_margin`: seconds before expiry at which a token is replaced (at most half its lifetime)."""
        self.base_url = base_url.rstrip("/")
        self.token_url = self.base_url + TOKEN_PATH
        self._client_id = client_id
        self._client_secret = client_secret
        self._refresh_margin = refresh_margin
        self._clock = clock
        self._http = http_client or httpx.Client(timeout=timeout)
        self._owns_http = http_client is None
        self._lock = threading.Lock()
        self._token: AccessToken | None = None

    def token(self) -> str:
        """A valid access token: the cached one, or a new one once the cached one is due for refresh."""
        with self._lock:
            if self._token is None or self._clock() >= self._token.refresh_at:
                self._token = self._fetch()
            return self._token.value

    def invalidate(self, token: str | None = None) -> None:
        """Forget the cached token (only if it is still `token`, when given), so the next use fetches a new one."""
        with self._lock:
            if token is None or (self._token is not None and self._token.value == token):
                self._token = None

    def _fetch(self) -> AccessToken:
        requested_at = self._clock()
        form = {"grant_type": "client_credentials", "client_id": self._client_id, "client_secret": self._client_secret}
        response = self._http.post(self.token_url, data=form, headers={"Accept": "application/json"})
        try:
            body: Any = response.json()
        except ValueError:
            body = None
        if response.status_code != 200:
            error = body.get("error") if isinstance(body, dict) else None
            detail = body.get("error_description") if isinstance(body, dict) else None
            message = f"token request failed with {response.status_code}" + (f": {error}" if error else "")
            raise TokenError(message + (f" ({detail})" if detail else ""), response.status_code, error)
        if not isinstance(body, dict):
            raise TokenError("token response is not a JSON object", response.status_code)
        value, token_type, expires_in = body.get("access_token"), body.get("token_type"), body.get("expires_in")
        if not isinstance(value, str) or not value:
            raise TokenError("token response has no access_token", response.status_code)
        if not isinstance(token_type, str) or token_type.lower() != "bearer":
            raise TokenError(f"unsupported token_type {token_type!r}", response.status_code)
        if isinstance(expires_in, bool) or not isinstance(expires_in, int) or expires_in < 1:
            raise TokenError(f"invalid expires_in {expires_in!r}", response.status_code)
        margin = min(self._refresh_margin, expires_in / 2)
        return AccessToken(value, requested_at + expires_in - margin)

    def auth(self) -> ClientCredentialsAuth:
        """An `httpx.Auth` that puts the current token on every request."""
        return ClientCredentialsAuth(self)

    def authenticated_client(self, **kwargs: Any) -> AuthenticatedClient:
        """An `accessgov_client.AuthenticatedClient` for `base_url` whose requests always carry a current token.

        Keyword arguments go to `AuthenticatedClient` (`timeout`, `headers`, `httpx_args`, ...).
        """
        from accessgov_client import AuthenticatedClient

        httpx_args = {**kwargs.pop("httpx_args", {}), "auth": self.auth()}
        # `token` seeds the client's default header; the auth flow replaces it on each request with the current one.
        return AuthenticatedClient(base_url=self.base_url, token=self.token(), httpx_args=httpx_args, **kwargs)

    def close(self) -> None:
        """Close the HTTP client used for token requests, if this object created it."""
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> ClientCredentials:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class ClientCredentialsAuth(httpx.Auth):
    """Sets `Authorization: Bearer <token>` from `ClientCredentials`; on 401 retries once with a new token."""

    requires_request_body = True  # read the body before sending, so the request can be repeated after a 401

    def __init__(self, credentials: ClientCredentials) -> None:
        self.credentials = credentials

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        token = self.credentials.token()
        request.headers["Authorization"] = f"Bearer {token}"
        response = yield request
        if response.status_code == 401:
            self.credentials.invalidate(token)
            request.headers["Authorization"] = f"Bearer {self.credentials.token()}"
            yield request
