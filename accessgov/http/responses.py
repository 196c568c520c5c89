"""The JSON response of every operation, encoded with `accessgov.jsoncodec`."""

from __future__ import annotations

from typing import Any

from starlette.responses import JSONResponse as StarletteJSONResponse

from accessgov.jsoncodec import dumps_bytes


class JSONResponse(StarletteJSONResponse):
    def render(self, content: Any) -> bytes:
        return dumps_bytes(content)
