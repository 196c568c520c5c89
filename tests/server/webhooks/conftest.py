"""Fixtures of the webhook verification/signing tests: real keys, a loopback JWKS server, a fake clock
(the helpers themselves live in `tests/support/`)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import httpx
import pytest

from tests.support import jwks, loopback
from tests.support.clocks import FakeClock
from tests.support.jwks import JwksServer
from tests.support.keys import Keys, make_keys


@pytest.fixture(scope="session")
def keys() -> Keys:
    return make_keys()


@pytest.fixture(scope="session")
def _jwks_server_session() -> Iterator[JwksServer]:
    with JwksServer() as server:
        yield server


@pytest.fixture
def jwks_server(_jwks_server_session: JwksServer) -> JwksServer:
    """The session's JWKS server, emptied and with its request counters reset."""
    _jwks_server_session.reset()
    return _jwks_server_session


@pytest.fixture(scope="session")
def http_client() -> Iterator[httpx.Client]:
    """One client for the session: building an httpx.Client (its TLS context) costs ~0.1 s each time."""
    with loopback.client(follow_redirects=False) as client:
        yield client


@pytest.fixture
def closed_port_url() -> str:
    return jwks.closed_port_url()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def event_id() -> str:
    return str(uuid.uuid4())
