"""The one place where an `ApiError` becomes a response: the contract's `Error` body with the error's status."""

from __future__ import annotations

import logging

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from accessgov.errors import ApiError, ErrorCode, InternalError, MethodNotAllowed, NotFound
from accessgov.http.responses import JSONResponse

log = logging.getLogger(__name__)


def error_response(error: ApiError) -> JSONResponse:
    return JSONResponse(error.body(), status_code=error.status, headers=error.headers)


async def http_exception(request: Request, exc: Exception) -> Response:
    """Starlette's own 404 (no route) and 405 (wrong method), in the contract's shape."""
    assert isinstance(exc, HTTPException)
    error: ApiError
    if exc.status_code == 405:
        error = MethodNotAllowed(ErrorCode.METHOD_NOT_ALLOWED, str(exc.detail))
    elif exc.status_code == 404:
        error = NotFound(str(exc.detail))
    else:
        log.warning("unexpected HTTPException %s on %s %s", exc.status_code, request.method, request.url.path)
        error = InternalError(ErrorCode.INTERNAL, str(exc.detail))
        error.status = exc.status_code  # type: ignore[misc]  # keep the status Starlette chose
    response = error_response(error)
    if exc.headers:
        response.headers.update(exc.headers)
    return response


async def unexpected(request: Request, exc: Exception) -> Response:
    log.exception("unhandled error in %s %s", request.method, request.url.path)
    return error_response(InternalError(ErrorCode.INTERNAL, "internal error"))
