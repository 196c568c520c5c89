"""The operations of the contract, made by accessgov-tools generate from the SDK variant. Do not edit."""

from .catalog import Catalog, Operation, Paging

OPERATIONS: tuple[Operation, ...] = (
    Operation(
        name="list_app_entitlements",
        module="accessgov_client.api.app_entitlements.list_app_entitlements",
        method="GET",
        path="/api/v1/apps/{app_id}/entitlements",
        idempotent=True,
        paging=Paging(token_param="page_token", next_token="next_page_token", items="list_"),
    ),
    Operation(
        name="restart_task",
        module="accessgov_client.api.task.restart_task",
        method="POST",
        path="/api/v1/tasks/{task_id}/action/restart",
        idempotent=False,
        paging=None,
    ),
    Operation(
        name="receive_webhook",
        module="accessgov_client.api.webhooks.receive_webhook",
        method="POST",
        path="/api/v1/webhooks/incoming/{listener_id}",
        idempotent=True,
        paging=None,
    ),
    Operation(
        name="get_token",
        module="accessgov_client.api.auth.get_token",
        method="POST",
        path="/auth/v1/token",
        idempotent=True,
        paging=None,
    ),
)
CATALOG = Catalog(OPERATIONS)
