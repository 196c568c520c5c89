"""OAuth2 client credentials for the generated client (accessgov/client_auth.py) against a fake token endpoint."""

from __future__ import annotations

import importlib
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import ModuleType
from typing import Any
from urllib.parse import parse_qs

import pytest

from accessgov.client_auth import ClientCredentials, TokenError
from tests.generated._contract import CLIENT_DIR

RESTART_PATH = "/api/v1/tasks/1042/action/restart"


@dataclass
class FakeServer:
    """A token endpoint issuing `tok-1`, `tok-2`, ... and one API operation recording the bearer tokens it saw."""

    base_url: str = ""
    expires_in: int = 3600
    token_requests: list[dict[str, list[str]]] = field(default_factory=list)
    api_tokens: list[str] = field(default_factory=list)
    revoked: set[str] = field(default_factory=set)
    refuse: bool = False


class Handler(BaseHTTPRequestHandler):
    server: Any

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _answer(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        fake: FakeServer = self.server.fake
        body = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
        if self.path == "/auth/v1/token":
            form = parse_qs(body)
            fake.token_requests.append(form)
            assert self.headers["Content-Type"] == "application/x-www-form-urlencoded"
            if fake.refuse or form.get("client_secret") != ["s3cret"]:
                self._answer(401, {"error": "invalid_client", "error_description": "unknown client or wrong secret"})
                return
            token = f"tok-{len(fake.token_requests)}"
            self._answer(200, {"access_token": token, "token_type": "Bearer", "expires_in": fake.expires_in})
        elif self.path == RESTART_PATH:
            token = self.headers.get("Authorization", "").removeprefix("Bearer ")
            fake.api_tokens.append(token)
            if token in fake.revoked or not token.startswith("tok-"):
                self._answer(401, {"code": "UNAUTHENTICATED", "message": "bad token"})
                return
            self._answer(200, {"ticketActionId": f"act-{len(fake.api_tokens)}"})
        else:
            self._answer(404, {"code": "NOT_FOUND", "message": self.path})


@pytest.fixture
def fake() -> Iterator[FakeServer]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.fake = FakeServer(base_url=f"http://127.0.0.1:{server.server_address[1]}")  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server.fake  # type: ignore[attr-defined]
    finally:
        server.shutdown()
        server.server_close()


class Clock:
    """A settable clock in seconds."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def credentials(fake: FakeServer, clock: Clock) -> Iterator[ClientCredentials]:
    with ClientCredentials(fake.base_url + "/", "my-client", "s3cret", refresh_margin=30, clock=clock) as creds:
        yield creds


@pytest.fixture(scope="module")
def client_package() -> Iterator[ModuleType]:
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(CLIENT_DIR))
        yield importlib.import_module("accessgov_client")


def test_token_request_is_a_client_credentials_form(credentials: ClientCredentials, fake: FakeServer) -> None:
    assert credentials.token() == "tok-1"
    assert fake.token_requests == [
        {"grant_type": ["client_credentials"], "client_id": ["my-client"], "client_secret": ["s3cret"]}
    ]


def test_token_is_reused_until_shortly_before_expiry(
    credentials: ClientCredentials, fake: FakeServer, clock: Clock
) -> None:
    assert credentials.token() == "tok-1"
    clock.now += 3600 - 30 - 1  # one second before the refresh margin starts
    assert credentials.token() == "tok-1"
    assert len(fake.token_requests) == 1
    clock.now += 1
    assert credentials.token() == "tok-2"
    assert credentials.token() == "tok-2"
    assert len(fake.token_requests) == 2


def test_short_lived_tokens_are_kept_for_half_their_lifetime(
    credentials: ClientCredentials, fake: FakeServer, clock: Clock
) -> None:
    fake.expires_in = 10
    assert credentials.token() == "tok-1"
    clock.now += 4.9
    assert credentials.token() == "tok-1"
    clock.now += 0.1
    assert credentials.token() == "tok-2"


def test_refused_credentials_raise(fake: FakeServer, clock: Clock) -> None:
    creds = ClientCredentials(fake.base_url, "my-client", "wrong", clock=clock)
    with creds, pytest.raises(TokenError, match="invalid_client") as error:
        creds.token()
    assert error.value.status_code == 401 and error.value.error == "invalid_client"


def test_generated_client_sends_the_current_token(
    credentials: ClientCredentials, fake: FakeServer, clock: Clock, client_package: ModuleType
) -> None:
    from accessgov_client.api.task import restart_task
    from accessgov_client.models import TaskActionsServiceRestartRequest, TaskActionsServiceRestartResponse

    client = credentials.authenticated_client()
    assert isinstance(client, client_package.AuthenticatedClient)
    with client:
        first = restart_task.sync("1042", client=client, body=TaskActionsServiceRestartRequest(comment="again"))
        assert isinstance(first, TaskActionsServiceRestartResponse) and first.ticket_action_id == "act-1"
        restart_task.sync("1042", client=client, body=TaskActionsServiceRestartRequest())
        clock.now += 3600  # expired: the next request fetches a new token first
        restart_task.sync("1042", client=client, body=TaskActionsServiceRestartRequest())
    assert fake.api_tokens == ["tok-1", "tok-1", "tok-2"]
    assert len(fake.token_requests) == 2


def test_a_401_fetches_a_new_token_and_repeats_the_request_once(
    credentials: ClientCredentials, fake: FakeServer, client_package: ModuleType
) -> None:
    from accessgov_client.api.task import restart_task
    from accessgov_client.models import TaskActionsServiceRestartRequest

    with credentials.authenticated_client() as client:
        restart_task.sync("1042", client=client, body=TaskActionsServiceRestartRequest())
        fake.revoked.add("tok-1")  # revoked server-side before it expired
        response = restart_task.sync_detailed("1042", client=client, body=TaskActionsServiceRestartRequest(comment="c"))
    assert response.status_code == 200
    assert fake.api_tokens == ["tok-1", "tok-1", "tok-2"]
    assert len(fake.token_requests) == 2


def test_a_second_401_is_returned(credentials: ClientCredentials, fake: FakeServer, client_package: ModuleType) -> None:
    from accessgov_client.api.task import restart_task
    from accessgov_client.models import Error, TaskActionsServiceRestartRequest

    with credentials.authenticated_client() as client:
        fake.revoked.update({"tok-1", "tok-2"})
        answer = restart_task.sync("1042", client=client, body=TaskActionsServiceRestartRequest())
    assert isinstance(answer, Error) and answer.code == "UNAUTHENTICATED"
    assert fake.api_tokens == ["tok-1", "tok-2"]
