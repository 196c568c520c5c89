"""Retries, timeouts, open enums and typed errors, against scripted loopback servers and the reference server."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable

import httpx
import pytest
from accessgov_client import (
    AccessGov,
    ApiError,
    AsyncAccessGov,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    DeadlineExceededError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    Retry,
    ServerError,
    WebhookSender,
)
from accessgov_client.models import TaskActionsServiceRestartRequest
from accessgov_client.retries import CallRetry

from tests.sdk._fake import Answer, ScriptedServer, Sleeps

pytestmark = pytest.mark.slow

PAGE = {"list": [{"appEntitlement": {"id": "ent-1", "appId": "app-1"}}], "nextPageToken": ""}
ENTITLEMENTS = "/api/v1/apps/app-1/entitlements"
FAST = Retry(total=3, backoff_factor=0.5)


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> Sleeps:
    """Waits between retries are recorded, not slept (sync and async); only the retry library's waits, so the
    server threads' own sleeps stay untouched."""
    recorded = Sleeps()

    def wait(retry: CallRetry, response: httpx.Response | Exception) -> None:
        recorded(retry.next_wait(response))  # Retry-After, else jittered backoff; within the call's deadline

    async def await_wait(retry: CallRetry, response: httpx.Response | Exception) -> None:
        wait(retry, response)

    monkeypatch.setattr(CallRetry, "sleep", wait)
    monkeypatch.setattr(CallRetry, "asleep", await_wait)
    return recorded


def test_a_503_then_200_is_retried_with_jittered_exponential_backoff(sleeps: Sleeps) -> None:
    with ScriptedServer(Answer(503), Answer(503), Answer(200, PAGE)) as fake:
        api = AccessGov(fake.url, token="t", retry=FAST)
        page = api.list_app_entitlements(app_id="app-1")
    assert [item.app_entitlement.id for item in page.list_] == ["ent-1"]
    assert [seen.path.split("?")[0] for seen in fake.seen] == [ENTITLEMENTS] * 3
    # Full jitter: the n-th wait is drawn from [0, 0.5 * 2**n].
    assert len(sleeps.waits) == 2 and 0 <= sleeps.waits[0] <= 1.0 and 0 <= sleeps.waits[1] <= 2.0


def test_429_waits_what_retry_after_says(sleeps: Sleeps) -> None:
    with ScriptedServer(
        Answer(429, {"code": "RATE_LIMITED", "message": "slow down"}, {"Retry-After": "7"}), Answer(200, PAGE)
    ) as fake:
        page = AccessGov(fake.url, token="t").list_app_entitlements(app_id="app-1")
    assert page.next_page_token == ""
    assert sleeps.waits == [7.0] and len(fake.seen) == 2


def test_a_policy_s_total_timeout_still_bounds_the_waits(sleeps: Sleeps) -> None:
    """The call's deadline is added to the policy's own bound on its waits' sum, never put in its place."""
    policy = Retry(total=3, backoff_factor=0.5, total_timeout=2.0)
    with ScriptedServer(
        Answer(429, {"code": "RATE_LIMITED", "message": "slow down"}, {"Retry-After": "7"}), Answer(200, PAGE)
    ) as fake:
        AccessGov(fake.url, token="t", retry=policy).list_app_entitlements(app_id="app-1")
    assert sleeps.waits == [2.0] and len(fake.seen) == 2


def test_exhausted_retries_raise_the_typed_error(sleeps: Sleeps) -> None:
    limited = Answer(429, {"code": "RATE_LIMITED", "message": "slow down"}, {"Retry-After": "1"})
    with ScriptedServer(limited) as fake, pytest.raises(RateLimitError) as raised:
        AccessGov(fake.url, token="t", retry=Retry(total=2)).list_app_entitlements(app_id="app-1")
    assert len(fake.seen) == 3 and raised.value.retry_after == 1.0 and raised.value.code == "RATE_LIMITED"


def test_a_restart_is_not_retried_unless_asked(sleeps: Sleeps) -> None:
    body = TaskActionsServiceRestartRequest(comment="once")
    busy = Answer(503, {"code": "SERVICE_UNAVAILABLE", "message": "busy"})
    with ScriptedServer(busy, busy, Answer(200, {"ticketActionId": "a-1"})) as fake:
        api = AccessGov(fake.url, token="t", retry=FAST)
        with pytest.raises(ServerError) as raised:
            api.restart_task("1001", body=body)
        assert raised.value.status == 503 and len(fake.seen) == 1
        result = api.restart_task("1001", body=body, retry=True)  # explicit opt-in for this call
    assert result.ticket_action_id == "a-1" and len(fake.seen) == 3


def test_retries_can_be_switched_off_per_call_and_per_client(sleeps: Sleeps) -> None:
    with ScriptedServer(Answer(503), Answer(200, PAGE)) as fake:
        with pytest.raises(ServerError):
            AccessGov(fake.url, token="t").list_app_entitlements(app_id="app-1", retry=False)
        assert len(fake.seen) == 1
    with ScriptedServer(Answer(503), Answer(200, PAGE)) as fake:
        with pytest.raises(ServerError):
            AccessGov(fake.url, token="t", retry=None).list_app_entitlements(app_id="app-1")
        assert len(fake.seen) == 1


def test_connection_errors_are_retried(sleeps: Sleeps) -> None:
    with ScriptedServer() as fake:
        closed = fake.url  # a port nobody listens on once the server is gone
    with pytest.raises(httpx.ConnectError):
        AccessGov(closed, token="t", retry=Retry(total=2)).list_app_entitlements(app_id="app-1")
    assert len(sleeps.waits) == 2  # two retries before giving up


def test_a_stalled_server_times_out() -> None:
    with ScriptedServer(Answer(200, PAGE, stall=5)) as fake:
        api = AccessGov(fake.url, token="t", timeout=httpx.Timeout(0.3, connect=1.0), retry=None)
        with pytest.raises(DeadlineExceededError) as raised:
            api.list_app_entitlements(app_id="app-1")
    assert isinstance(raised.value, httpx.TimeoutException) and "within 0.3 s" in str(raised.value)
    assert len(fake.seen) == 1


def test_the_default_timeout_is_finite() -> None:
    api = AccessGov("http://127.0.0.1:9", token="t")
    assert api.http.timeout.connect == 5.0 and api.http.timeout.read == 30.0
    assert api.max_response_bytes == 8 * 1024 * 1024 and api.max_pages == 1000


def test_seconds_are_the_deadline_and_connecting_stays_within_5_s() -> None:
    assert AccessGov("http://127.0.0.1:9", token="t", timeout=120).http.timeout.as_dict() == {
        "connect": 5.0, "read": 120.0, "write": 120.0, "pool": 120.0,
    }  # fmt: skip
    assert AccessGov("http://127.0.0.1:9", token="t", timeout=2).http.timeout.connect == 2.0
    sender = WebhookSender("http://127.0.0.1:9/hook", secret="s" * 43, timeout=3)
    assert isinstance(sender.timeout, httpx.Timeout) and sender.timeout.read == 3.0


@pytest.mark.parametrize(
    "options",
    [{"timeout": 0}, {"timeout": -1}, {"timeout": "30"}, {"max_response_bytes": 0}, {"max_response_bytes": 1.5},
     {"max_pages": 0}, {"max_pages": True}],
    ids=str,
)  # fmt: skip
def test_a_bound_out_of_range_is_refused_when_the_client_is_made(options: dict[str, object]) -> None:
    with pytest.raises(ValueError, match=next(iter(options))):
        AccessGov("http://127.0.0.1:9", token="t", **options)  # type: ignore[arg-type]


def test_only_codings_decoded_in_bounded_steps_are_asked_for() -> None:
    with ScriptedServer(Answer(200, PAGE)) as fake:
        AccessGov(fake.url, token="t", headers={"Accept-Encoding": "br, zstd"}).list_app_entitlements(app_id="app-1")
    assert fake.seen[0].headers["Accept-Encoding"] == "gzip, deflate"


def test_async_retries_a_503(sleeps: Sleeps) -> None:
    async def main() -> list[str]:
        async with AsyncAccessGov(fake.url, token="t", retry=FAST) as api:
            return [item.app_entitlement.id async for item in api.paginate("list_app_entitlements", app_id="app-1")]

    with ScriptedServer(Answer(503), Answer(200, PAGE)) as fake:
        assert asyncio.run(main()) == ["ent-1"]
    assert len(fake.seen) == 2 and len(sleeps.waits) == 1


def test_webhook_retries_keep_the_event_id(sleeps: Sleeps) -> None:
    with ScriptedServer(Answer(503), Answer(502), Answer(200, {"accepted": True})) as fake:
        sender = WebhookSender(fake.url + "/api/v1/webhooks/incoming/wh_1", secret="s" * 43, retry=FAST)
        response = sender.send({"orderId": "A-1001"})
    assert response.status_code == 200 and len(fake.seen) == 3
    event_ids = {seen.headers["Webhook-Event-Id"] for seen in fake.seen}
    signatures = {seen.headers["Webhook-Signature"] for seen in fake.seen}
    assert len(event_ids) == 1 and len(signatures) == 1
    assert uuid.UUID(event_ids.pop()).version == 4
    assert {seen.body for seen in fake.seen} == {b'{"orderId":"A-1001"}'}


def test_a_duplicate_after_a_retry_counts_as_delivered(sleeps: Sleeps) -> None:
    duplicate = Answer(409, {"code": "DUPLICATE_EVENT", "message": "already received"})
    with ScriptedServer(Answer(503), duplicate) as fake:
        response = WebhookSender(fake.url, secret="s" * 43, retry=FAST).send(b"{}")
    assert response.status_code == 409
    with ScriptedServer(duplicate) as fake, pytest.raises(ConflictError):
        WebhookSender(fake.url, secret="s" * 43, retry=FAST).send(b"{}")


def test_an_unknown_enum_value_is_kept_as_a_string() -> None:
    answer = {
        "ticketActionId": "a-1",
        "taskView": {
            "task": {
                "id": "t-1",
                "state": "TASK_STATE_ARCHIVED",
                "actions": ["TASK_ACTION_TYPE_TELEPORT", "TASK_ACTION_TYPE_CLOSE"],
            }
        },
    }
    with ScriptedServer(Answer(200, answer)) as fake:
        result = AccessGov(fake.url, token="t").restart_task("1", body=TaskActionsServiceRestartRequest())
    task = result.task_view.task
    assert task.state == "TASK_STATE_ARCHIVED" and isinstance(task.state, str)
    assert task.actions == ["TASK_ACTION_TYPE_TELEPORT", "TASK_ACTION_TYPE_CLOSE"]


def _restart(task_id: str) -> Callable[[AccessGov], object]:
    return lambda api: api.restart_task(task_id, body=TaskActionsServiceRestartRequest())


@pytest.mark.parametrize(
    ("token", "call", "expected", "status", "code"),
    [
        (
            "demo-admin-token",
            lambda api: api.list_app_entitlements(app_id="app-github", page_token="forged"),
            BadRequestError,
            400,
            "INVALID_PAGE_TOKEN",
        ),
        ("not-a-token", _restart("1001"), AuthenticationError, 401, "UNAUTHENTICATED"),
        ("demo-viewer-token", _restart("1001"), PermissionDeniedError, 403, "PERMISSION_DENIED"),
        ("demo-admin-token", _restart("no-such-task"), NotFoundError, 404, "NOT_FOUND"),
        ("demo-admin-token", _restart("1007"), ConflictError, 409, "TASK_NOT_RESTARTABLE"),  # 1007 is closed
    ],
    ids=["400", "401", "403", "404", "409"],
)
def test_typed_errors_from_the_reference_server(
    server_url: str,
    token: str,
    call: Callable[[AccessGov], object],
    expected: type[ApiError],
    status: int,
    code: str,
) -> None:
    with AccessGov(server_url, token=token) as api, pytest.raises(expected) as raised:
        call(api)
    error = raised.value
    assert type(error) is expected and isinstance(error, ApiError)
    assert error.status == status and error.code == code and error.message
    assert error.error is not None and error.error.code == code
    assert error.headers["content-type"].startswith("application/json")
    if status == 401:
        assert "Bearer" in error.headers["www-authenticate"]
