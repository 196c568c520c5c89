"""`POST /api/v1/tasks/{task_id}/action/restart` against the running reference server."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from jsonpath import findall

from accessgov.demo import tenant as demo
from accessgov.domain.expand import EXPANSIONS
from tests.server.conftest import Server
from tests.support import loopback, stored_tasks
from tests.support.harness import seeded_server
from tests.support.postgres import BACKENDS, fresh_schema

TENANT = demo.build()
BY_NUMERIC = {task["numericId"]: task for task in TENANT.tasks}


@pytest.fixture(scope="module", params=BACKENDS)
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server of this module's own on each backend: restarts run on PostgreSQL's loop connections there
    (`storage.loop_batches`), on SQLite's loop writer here."""
    with contextlib.ExitStack() as stack:
        url = None
        if request.param == "postgres":
            url = stack.enter_context(fresh_schema(request.getfixturevalue("postgres_admin"), prefix="restart"))
        base_url, config, sessions = stack.enter_context(seeded_server(tmp_path_factory.mktemp("restart"), url=url))
        yield Server(base_url, config, sessions)


def task_number(n: int) -> dict:
    return BY_NUMERIC[str(1000 + n)]


def restart(client: httpx.Client, task_id: str, body: dict | None = None) -> httpx.Response:
    return client.post(f"/api/v1/tasks/{task_id}/action/restart", json=body if body is not None else {})


def test_restart_returns_the_task_at_the_start_of_its_workflow(admin: httpx.Client) -> None:
    task = task_number(1)  # open grant task, not an emergency: baseline sequence approval -> provision
    before = task["policy"]["current"]
    response = restart(admin, task["id"], {"comment": "approver group fixed"})
    assert response.status_code == 200, response.text
    view = response.json()["taskView"]
    restarted = view["task"]
    policy = restarted["policy"]
    assert policy["current"]["state"] == "POLICY_STEP_STATE_ACTIVE"
    assert "approval" in policy["current"] and policy["current"]["id"] != before["id"]
    assert [list(step) for step in policy["next"]] == [["provision"]]
    assert policy["history"][-1]["id"] == before["id"]
    assert policy["history"][-1]["state"] == "POLICY_STEP_STATE_DONE"
    assert restarted["processing"] == "TASK_PROCESSING_TYPE_PROCESSING"
    assert restarted["commentCount"] == task["commentCount"] + 1
    assert "TASK_ACTION_TYPE_RESTART" in restarted["actions"]
    assert view["objectPermissions"]["read"] is True and view["objectPermissions"]["edit"] is True


def test_each_restart_creates_its_own_action(admin: httpx.Client) -> None:
    task = task_number(2)
    first = restart(admin, task["id"]).json()["ticketActionId"]
    second = restart(admin, task["id"]).json()["ticketActionId"]
    assert first and second and first != second


def test_each_restart_appends_the_interrupted_step_to_the_history(admin: httpx.Client) -> None:
    """The history's text is extended from the previous restart's (not written again): what comes back and what
    is stored are the whole history, in order, each interrupted step once."""
    task = task_number(16)
    history, current = list(task["policy"]["history"] or []), task["policy"]["current"]
    for _ in range(4):
        policy = restart(admin, task["id"]).json()["taskView"]["task"]["policy"]
        history.append({**current, "state": "POLICY_STEP_STATE_DONE"})
        assert policy["history"] == history
        current = policy["current"]
    # A restart by numeric id reads the stored row: it holds the same history.
    stored = restart(admin, task["numericId"]).json()["taskView"]["task"]["policy"]["history"]
    assert stored == [*history, {**current, "state": "POLICY_STEP_STATE_DONE"}]


def test_numeric_id_may_replace_the_task_id(admin: httpx.Client) -> None:
    task = task_number(3)
    response = restart(admin, task["numericId"])
    assert response.status_code == 200
    assert response.json()["taskView"]["task"]["id"] == task["id"]


def test_comment_is_counted_and_policy_step_id_ignored(admin: httpx.Client) -> None:
    task = task_number(4)
    plain = restart(admin, task["id"], {"policyStepId": "anything"}).json()["taskView"]["task"]
    assert plain["commentCount"] == task["commentCount"]
    commented = restart(admin, task["id"], {"comment": "again"}).json()["taskView"]["task"]
    assert commented["commentCount"] == task["commentCount"] + 1


def test_rules_select_the_step_sequence(admin: httpx.Client) -> None:
    emergency = task_number(25)  # grant with emergencyAccess: the rule selects approval, approval, provision
    assert emergency["emergencyAccess"] is True
    policy = restart(admin, emergency["id"]).json()["taskView"]["task"]["policy"]
    assert "approval" in policy["current"]
    assert [list(step) for step in policy["next"]] == [["approval"], ["provision"]]


def test_baseline_defers_to_another_policy(admin: httpx.Client) -> None:
    task = task_number(5)  # action task under the access-request policy, whose baseline is another policy
    policy = restart(admin, task["id"]).json()["taskView"]["task"]["policy"]
    assert "form" in policy["current"]
    assert [list(step) for step in policy["next"]] == [["approval"], ["action"]]


def test_closed_task_is_409_and_unchanged(admin: httpx.Client, server: Server) -> None:
    task = task_number(7)
    assert task["state"] == "TASK_STATE_CLOSED"
    response = restart(admin, task["id"], {"comment": "should not count"})
    assert response.status_code == 409
    assert response.json()["code"] == "TASK_NOT_RESTARTABLE"
    with server.sessions() as session:
        assert stored_tasks.get_task(session, task["id"]) == task


def test_viewer_may_not_restart(viewer: httpx.Client) -> None:
    response = restart(viewer, task_number(8)["id"])
    assert response.status_code == 403
    assert response.json()["code"] == "PERMISSION_DENIED"


def test_a_caller_without_the_right_gets_403_before_any_409_or_404(viewer: httpx.Client) -> None:
    closed = task_number(7)
    assert closed["state"] == "TASK_STATE_CLOSED"
    for task_id in (closed["id"], "does-not-exist"):
        response = restart(viewer, task_id)
        assert (response.status_code, response.json()["code"]) == (403, "PERMISSION_DENIED")


@pytest.mark.parametrize("task_id", ["does-not-exist", "999999999", "9" * 30])
def test_unknown_task_is_404(admin: httpx.Client, task_id: str) -> None:
    response = restart(admin, task_id)
    assert response.status_code == 404
    assert response.json()["code"] == "NOT_FOUND"


@pytest.mark.parametrize("header", [None, "Bearer not-a-token", "Basic ZGVtbzpkZW1v", "Bearer"])
def test_missing_or_wrong_credentials_are_401(server: Server, header: str | None) -> None:
    headers = {"Authorization": header} if header else {}
    response = loopback.post(
        f"{server.base_url}/api/v1/tasks/{task_number(9)['id']}/action/restart", json={}, headers=headers
    )
    assert response.status_code == 401
    assert response.json()["code"] == "UNAUTHENTICATED"
    assert response.headers["www-authenticate"].startswith("Bearer")


@pytest.mark.parametrize("valid_first", [True, False])
def test_two_authorization_headers_are_401_whichever_is_valid(server: Server, valid_first: bool) -> None:
    """Which of two credentials counts would be a guess: neither does (issue 37's decision, bearerAuth.yaml)."""
    lines = [("Authorization", "Bearer demo-admin-token"), ("Authorization", "Bearer not-a-token")]
    response = loopback.post(
        f"{server.base_url}/api/v1/tasks/{task_number(9)['id']}/action/restart",
        json={},
        headers=lines if valid_first else lines[::-1],
    )
    assert response.status_code == 401
    assert response.json()["code"] == "UNAUTHENTICATED"
    assert response.headers["www-authenticate"].startswith("Bearer")


@pytest.mark.parametrize("scheme", ["bearer", "BEARER"])
def test_the_bearer_scheme_is_case_insensitive(server: Server, scheme: str) -> None:
    response = loopback.post(
        f"{server.base_url}/api/v1/tasks/{task_number(9)['id']}/action/restart",
        json={},
        headers={"Authorization": f"{scheme} demo-admin-token"},
    )
    assert response.status_code == 200


def test_malformed_json_is_400(admin: httpx.Client) -> None:
    response = admin.post(
        f"/api/v1/tasks/{task_number(10)['id']}/action/restart",
        content=b'{"comment": ',
        headers={"Content-Type": "application/json"},
    )
    assert response.status_code == 400
    assert response.json()["code"] == "INVALID_JSON"


def test_wrong_field_type_is_400_with_details(admin: httpx.Client) -> None:
    response = restart(admin, task_number(10)["id"], {"comment": 5})
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "INVALID_ARGUMENT"
    assert body["details"][0]["location"] == "body"


@pytest.mark.parametrize("unknown", ["no_such_path", "USER_ID", " user_id", "", 7])
def test_unknown_expand_path_is_400_invalid_expand_path_and_changes_nothing(
    admin: httpx.Client, server: Server, unknown: object
) -> None:
    """The Error table's code for "an expandMask.paths value is not one of the allowed paths" (the schema's
    `x-error-code`), not the generic INVALID_ARGUMENT; a `paths` that is no array stays INVALID_ARGUMENT."""
    task = task_number(11)
    response = restart(admin, task["id"], {"expandMask": {"paths": ["user_id", unknown]}})
    assert response.status_code == 400
    assert response.json()["code"] == "INVALID_EXPAND_PATH"
    assert restart(admin, task["id"], {"expandMask": {"paths": "user_id"}}).json()["code"] == "INVALID_ARGUMENT"

    with server.sessions() as session:
        assert stored_tasks.get_task(session, task["id"]) == task


def test_expand_everything_and_resolve_every_path(admin: httpx.Client) -> None:
    task = task_number(15)  # certify task: access review, resource, app user, entitlements
    body = restart(admin, task["id"], {"expandMask": {"paths": ["*"]}}).json()
    view = body["taskView"]
    path_fields = {field for expansions in EXPANSIONS.values() for field, _, _ in expansions}
    returned = {field: view[field] for field in path_fields if field in view}
    assert {
        "accessReviewPath",
        "appPath",
        "appUserLastUsagePath",
        "appUserPath",
        "createdByUserPath",
        "entitlementsPath",
        "identityUserPath",
        "principalResourcePath",
        "resourceBindingsPath",
        "stepApproversPath",
        "userPath",
    } <= set(returned)
    for field, expression in returned.items():
        found = findall(expression, body)
        assert found, f"{field}={expression} resolves to nothing"
        assert all(isinstance(obj, dict) and obj["@type"].startswith("type.googleapis.com/") for obj in found)
    (user,) = findall(view["userPath"], body)
    assert user["id"] == task["userId"]


@pytest.mark.parametrize("path", ["user_id", "app_id", "created_by_user_id", "app_user_id", "identity_user_id"])
def test_single_expand_path(admin: httpx.Client, path: str) -> None:
    body = restart(admin, task_number(13)["id"], {"expandMask": {"paths": [path]}}).json()
    fields = [field for field, _, _ in EXPANSIONS[path]]
    for field in fields:
        found = findall(body["taskView"][field], body)
        assert len(found) == 1
    assert len(body["expanded"]) == 1


@pytest.mark.parametrize(
    ("n", "paths", "fields"),
    [
        (17, ["scope_role_resources"], ["roleResourcePath", "scopeResourcePath"]),  # action task with a scope role
        (20, ["insight_ids", "approver_ids"], ["insightsPath", "approversPath"]),
    ],
)
def test_expand_paths_of_other_kinds(admin: httpx.Client, n: int, paths: list[str], fields: list[str]) -> None:
    body = restart(admin, task_number(n)["id"], {"expandMask": {"paths": paths}}).json()
    for field in fields:
        found = findall(body["taskView"][field], body)
        assert found and all("@type" in obj for obj in found), field


@pytest.mark.parametrize("body", [b"[" * 60000, "{}".encode("utf-16"), b'{"comment": NaN}'])
def test_hostile_json_is_400_not_500(admin: httpx.Client, body: bytes) -> None:
    response = admin.post(
        f"/api/v1/tasks/{task_number(10)['id']}/action/restart",
        content=body,
        headers={"Content-Type": "application/json"},
    )
    assert response.status_code == 400
    assert response.json()["code"] == "INVALID_JSON"


def test_concurrent_restarts_commit_together_and_each_gets_its_own_answer(server: Server) -> None:
    """Restarts queued together share a transaction: each is answered for itself (a 404 or 409 among them takes
    nothing with it), and two of the same task both land, one after the other."""
    again, other, closed = task_number(11), task_number(12), task_number(7)
    targets = [again["id"], "no-such-task", again["numericId"], closed["id"], other["id"]] * 4
    with server.client() as client:
        before = len(restart(client, again["id"]).json()["taskView"]["task"]["policy"]["history"])
        with ThreadPoolExecutor(len(targets)) as pool:
            responses = list(pool.map(lambda target: restart(client, target), targets))
    assert [response.status_code for response in responses] == [200, 404, 200, 409, 200] * 4
    action_ids = [response.json()["ticketActionId"] for response in responses if response.status_code == 200]
    assert len(set(action_ids)) == 12
    with server.sessions() as session:
        stored = stored_tasks.get_task(session, again["id"])
        assert stored is not None and len(stored["policy"]["history"]) == before + 8  # every restart appended
        restarts = [
            action for action in stored_tasks.list_task_actions(session, again["id"]) if action.kind == "RESTART"
        ]
        of_again = [action_id for n, action_id in enumerate(action_ids) if n % 3 != 2]  # by id and by number
        assert set(of_again) <= {action.id for action in restarts}
        assert stored_tasks.get_task(session, closed["id"]) == closed
