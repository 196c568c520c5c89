from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error import Error
from ...models.webhook_accepted_response import WebhookAcceptedResponse
from ...types import Response


def _get_kwargs(
    listener_id: str,
    *,
    body: Any,
    webhook_timestamp: str,
    webhook_event_id: UUID,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    headers["Webhook-Timestamp"] = webhook_timestamp

    headers["Webhook-Event-Id"] = webhook_event_id

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/webhooks/incoming/{listener_id}".format(
            listener_id=quote(str(listener_id), safe=""),
        ),
    }

    _kwargs["json"] = body

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Error | WebhookAcceptedResponse | None:
    if response.status_code == 200:
        response_200 = WebhookAcceptedResponse.from_dict(response.json())

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
) -> Response[Error | WebhookAcceptedResponse]:
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
    listener_id: str,
    *,
    client: AuthenticatedClient,
    body: Any,
    webhook_timestamp: str,
    webhook_event_id: UUID,
) -> Response[Error | WebhookAcceptedResponse]:
    """Deliver an event to an inbound webhook listener

     Triggers the automation linked to the listener. The JSON body (at most 64 KB) becomes the
    automation's
    context data, read in its expressions as `ctx.trigger.<field>` or `ctx.trigger["<field>"]`.

    Processing order: request shape (headers, timestamp window, event ID, body size and JSON), then
    source
    address (403 when the listener restricts CIDR ranges), then authentication (401; 429 with `Retry-
    After`
    instead once this source address has sent too many bad signatures or tokens: a signature or token
    that
    verifies is never refused), then idempotency on
    `Webhook-Event-Id` (409 for a replay within 7 days), then the automation: the event record and a
    queued
    automation run are committed together, the 200 names the run, and the run executes after the
    response.
    The automation runs only when it is published and its trigger is enabled; otherwise the event is
    still
    accepted (200) and the run is recorded as skipped with its reason.

    Every request is authenticated with the listener's method, HMAC or JWT (see the `webhookHmac` and
    `webhookJwt` security schemes).

    HMAC test vector — check your signer against it:

    | input | value |
    |---|---|
    | signing secret | `AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8` |
    | `Webhook-Timestamp` | `1767225600` |
    | `Webhook-Event-Id` | `7f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b` |
    | body (exact bytes) | `{"orderId":"A-1001","amount":42}` |
    | `Webhook-Signature` | `BUi0R7VR8TVjVukL5JugnjgzEc-dNdpd6wjt5h3IhDI` |

    Args:
        listener_id (str):
        webhook_timestamp (str):
        webhook_event_id (UUID):
        body (Any): Any JSON value of at most 64 KB, defined by the sender. It becomes the
            automation's context data, read in expressions as `ctx.trigger.<field>` or
            `ctx.trigger["<field>"]`, so an object is the usual choice; an array, string, number,
            boolean or null at the top is accepted too. Duplicate member names are accepted (the last
            one wins, RFC 8259 leaves it open). Not JSON text, so 400 `INVALID_JSON`: a byte order
            mark, `NaN` or `Infinity`, an empty body, invalid UTF-8, anything after the value, or
            nesting deeper than the server's parser takes.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | WebhookAcceptedResponse]
    """

    kwargs = _get_kwargs(
        listener_id=listener_id,
        body=body,
        webhook_timestamp=webhook_timestamp,
        webhook_event_id=webhook_event_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    listener_id: str,
    *,
    client: AuthenticatedClient,
    body: Any,
    webhook_timestamp: str,
    webhook_event_id: UUID,
) -> Error | WebhookAcceptedResponse | None:
    """Deliver an event to an inbound webhook listener

     Triggers the automation linked to the listener. The JSON body (at most 64 KB) becomes the
    automation's
    context data, read in its expressions as `ctx.trigger.<field>` or `ctx.trigger["<field>"]`.

    Processing order: request shape (headers, timestamp window, event ID, body size and JSON), then
    source
    address (403 when the listener restricts CIDR ranges), then authentication (401; 429 with `Retry-
    After`
    instead once this source address has sent too many bad signatures or tokens: a signature or token
    that
    verifies is never refused), then idempotency on
    `Webhook-Event-Id` (409 for a replay within 7 days), then the automation: the event record and a
    queued
    automation run are committed together, the 200 names the run, and the run executes after the
    response.
    The automation runs only when it is published and its trigger is enabled; otherwise the event is
    still
    accepted (200) and the run is recorded as skipped with its reason.

    Every request is authenticated with the listener's method, HMAC or JWT (see the `webhookHmac` and
    `webhookJwt` security schemes).

    HMAC test vector — check your signer against it:

    | input | value |
    |---|---|
    | signing secret | `AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8` |
    | `Webhook-Timestamp` | `1767225600` |
    | `Webhook-Event-Id` | `7f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b` |
    | body (exact bytes) | `{"orderId":"A-1001","amount":42}` |
    | `Webhook-Signature` | `BUi0R7VR8TVjVukL5JugnjgzEc-dNdpd6wjt5h3IhDI` |

    Args:
        listener_id (str):
        webhook_timestamp (str):
        webhook_event_id (UUID):
        body (Any): Any JSON value of at most 64 KB, defined by the sender. It becomes the
            automation's context data, read in expressions as `ctx.trigger.<field>` or
            `ctx.trigger["<field>"]`, so an object is the usual choice; an array, string, number,
            boolean or null at the top is accepted too. Duplicate member names are accepted (the last
            one wins, RFC 8259 leaves it open). Not JSON text, so 400 `INVALID_JSON`: a byte order
            mark, `NaN` or `Infinity`, an empty body, invalid UTF-8, anything after the value, or
            nesting deeper than the server's parser takes.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | WebhookAcceptedResponse
    """

    return sync_detailed(
        listener_id=listener_id,
        client=client,
        body=body,
        webhook_timestamp=webhook_timestamp,
        webhook_event_id=webhook_event_id,
    ).parsed


async def asyncio_detailed(
    listener_id: str,
    *,
    client: AuthenticatedClient,
    body: Any,
    webhook_timestamp: str,
    webhook_event_id: UUID,
) -> Response[Error | WebhookAcceptedResponse]:
    """Deliver an event to an inbound webhook listener

     Triggers the automation linked to the listener. The JSON body (at most 64 KB) becomes the
    automation's
    context data, read in its expressions as `ctx.trigger.<field>` or `ctx.trigger["<field>"]`.

    Processing order: request shape (headers, timestamp window, event ID, body size and JSON), then
    source
    address (403 when the listener restricts CIDR ranges), then authentication (401; 429 with `Retry-
    After`
    instead once this source address has sent too many bad signatures or tokens: a signature or token
    that
    verifies is never refused), then idempotency on
    `Webhook-Event-Id` (409 for a replay within 7 days), then the automation: the event record and a
    queued
    automation run are committed together, the 200 names the run, and the run executes after the
    response.
    The automation runs only when it is published and its trigger is enabled; otherwise the event is
    still
    accepted (200) and the run is recorded as skipped with its reason.

    Every request is authenticated with the listener's method, HMAC or JWT (see the `webhookHmac` and
    `webhookJwt` security schemes).

    HMAC test vector — check your signer against it:

    | input | value |
    |---|---|
    | signing secret | `AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8` |
    | `Webhook-Timestamp` | `1767225600` |
    | `Webhook-Event-Id` | `7f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b` |
    | body (exact bytes) | `{"orderId":"A-1001","amount":42}` |
    | `Webhook-Signature` | `BUi0R7VR8TVjVukL5JugnjgzEc-dNdpd6wjt5h3IhDI` |

    Args:
        listener_id (str):
        webhook_timestamp (str):
        webhook_event_id (UUID):
        body (Any): Any JSON value of at most 64 KB, defined by the sender. It becomes the
            automation's context data, read in expressions as `ctx.trigger.<field>` or
            `ctx.trigger["<field>"]`, so an object is the usual choice; an array, string, number,
            boolean or null at the top is accepted too. Duplicate member names are accepted (the last
            one wins, RFC 8259 leaves it open). Not JSON text, so 400 `INVALID_JSON`: a byte order
            mark, `NaN` or `Infinity`, an empty body, invalid UTF-8, anything after the value, or
            nesting deeper than the server's parser takes.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | WebhookAcceptedResponse]
    """

    kwargs = _get_kwargs(
        listener_id=listener_id,
        body=body,
        webhook_timestamp=webhook_timestamp,
        webhook_event_id=webhook_event_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    listener_id: str,
    *,
    client: AuthenticatedClient,
    body: Any,
    webhook_timestamp: str,
    webhook_event_id: UUID,
) -> Error | WebhookAcceptedResponse | None:
    """Deliver an event to an inbound webhook listener

     Triggers the automation linked to the listener. The JSON body (at most 64 KB) becomes the
    automation's
    context data, read in its expressions as `ctx.trigger.<field>` or `ctx.trigger["<field>"]`.

    Processing order: request shape (headers, timestamp window, event ID, body size and JSON), then
    source
    address (403 when the listener restricts CIDR ranges), then authentication (401; 429 with `Retry-
    After`
    instead once this source address has sent too many bad signatures or tokens: a signature or token
    that
    verifies is never refused), then idempotency on
    `Webhook-Event-Id` (409 for a replay within 7 days), then the automation: the event record and a
    queued
    automation run are committed together, the 200 names the run, and the run executes after the
    response.
    The automation runs only when it is published and its trigger is enabled; otherwise the event is
    still
    accepted (200) and the run is recorded as skipped with its reason.

    Every request is authenticated with the listener's method, HMAC or JWT (see the `webhookHmac` and
    `webhookJwt` security schemes).

    HMAC test vector — check your signer against it:

    | input | value |
    |---|---|
    | signing secret | `AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8` |
    | `Webhook-Timestamp` | `1767225600` |
    | `Webhook-Event-Id` | `7f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b` |
    | body (exact bytes) | `{"orderId":"A-1001","amount":42}` |
    | `Webhook-Signature` | `BUi0R7VR8TVjVukL5JugnjgzEc-dNdpd6wjt5h3IhDI` |

    Args:
        listener_id (str):
        webhook_timestamp (str):
        webhook_event_id (UUID):
        body (Any): Any JSON value of at most 64 KB, defined by the sender. It becomes the
            automation's context data, read in expressions as `ctx.trigger.<field>` or
            `ctx.trigger["<field>"]`, so an object is the usual choice; an array, string, number,
            boolean or null at the top is accepted too. Duplicate member names are accepted (the last
            one wins, RFC 8259 leaves it open). Not JSON text, so 400 `INVALID_JSON`: a byte order
            mark, `NaN` or `Infinity`, an empty body, invalid UTF-8, anything after the value, or
            nesting deeper than the server's parser takes.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | WebhookAcceptedResponse
    """

    return (
        await asyncio_detailed(
            listener_id=listener_id,
            client=client,
            body=body,
            webhook_timestamp=webhook_timestamp,
            webhook_event_id=webhook_event_id,
        )
    ).parsed
