from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.app_entitlements_service_list_response import AppEntitlementsServiceListResponse
from ...models.error import Error
from ...types import UNSET, Response, Unset


def _get_kwargs(
    app_id: str,
    *,
    page_size: int | Unset = 25,
    page_token: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["page_size"] = page_size

    params["page_token"] = page_token

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/apps/{app_id}/entitlements".format(
            app_id=quote(str(app_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> AppEntitlementsServiceListResponse | Error | None:
    if response.status_code == 200:
        response_200 = AppEntitlementsServiceListResponse.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Error.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Error.from_dict(response.json())

        return response_401

    if response.status_code == 404:
        response_404 = Error.from_dict(response.json())

        return response_404

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
) -> Response[AppEntitlementsServiceListResponse | Error]:
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
    app_id: str,
    *,
    client: AuthenticatedClient,
    page_size: int | Unset = 25,
    page_token: str | Unset = UNSET,
) -> Response[AppEntitlementsServiceListResponse | Error]:
    """List an app's entitlements

     Lists the entitlements of an app, one page at a time. This operation illustrates the pagination
    convention that every list and search operation of the API follows:

    - `page_size` (query string for GET, `pageSize` in the body for POST) accepts 10 to 100; smaller
    values
      are treated as 10, larger ones as 100, and the default is 25.
    - `page_token` (query string for GET, `pageToken` in the body for POST) is omitted or empty on the
    first
      request; later requests pass the previous response's `nextPageToken`.
    - Results come in `list`. `nextPageToken` is non-empty while more results remain and `""` on the
    last page.

    Tokens are opaque, signed and bound to the collection they were issued for: an altered, truncated or
    foreign token is rejected with 400 `INVALID_PAGE_TOKEN`. Walking every page returns each item
    exactly once,
    in a stable order, even while items are being added.

    Args:
        app_id (str):
        page_size (int | Unset):  Default: 25.
        page_token (str | Unset): Pagination convention, request side. Omit or leave empty on the
            first request; on each later request pass the `nextPageToken` of the previous response. A
            token that was altered, truncated, expired, or issued for another collection is rejected
            with 400 `INVALID_PAGE_TOKEN`, as is a made-up one. A token is bound to the collection it
            was issued for, not to the caller: any credential allowed to list that collection may send
            it. It is not single-use: sent again (also after the walk reached the last page) it
            returns the same page, until it expires.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AppEntitlementsServiceListResponse | Error]
    """

    kwargs = _get_kwargs(
        app_id=app_id,
        page_size=page_size,
        page_token=page_token,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    app_id: str,
    *,
    client: AuthenticatedClient,
    page_size: int | Unset = 25,
    page_token: str | Unset = UNSET,
) -> AppEntitlementsServiceListResponse | Error | None:
    """List an app's entitlements

     Lists the entitlements of an app, one page at a time. This operation illustrates the pagination
    convention that every list and search operation of the API follows:

    - `page_size` (query string for GET, `pageSize` in the body for POST) accepts 10 to 100; smaller
    values
      are treated as 10, larger ones as 100, and the default is 25.
    - `page_token` (query string for GET, `pageToken` in the body for POST) is omitted or empty on the
    first
      request; later requests pass the previous response's `nextPageToken`.
    - Results come in `list`. `nextPageToken` is non-empty while more results remain and `""` on the
    last page.

    Tokens are opaque, signed and bound to the collection they were issued for: an altered, truncated or
    foreign token is rejected with 400 `INVALID_PAGE_TOKEN`. Walking every page returns each item
    exactly once,
    in a stable order, even while items are being added.

    Args:
        app_id (str):
        page_size (int | Unset):  Default: 25.
        page_token (str | Unset): Pagination convention, request side. Omit or leave empty on the
            first request; on each later request pass the `nextPageToken` of the previous response. A
            token that was altered, truncated, expired, or issued for another collection is rejected
            with 400 `INVALID_PAGE_TOKEN`, as is a made-up one. A token is bound to the collection it
            was issued for, not to the caller: any credential allowed to list that collection may send
            it. It is not single-use: sent again (also after the walk reached the last page) it
            returns the same page, until it expires.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AppEntitlementsServiceListResponse | Error
    """

    return sync_detailed(
        app_id=app_id,
        client=client,
        page_size=page_size,
        page_token=page_token,
    ).parsed


async def asyncio_detailed(
    app_id: str,
    *,
    client: AuthenticatedClient,
    page_size: int | Unset = 25,
    page_token: str | Unset = UNSET,
) -> Response[AppEntitlementsServiceListResponse | Error]:
    """List an app's entitlements

     Lists the entitlements of an app, one page at a time. This operation illustrates the pagination
    convention that every list and search operation of the API follows:

    - `page_size` (query string for GET, `pageSize` in the body for POST) accepts 10 to 100; smaller
    values
      are treated as 10, larger ones as 100, and the default is 25.
    - `page_token` (query string for GET, `pageToken` in the body for POST) is omitted or empty on the
    first
      request; later requests pass the previous response's `nextPageToken`.
    - Results come in `list`. `nextPageToken` is non-empty while more results remain and `""` on the
    last page.

    Tokens are opaque, signed and bound to the collection they were issued for: an altered, truncated or
    foreign token is rejected with 400 `INVALID_PAGE_TOKEN`. Walking every page returns each item
    exactly once,
    in a stable order, even while items are being added.

    Args:
        app_id (str):
        page_size (int | Unset):  Default: 25.
        page_token (str | Unset): Pagination convention, request side. Omit or leave empty on the
            first request; on each later request pass the `nextPageToken` of the previous response. A
            token that was altered, truncated, expired, or issued for another collection is rejected
            with 400 `INVALID_PAGE_TOKEN`, as is a made-up one. A token is bound to the collection it
            was issued for, not to the caller: any credential allowed to list that collection may send
            it. It is not single-use: sent again (also after the walk reached the last page) it
            returns the same page, until it expires.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AppEntitlementsServiceListResponse | Error]
    """

    kwargs = _get_kwargs(
        app_id=app_id,
        page_size=page_size,
        page_token=page_token,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    app_id: str,
    *,
    client: AuthenticatedClient,
    page_size: int | Unset = 25,
    page_token: str | Unset = UNSET,
) -> AppEntitlementsServiceListResponse | Error | None:
    """List an app's entitlements

     Lists the entitlements of an app, one page at a time. This operation illustrates the pagination
    convention that every list and search operation of the API follows:

    - `page_size` (query string for GET, `pageSize` in the body for POST) accepts 10 to 100; smaller
    values
      are treated as 10, larger ones as 100, and the default is 25.
    - `page_token` (query string for GET, `pageToken` in the body for POST) is omitted or empty on the
    first
      request; later requests pass the previous response's `nextPageToken`.
    - Results come in `list`. `nextPageToken` is non-empty while more results remain and `""` on the
    last page.

    Tokens are opaque, signed and bound to the collection they were issued for: an altered, truncated or
    foreign token is rejected with 400 `INVALID_PAGE_TOKEN`. Walking every page returns each item
    exactly once,
    in a stable order, even while items are being added.

    Args:
        app_id (str):
        page_size (int | Unset):  Default: 25.
        page_token (str | Unset): Pagination convention, request side. Omit or leave empty on the
            first request; on each later request pass the `nextPageToken` of the previous response. A
            token that was altered, truncated, expired, or issued for another collection is rejected
            with 400 `INVALID_PAGE_TOKEN`, as is a made-up one. A token is bound to the collection it
            was issued for, not to the caller: any credential allowed to list that collection may send
            it. It is not single-use: sent again (also after the walk reached the last page) it
            returns the same page, until it expires.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AppEntitlementsServiceListResponse | Error
    """

    return (
        await asyncio_detailed(
            app_id=app_id,
            client=client,
            page_size=page_size,
            page_token=page_token,
        )
    ).parsed
