"""`GET /openapi.json` and `GET /docs`: the server serves the public variant of its contract.

`/openapi.json` is the public variant (`generated/variants/public.json`, found by `accessgov.documents`). `/docs` is
the Redocly page `make docs` renders (`build/docs/index.html`, or the file `ACCESSGOV_DOCS_HTML` names) when it
exists when asked, else a plain page listing the public operations and linking the JSON.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from starlette.responses import Response

from accessgov.documents import PUBLIC_VARIANT, document
from accessgov.http.context import RequestContext
from accessgov.http.negotiation import require_acceptable

BUILT_DOCS = Path(__file__).resolve().parents[2] / "build" / "docs" / "index.html"


def public_document() -> bytes:
    return document(PUBLIC_VARIANT).read_bytes()


def fallback_page(doc: dict[str, Any]) -> str:
    """A self-contained HTML index of the document's operations (no scripts, no network)."""
    info = doc.get("info", {})
    rows = []
    for path, item in doc.get("paths", {}).items():
        for method, op in item.items():
            if isinstance(op, dict) and "operationId" in op:
                rows.append(
                    f"<tr><td><code>{html.escape(method.upper())}</code></td><td><code>{html.escape(path)}</code>"
                    f"</td><td>{html.escape(op.get('summary', ''))}</td></tr>"
                )
    title = html.escape(f"{info.get('title', 'API')} {info.get('version', '')}".strip())
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{title}</title></head><body>'
        f"<h1>{title}</h1><p>{html.escape(info.get('summary', ''))}</p>"
        '<p>The machine-readable contract: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1). Run '
        "<code>make docs</code> for the rendered reference.</p>"
        f"<table><tr><th>method</th><th>path</th><th>summary</th></tr>{''.join(rows)}</table></body></html>"
    )


class ContractDocs:
    """The two handlers. `/docs` is read when asked: a page `make docs` builds while the server runs is served from
    the next request on (kept while the file's size and modification time stay), and the plain page until then."""

    def __init__(self, docs_html: Path | None = None) -> None:
        self.document = public_document()
        self.path = docs_html or BUILT_DOCS
        self.fallback = fallback_page(json.loads(self.document)).encode()
        self.built: tuple[tuple[int, int], bytes] | None = None  # ((mtime_ns, size), bytes) of the file last read

    def page(self) -> bytes:
        try:
            stat = self.path.stat()
        except OSError:  # not built (or removed): the plain page
            return self.fallback
        version = (stat.st_mtime_ns, stat.st_size)
        if self.built is None or self.built[0] != version:
            try:
                self.built = (version, self.path.read_bytes())
            except OSError:
                return self.fallback
        return self.built[1]

    async def openapi(self, ctx: RequestContext) -> Response:
        require_acceptable(ctx, "application/json")
        return Response(self.document, media_type="application/json")

    async def docs(self, ctx: RequestContext) -> Response:
        require_acceptable(ctx, "text/html")
        return Response(self.page(), media_type="text/html; charset=utf-8")
