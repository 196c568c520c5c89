from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error import Error
from ...models.task_actions_service_restart_request import TaskActionsServiceRestartRequest
from ...models.task_actions_service_restart_response import TaskActionsServiceRestartResponse
from ...types import Response


def _get_kwargs(
    task_id: str,
    *,
    body: TaskActionsServiceRestartRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/tasks/{task_id}/action/restart".format(
            task_id=quote(str(task_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Error | TaskActionsServiceRestartResponse | None:
    if response.status_code == 200:
        response_200 = TaskActionsServiceRestartResponse.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Error.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Error.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Error.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = Error.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = Error.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = Error.from_dict(response.json())

        return response_413

    if response.status_code == 429:
        response_429 = Error.from_dict(response.json())

        return response_429

    if response.status_code == 431:
        response_431 = Error.from_dict(response.json())

        return response_431

    if response.status_code == 503:
        response_503 = Error.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Error | TaskActionsServiceRestartResponse]:
    try:
        parsed = _parse_response(client=client, response=response)
    except (ValueError, KeyError, TypeError):
        # An error answer whose body is not the documented JSON (a proxy's HTML 503, a cut body): its status and
        # bytes still say what happened, and the SDK's typed errors are built from them. A 2xx that does not parse
        # is a broken contract and still raises.
        if response.status_code < 400:
            raise
        parsed = None
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=parsed,
    )


def sync_detailed(
    task_id: str,
    *,
    client: AuthenticatedClient,
    body: TaskActionsServiceRestartRequest,
) -> Response[Error | TaskActionsServiceRestartResponse]:
    """Restart a task

     Returns a task to the beginning of its current policy workflow: the policy's step sequence is
    selected
    again, its first step becomes the current step (`POLICY_STEP_STATE_ACTIVE`), the remaining steps
    become
    `next`, and processing starts over. A restart action record is created and its ID returned as
    `ticketActionId`; `comment`, when given, is added to the task's comments.

    `task_id` may be the task's ID or its `numericId`. `policyStepId` is deprecated and has no effect.

    Use `expandMask.paths` to receive related objects in `expanded`; each `*Path` field of the returned
    `taskView` is then a JSONPath expression into the response body (for example `$.expanded[0]`).

    A closed or deleted task cannot be restarted (409 `TASK_NOT_RESTARTABLE`); a caller whose `actions`
    on the
    task do not include `TASK_ACTION_TYPE_RESTART` gets 403.

    Args:
        task_id (str):
        body (TaskActionsServiceRestartRequest): Restart a task's current policy workflow from its
            first step. The body is a JSON object (an empty one is valid); members this version does
            not define are ignored, so a newer client's request is still accepted.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | TaskActionsServiceRestartResponse]
    """

    kwargs = _get_kwargs(
        task_id=task_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    task_id: str,
    *,
    client: AuthenticatedClient,
    body: TaskActionsServiceRestartRequest,
) -> Error | TaskActionsServiceRestartResponse | None:
    """Restart a task

     Returns a task to the beginning of its current policy workflow: the policy's step sequence is
    selected
    again, its first step becomes the current step (`POLICY_STEP_STATE_ACTIVE`), the remaining steps
    become
    `next`, and processing starts over. A restart action record is created and its ID returned as
    `ticketActionId`; `comment`, when given, is added to the task's comments.

    `task_id` may be the task's ID or its `numericId`. `policyStepId` is deprecated and has no effect.

    Use `expandMask.paths` to receive related objects in `expanded`; each `*Path` field of the returned
    `taskView` is then a JSONPath expression into the response body (for example `$.expanded[0]`).

    A closed or deleted task cannot be restarted (409 `TASK_NOT_RESTARTABLE`); a caller whose `actions`
    on the
    task do not include `TASK_ACTION_TYPE_RESTART` gets 403.

    Args:
        task_id (str):
        body (TaskActionsServiceRestartRequest): Restart a task's current policy workflow from its
            first step. The body is a JSON object (an empty one is valid); members this version does
            not define are ignored, so a newer client's request is still accepted.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | TaskActionsServiceRestartResponse
    """

    return sync_detailed(
        task_id=task_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    task_id: str,
    *,
    client: AuthenticatedClient,
    body: TaskActionsServiceRestartRequest,
) -> Response[Error | TaskActionsServiceRestartResponse]:
    """Restart a task

     Returns a task to the beginning of its current policy workflow: the policy's step sequence is
    selected
    again, its first step becomes the current step (`POLICY_STEP_STATE_ACTIVE`), the remaining steps
    become
    `next`, and processing starts over. A restart action record is created and its ID returned as
    `ticketActionId`; `comment`, when given, is added to the task's comments.

    `task_id` may be the task's ID or its `numericId`. `policyStepId` is deprecated and has no effect.

    Use `expandMask.paths` to receive related objects in `expanded`; each `*Path` field of the returned
    `taskView` is then a JSONPath expression into the response body (for example `$.expanded[0]`).

    A closed or deleted task cannot be restarted (409 `TASK_NOT_RESTARTABLE`); a caller whose `actions`
    on the
    task do not include `TASK_ACTION_TYPE_RESTART` gets 403.

    Args:
        task_id (str):
        body (TaskActionsServiceRestartRequest): Restart a task's current policy workflow from its
            first step. The body is a JSON object (an empty one is valid); members this version does
            not define are ignored, so a newer client's request is still accepted.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | TaskActionsServiceRestartResponse]
    """

    kwargs = _get_kwargs(
        task_id=task_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    task_id: str,
    *,
    client: AuthenticatedClient,
    body: TaskActionsServiceRestartRequest,
) -> Error | TaskActionsServiceRestartResponse | None:
    """Restart a task

     Returns a task to the beginning of its current policy workflow: the policy's step sequence is
    selected
    again, its first step becomes the current step (`POLICY_STEP_STATE_ACTIVE`), the remaining steps
    become
    `next`, and processing starts over. A restart action record is created and its ID returned as
    `ticketActionId`; `comment`, when given, is added to the task's comments.

    `task_id` may be the task's ID or its `numericId`. `policyStepId` is deprecated and has no effect.

    Use `expandMask.paths` to receive related objects in `expanded`; each `*Path` field of the returned
    `taskView` is then a JSONPath expression into the response body (for example `$.expanded[0]`).

    A closed or deleted task cannot be restarted (409 `TASK_NOT_RESTARTABLE`); a caller whose `actions`
    on the
    task do not include `TASK_ACTION_TYPE_RESTART` gets 403.

    Args:
        task_id (str):
        body (TaskActionsServiceRestartRequest): Restart a task's current policy workflow from its
            first step. The body is a JSON object (an empty one is valid); members this version does
            not define are ignored, so a newer client's request is still accepted.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | TaskActionsServiceRestartResponse
    """

    return (
        await asyncio_detailed(
            task_id=task_id,
            client=client,
            body=body,
        )
    ).parsed
