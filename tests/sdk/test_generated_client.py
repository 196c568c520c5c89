"""The SDK (generated/client) against the running reference server: typed calls, OAuth2, paging, errors."""

from __future__ import annotations

import pytest
from accessgov_client import AccessGov, ClientCredentials, NotFoundError
from accessgov_client.api.task import restart_task
from accessgov_client.models import Error, TaskActionsServiceRestartRequest, TaskActionsServiceRestartResponse

from accessgov.demo import tenant as demo
from accessgov.demo.seed import DEMO_ADMIN_TOKEN, DEMO_OAUTH_CLIENT_ID, DEMO_OAUTH_CLIENT_SECRET


def test_paginate_walks_every_entitlement(server_url: str) -> None:
    with AccessGov(server_url, token=DEMO_ADMIN_TOKEN) as api:
        ids = [
            item.app_entitlement.id
            for item in api.paginate("list_app_entitlements", app_id=demo.PAGING_APP_ID, page_size=100)
        ]
    assert len(ids) == demo.PAGING_APP_ENTITLEMENTS == len(set(ids))


def test_restart_with_oauth_client_credentials(server_url: str) -> None:
    task = demo.build().tasks[31]  # numericId 1032: open, not deleted
    assert task["state"] == "TASK_STATE_OPEN" and task["deletedAt"] is None
    credentials = ClientCredentials(DEMO_OAUTH_CLIENT_ID, DEMO_OAUTH_CLIENT_SECRET)
    with AccessGov(server_url, credentials=credentials) as api:
        result = api.restart_task(task["numericId"], body=TaskActionsServiceRestartRequest(comment="via client"))
    assert isinstance(result, TaskActionsServiceRestartResponse)
    assert result.task_view.task.id == task["id"]
    assert result.ticket_action_id


def test_errors_raise_or_come_back_parsed(server_url: str) -> None:
    with AccessGov(server_url, token=DEMO_ADMIN_TOKEN) as api:
        with pytest.raises(NotFoundError) as raised:
            api.restart_task("no-such-task", body=TaskActionsServiceRestartRequest())
        assert raised.value.code == "NOT_FOUND" and raised.value.status == 404
        # The generated function, on the SDK's client, returns the parsed Error body.
        result = restart_task.sync("no-such-task", client=api.client, body=TaskActionsServiceRestartRequest())
    assert isinstance(result, Error) and result.code == "NOT_FOUND"
    with AccessGov(server_url, token=DEMO_ADMIN_TOKEN, raise_errors=False) as api:
        answer = api.restart_task("no-such-task", body=TaskActionsServiceRestartRequest())
    assert isinstance(answer, Error) and answer.code == "NOT_FOUND"
