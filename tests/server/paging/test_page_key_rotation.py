"""Rotating the page-token key with a grace period: tokens signed with the old key keep working until the
grace ends, new tokens use the new key, and a running server picks the rotation up by itself."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from sqlalchemy.orm import Session, sessionmaker

from accessgov.app import create_app
from accessgov.config import Settings
from accessgov.demo import tenant as demo
from accessgov.demo.seed import DEMO_ADMIN_TOKEN
from accessgov.storage import page_keys
from accessgov.storage.page_key_set import PageKeys
from tests.support import loopback
from tests.support.clocks import ServerClock
from tests.support.harness import NO_FAILURE_LIMITS, seeded_database, serve

URL = f"/api/v1/apps/{demo.PAGING_APP_ID}/entitlements"
RELOAD = 0.1


@pytest.fixture
def clock() -> ServerClock:
    """The servers' wall clock: real time until a test moves it past a grace instead of sleeping it out."""
    return ServerClock()


@pytest.fixture
def running(tmp_path: Path, clock: ServerClock) -> Iterator[tuple[httpx.Client, sessionmaker[Session]]]:
    with seeded_database(tmp_path) as (url, sessions):
        app = create_app(
            Settings.load(database_url=url, **NO_FAILURE_LIMITS), page_keys_reload_seconds=RELOAD, clock=clock
        )
        with serve(app) as base_url, loopback.client(base_url=base_url) as client:
            client.headers["Authorization"] = f"Bearer {DEMO_ADMIN_TOKEN}"
            yield client, sessions


def next_token(client: httpx.Client, token: str | None = None) -> httpx.Response:
    return client.get(URL, params={"page_size": 10, **({"page_token": token} if token else {})})


def rotate(sessions: sessionmaker[Session], grace: timedelta) -> None:
    with sessions.begin() as session:
        page_keys.rotate(session, datetime.now(UTC), grace)
    time.sleep(RELOAD * 5)  # the server reloads the keys every RELOAD seconds


def test_old_tokens_stay_valid_through_the_grace(
    running: tuple[httpx.Client, sessionmaker[Session]], clock: ServerClock
) -> None:
    client, sessions = running
    old_token = next_token(client).json()["nextPageToken"]
    rotate(sessions, timedelta(seconds=30))
    resumed = next_token(client, old_token)
    assert resumed.status_code == 200, resumed.text  # signed with the rotated-out key, in its grace
    new_token = resumed.json()["nextPageToken"]
    clock.frozen = time.time() + 31  # the grace is over
    rejected = next_token(client, old_token)
    assert rejected.status_code == 400 and rejected.json()["code"] == "INVALID_PAGE_TOKEN"
    assert next_token(client, new_token).status_code == 200  # the current key's tokens are unaffected


def test_rotation_without_grace_invalidates_at_once(running: tuple[httpx.Client, sessionmaker[Session]]) -> None:
    client, sessions = running
    old_token = next_token(client).json()["nextPageToken"]
    rotate(sessions, timedelta(0))
    rejected = next_token(client, old_token)
    assert rejected.status_code == 400 and rejected.json()["code"] == "INVALID_PAGE_TOKEN"
    assert next_token(client, next_token(client).json()["nextPageToken"]).status_code == 200


def test_expired_previous_keys_are_purged(tmp_path: Path) -> None:
    with seeded_database(tmp_path) as (_url, sessions):
        now = datetime.now(UTC)
        with sessions.begin() as session:
            page_keys.load_or_create(session)
            keys = page_keys.rotate(session, now, timedelta(hours=1))
            assert [expires for _key, expires in keys.previous] == [now + timedelta(hours=1)]
            assert page_keys.purge_expired(session, now + timedelta(minutes=59)) == 0
            assert page_keys.purge_expired(session, now + timedelta(hours=1)) == 1
            assert page_keys.load(session) == PageKeys(keys.current)


@contextlib.contextmanager
def two_workers(
    data_dir: Path, clock: ServerClock | None = None
) -> Iterator[tuple[httpx.Client, httpx.Client, sessionmaker[Session]]]:
    """Two servers on one database: A reloads the page-token keys every RELOAD seconds, B only every hour."""
    with seeded_database(data_dir) as (url, sessions):
        config = Settings.load(database_url=url, **NO_FAILURE_LIMITS)
        fast = create_app(config, page_keys_reload_seconds=RELOAD, clock=clock)
        slow = create_app(config, page_keys_reload_seconds=3600, clock=clock)
        with serve(fast) as fast_url, serve(slow) as slow_url:
            auth = {"Authorization": f"Bearer {DEMO_ADMIN_TOKEN}"}
            with (
                loopback.client(base_url=fast_url, headers=auth) as a,
                loopback.client(base_url=slow_url, headers=auth) as b,
            ):
                yield a, b, sessions


@pytest.mark.slow
def test_a_worker_that_has_not_reloaded_yet_accepts_tokens_of_the_new_key(tmp_path: Path) -> None:
    """Two workers on one database: A reloads quickly and signs with the new key at once; B would reload only in
    an hour, so a token of the key it does not know makes it re-read the keys (at most once a second)."""
    with two_workers(tmp_path) as (a, b, sessions):
        rotate(sessions, timedelta(hours=24))
        token = next_token(a).json()["nextPageToken"]  # signed with the new key
        resumed = next_token(b, token)
        assert resumed.status_code == 200, resumed.text
        assert next_token(a, resumed.json()["nextPageToken"]).status_code == 200  # B signs with it too now
        forged = next_token(b, token[:-2] + ("AA" if not token.endswith("AA") else "BB"))
        assert forged.status_code == 400 and forged.json()["code"] == "INVALID_PAGE_TOKEN"


@pytest.mark.slow
def test_a_grace_ends_on_time_on_a_server_that_does_not_reload(tmp_path: Path) -> None:
    """Server B learns of the rotation once (a token of the new key) and then would not reload for an hour: the
    rotated-out key still stops verifying when its grace ends, checked per token."""
    clock = ServerClock()
    with two_workers(tmp_path, clock) as (a, b, sessions):
        old_token = next_token(b).json()["nextPageToken"]
        grace = timedelta(seconds=30)
        rotate(sessions, grace)
        ends = time.time() + grace.total_seconds()  # no earlier than the grace's end
        assert next_token(b, next_token(a).json()["nextPageToken"]).status_code == 200  # B reloaded
        assert next_token(b, old_token).status_code == 200  # in its grace
        clock.frozen = ends + 1  # its end has passed, and B has not reloaded since
        rejected = next_token(b, old_token)
        assert rejected.status_code == 400 and rejected.json()["code"] == "INVALID_PAGE_TOKEN"


@pytest.mark.slow
def test_a_rotation_without_grace_reaches_a_default_server_within_seconds(tmp_path: Path) -> None:
    """With the default reload interval, `page-keys rotate --grace 0` ends the old key's tokens within a few
    seconds (it was up to 30), on every server; the deadline here is generous for a loaded machine."""
    with seeded_database(tmp_path) as (url, sessions):
        app = create_app(Settings.load(database_url=url, **NO_FAILURE_LIMITS))
        with serve(app) as base_url, loopback.client(base_url=base_url) as client:
            client.headers["Authorization"] = f"Bearer {DEMO_ADMIN_TOKEN}"
            old_token = next_token(client).json()["nextPageToken"]
            with sessions.begin() as session:
                page_keys.rotate(session, datetime.now(UTC), timedelta(0))
            deadline = time.monotonic() + 15
            while next_token(client, old_token).status_code == 200:
                assert time.monotonic() < deadline, "the rotated-out key still verifies"
                time.sleep(0.2)
            rejected = next_token(client, old_token)
            assert rejected.status_code == 400 and rejected.json()["code"] == "INVALID_PAGE_TOKEN"
