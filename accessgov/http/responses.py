"""The JSON response of every operation, encoded with `accessgov.jsoncodec`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from starlette.background import BackgroundTask
from starlette.responses import JSONResponse as StarletteJSONResponse

from accessgov.jsoncodec import dumps_bytes

_CONTENT_TYPE = (b"content-type", b"application/json")


class JSONResponse(StarletteJSONResponse):
    def __init__(
        self,
        content: Any,
        status_code: int = 200,
        headers: Mapping[str, str] | None = None,
        media_type: str | None = None,
        background: BackgroundTask | None = None,
    ) -> None:
        plain = headers is None and media_type is None and background is None
        if not plain or not 200 <= status_code < 300 or status_code == 204:  # 204: Starlette sends no Content-Length
            super().__init__(content, status_code, headers, media_type, background)
            return
        # Every handler's success: the raw headers Starlette's `init_headers` would write, without its general
        # case (header mapping, media type and charset checks) on every request.
        self.status_code = status_code
        self.background = None
        self.body = body = self.render(content)
        self.raw_headers = [(b"content-length", str(len(body)).encode("latin-1")), _CONTENT_TYPE]

    def render(self, content: Any) -> bytes:
        return dumps_bytes(content)
