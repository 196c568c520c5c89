"""OAuth2 client credentials in the SDK (authlib underneath) against a loopback token endpoint: HTTP Basic client
authentication, the token cached and replaced ahead of expiry, sync and async, typed errors for refusals."""

from __future__ import annotations

import asyncio
import base64
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs

import pytest
from accessgov_client import AccessGov, AsyncAccessGov, AuthenticationError, ClientCredentials

pytestmark = pytest.mark.slow

PAGE = {"list": [], "nextPageToken": ""}


@dataclass
class TokenServer:
    """Issues `tok-1`, `tok-2`, ... to `my-client`/`s3cret`; its list endpoint records the bearer tokens it saw."""

    url: str = ""
    expires_in: int = 3600
    token_requests: list[dict[str, Any]] = field(default_factory=list)
    api_tokens: list[str] = field(default_factory=list)


@pytest.fixture
def tokens() -> Iterator[TokenServer]:
    state = TokenServer()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def _answer(self, status: int, body: dict[str, Any]) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:
            form = parse_qs(self.rfile.read(int(self.headers.get("Content-Length", 0))).decode())
            basic = self.headers.get("Authorization", "")
            state.token_requests.append({"form": form, "authorization": basic})
            expected = "Basic " + base64.b64encode(b"my-client:s3cret").decode()
            if self.path != "/auth/v1/token" or basic != expected or "client_secret" in form:
                self._answer(401, {"error": "invalid_client", "error_description": "unknown client or wrong secret"})
                return
            token = f"tok-{len(state.token_requests)}"
            self._answer(200, {"access_token": token, "token_type": "Bearer", "expires_in": state.expires_in})

        def do_GET(self) -> None:
            state.api_tokens.append(self.headers.get("Authorization", "").removeprefix("Bearer "))
            self._answer(200, PAGE)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


class Clock:
    """authlib's expiry clock, settable."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        import authlib.oauth2.rfc6749.wrappers as wrappers

        self.offset = 0.0
        real = wrappers.time.time
        monkeypatch.setattr(wrappers.time, "time", lambda: real() + self.offset)


def test_client_authenticates_with_http_basic_and_reuses_the_token(tokens: TokenServer) -> None:
    with AccessGov(tokens.url, credentials=ClientCredentials("my-client", "s3cret")) as api:
        for _ in range(3):
            api.list_app_entitlements(app_id="a")
    assert tokens.api_tokens == ["tok-1"] * 3
    assert len(tokens.token_requests) == 1
    assert tokens.token_requests[0]["form"] == {"grant_type": ["client_credentials"]}


def test_the_token_is_replaced_ahead_of_expiry(tokens: TokenServer, monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock(monkeypatch)
    with AccessGov(tokens.url, credentials=ClientCredentials("my-client", "s3cret", leeway=60)) as api:
        api.list_app_entitlements(app_id="a")
        clock.offset = 3600 - 60 - 5  # 65 s before expiry: still used
        api.list_app_entitlements(app_id="a")
        clock.offset = 3600 - 60 + 5  # 55 s before expiry: inside the leeway, replaced before the request
        api.list_app_entitlements(app_id="a")
        api.list_app_entitlements(app_id="a")
    assert tokens.api_tokens == ["tok-1", "tok-1", "tok-2", "tok-2"]


def test_async_fetches_one_token_for_concurrent_first_calls(tokens: TokenServer) -> None:
    async def main() -> None:
        async with AsyncAccessGov(tokens.url, credentials=ClientCredentials("my-client", "s3cret")) as api:
            await asyncio.gather(*(api.list_app_entitlements(app_id="a") for _ in range(5)))

    asyncio.run(main())
    assert len(tokens.token_requests) == 1 and tokens.api_tokens == ["tok-1"] * 5


def test_form_body_client_authentication_on_request(tokens: TokenServer) -> None:
    credentials = ClientCredentials("my-client", "s3cret", auth_method="client_secret_post")
    with AccessGov(tokens.url, credentials=credentials) as api, pytest.raises(AuthenticationError):
        api.list_app_entitlements(app_id="a")  # this fake only accepts Basic
    sent = tokens.token_requests[0]
    assert sent["authorization"] == ""
    assert sent["form"]["client_id"] == ["my-client"] and sent["form"]["client_secret"] == ["s3cret"]


def test_refused_credentials_raise_a_typed_error(tokens: TokenServer) -> None:
    api = AccessGov(tokens.url, credentials=ClientCredentials("my-client", "wrong"))
    with api, pytest.raises(AuthenticationError) as raised:
        api.list_app_entitlements(app_id="a")
    assert raised.value.status == 401 and raised.value.code == "invalid_client"
    assert raised.value.operation == "get_token" and tokens.api_tokens == []
