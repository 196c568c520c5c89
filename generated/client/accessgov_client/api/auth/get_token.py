from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error import Error
from ...models.o_auth_error import OAuthError
from ...models.o_auth_token_request import OAuthTokenRequest
from ...models.o_auth_token_response import OAuthTokenResponse
from ...types import Response


def _get_kwargs(
    *,
    body: OAuthTokenRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/auth/v1/token",
    }

    _kwargs["data"] = body.to_dict()
    headers["Content-Type"] = "application/x-www-form-urlencoded"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Error | OAuthError | OAuthTokenResponse | None:
    if response.status_code == 200:
        response_200 = OAuthTokenResponse.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = OAuthError.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = OAuthError.from_dict(response.json())

        return response_401

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
) -> Response[Error | OAuthError | OAuthTokenResponse]:
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
    *,
    client: AuthenticatedClient,
    body: OAuthTokenRequest,
) -> Response[Error | OAuthError | OAuthTokenResponse]:
    """Get an OAuth2 access token

     The OAuth2 client-credentials token endpoint (RFC 6749 section 4.4) named by the `oauth` security
    scheme.
    The client authenticates with HTTP Basic (`oauthClientBasic`, RFC 6749 section 2.3.1, what standard
    OAuth
    client libraries send by default) or with `client_id` and `client_secret` in the form body — one
    method
    per request: both at once is 400 `invalid_request` (a body `client_id` naming the Basic client is
    allowed).
    No client authentication, or a wrong secret, is 401 `invalid_client` with `WWW-Authenticate: Basic`.
    Use
    the returned `access_token` as `Authorization: Bearer <access_token>` on tenant API operations until
    it
    expires.
    The body is `application/x-www-form-urlencoded` (RFC 6749 section 3.2; a `charset` parameter is
    accepted):
    any other media type, JSON included, is 400 `invalid_request`.
    Too many wrong secrets from one address is 429 with `Retry-After` instead of 401 (and the `Error`
    body:
    RFC 6749 has no error for it); the right secret is never refused.

    Args:
        body (OAuthTokenRequest): OAuth2 client-credentials grant (RFC 6749 section 4.4), form-
            encoded. The client authenticates either with HTTP Basic (then the body has no
            `client_secret`) or with `client_id` and `client_secret` here.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | OAuthError | OAuthTokenResponse]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: OAuthTokenRequest,
) -> Error | OAuthError | OAuthTokenResponse | None:
    """Get an OAuth2 access token

     The OAuth2 client-credentials token endpoint (RFC 6749 section 4.4) named by the `oauth` security
    scheme.
    The client authenticates with HTTP Basic (`oauthClientBasic`, RFC 6749 section 2.3.1, what standard
    OAuth
    client libraries send by default) or with `client_id` and `client_secret` in the form body — one
    method
    per request: both at once is 400 `invalid_request` (a body `client_id` naming the Basic client is
    allowed).
    No client authentication, or a wrong secret, is 401 `invalid_client` with `WWW-Authenticate: Basic`.
    Use
    the returned `access_token` as `Authorization: Bearer <access_token>` on tenant API operations until
    it
    expires.
    The body is `application/x-www-form-urlencoded` (RFC 6749 section 3.2; a `charset` parameter is
    accepted):
    any other media type, JSON included, is 400 `invalid_request`.
    Too many wrong secrets from one address is 429 with `Retry-After` instead of 401 (and the `Error`
    body:
    RFC 6749 has no error for it); the right secret is never refused.

    Args:
        body (OAuthTokenRequest): OAuth2 client-credentials grant (RFC 6749 section 4.4), form-
            encoded. The client authenticates either with HTTP Basic (then the body has no
            `client_secret`) or with `client_id` and `client_secret` here.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | OAuthError | OAuthTokenResponse
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: OAuthTokenRequest,
) -> Response[Error | OAuthError | OAuthTokenResponse]:
    """Get an OAuth2 access token

     The OAuth2 client-credentials token endpoint (RFC 6749 section 4.4) named by the `oauth` security
    scheme.
    The client authenticates with HTTP Basic (`oauthClientBasic`, RFC 6749 section 2.3.1, what standard
    OAuth
    client libraries send by default) or with `client_id` and `client_secret` in the form body — one
    method
    per request: both at once is 400 `invalid_request` (a body `client_id` naming the Basic client is
    allowed).
    No client authentication, or a wrong secret, is 401 `invalid_client` with `WWW-Authenticate: Basic`.
    Use
    the returned `access_token` as `Authorization: Bearer <access_token>` on tenant API operations until
    it
    expires.
    The body is `application/x-www-form-urlencoded` (RFC 6749 section 3.2; a `charset` parameter is
    accepted):
    any other media type, JSON included, is 400 `invalid_request`.
    Too many wrong secrets from one address is 429 with `Retry-After` instead of 401 (and the `Error`
    body:
    RFC 6749 has no error for it); the right secret is never refused.

    Args:
        body (OAuthTokenRequest): OAuth2 client-credentials grant (RFC 6749 section 4.4), form-
            encoded. The client authenticates either with HTTP Basic (then the body has no
            `client_secret`) or with `client_id` and `client_secret` here.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | OAuthError | OAuthTokenResponse]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: OAuthTokenRequest,
) -> Error | OAuthError | OAuthTokenResponse | None:
    """Get an OAuth2 access token

     The OAuth2 client-credentials token endpoint (RFC 6749 section 4.4) named by the `oauth` security
    scheme.
    The client authenticates with HTTP Basic (`oauthClientBasic`, RFC 6749 section 2.3.1, what standard
    OAuth
    client libraries send by default) or with `client_id` and `client_secret` in the form body — one
    method
    per request: both at once is 400 `invalid_request` (a body `client_id` naming the Basic client is
    allowed).
    No client authentication, or a wrong secret, is 401 `invalid_client` with `WWW-Authenticate: Basic`.
    Use
    the returned `access_token` as `Authorization: Bearer <access_token>` on tenant API operations until
    it
    expires.
    The body is `application/x-www-form-urlencoded` (RFC 6749 section 3.2; a `charset` parameter is
    accepted):
    any other media type, JSON included, is 400 `invalid_request`.
    Too many wrong secrets from one address is 429 with `Retry-After` instead of 401 (and the `Error`
    body:
    RFC 6749 has no error for it); the right secret is never refused.

    Args:
        body (OAuthTokenRequest): OAuth2 client-credentials grant (RFC 6749 section 4.4), form-
            encoded. The client authenticates either with HTTP Basic (then the body has no
            `client_secret`) or with `client_id` and `client_secret` here.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | OAuthError | OAuthTokenResponse
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
