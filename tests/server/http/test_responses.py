"""The engine's JSONResponse builds a plain success's headers itself: they must be the ones Starlette writes."""

from __future__ import annotations

from typing import Any

import pytest
from starlette.responses import JSONResponse as StarletteJSONResponse

from accessgov.http.responses import JSONResponse
from accessgov.jsoncodec import dumps_bytes


class Reference(StarletteJSONResponse):
    def render(self, content: Any) -> bytes:
        return dumps_bytes(content)


@pytest.mark.parametrize("status", [200, 201, 204, 299, 400, 404, 500])
@pytest.mark.parametrize("headers", [None, {"Retry-After": "3"}])
@pytest.mark.parametrize("content", [{"list": [{"id": "é"}], "nextPageToken": ""}, None, []])
def test_same_response_as_starlette(status: int, headers: dict[str, str] | None, content: Any) -> None:
    ours, reference = JSONResponse(content, status, headers), Reference(content, status, headers)
    assert (ours.status_code, ours.body, ours.raw_headers, ours.background) == (
        reference.status_code,
        reference.body,
        reference.raw_headers,
        reference.background,
    )
    assert ours.headers == reference.headers
