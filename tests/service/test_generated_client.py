"""The generated client against the running reference server: typed calls, OAuth helper, iteration."""

from __future__ import annotations

import sys

from accessgov.demo import tenant as demo
from accessgov.demo.seed import DEMO_ADMIN_TOKEN, DEMO_OAUTH_CLIENT_ID, DEMO_OAUTH_CLIENT_SECRET
from scripts.bundle import REPO
from tests.service.conftest import Server

sys.path.insert(0, str(REPO / "generated" / "client"))

from accessgov_client import AuthenticatedClient
from accessgov_client.api.app_entitlements import list_app_entitlements
from accessgov_client.api.task import restart_task
from accessgov_client.models import Error, TaskActionsServiceRestartRequest, TaskActionsServiceRestartResponse

from accessgov.client_auth import ClientCredentials
from accessgov.paging_client import iterate


def test_iterate_walks_every_entitlement(server: Server) -> None:
    client = AuthenticatedClient(base_url=server.base_url, token=DEMO_ADMIN_TOKEN)
    ids = [
        item.app_entitlement.id
        for item in iterate(list_app_entitlements.sync, app_id=demo.PAGING_APP_ID, client=client, page_size=100)
    ]
    assert len(ids) == demo.PAGING_APP_ENTITLEMENTS == len(set(ids))


def test_restart_through_the_client_with_oauth(server: Server) -> None:
    credentials = ClientCredentials(server.base_url, DEMO_OAUTH_CLIENT_ID, DEMO_OAUTH_CLIENT_SECRET)
    client = credentials.authenticated_client()
    task = demo.build().tasks[31]  # numericId 1032: open, not deleted
    assert task["state"] == "TASK_STATE_OPEN" and task["deletedAt"] is None
    result = restart_task.sync(
        task["numericId"], client=client, body=TaskActionsServiceRestartRequest(comment="via client")
    )
    assert isinstance(result, TaskActionsServiceRestartResponse)
    assert result.task_view.task.id == task["id"]
    assert result.ticket_action_id


def test_client_surfaces_the_error_body(server: Server) -> None:
    client = AuthenticatedClient(base_url=server.base_url, token=DEMO_ADMIN_TOKEN)
    result = restart_task.sync("no-such-task", client=client, body=TaskActionsServiceRestartRequest())
    assert isinstance(result, Error)
    assert result.code == "NOT_FOUND"
