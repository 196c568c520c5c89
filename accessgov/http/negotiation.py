"""Content negotiation: whether a request's `Accept` header allows the one media type an operation answers in."""

from __future__ import annotations

from accessgov.errors import ErrorCode, NotAcceptable
from accessgov.http.context import RequestContext


def acceptable(accept: str | None, media: str) -> bool:
    """Whether an `Accept` header (RFC 9110 section 12.5.1) allows `media`; no header allows anything."""
    if not accept or not accept.strip():
        return True
    kind = media.split("/")[0]
    for item in accept.split(","):
        media_range, *params = (part.strip().lower() for part in item.split(";"))
        if any(param.replace(" ", "") in ("q=0", "q=0.0", "q=0.00", "q=0.000") for param in params):
            continue
        if media_range in ("*/*", f"{kind}/*", media):
            return True
    return False


def require_acceptable(ctx: RequestContext, media: str) -> None:
    """406 `NOT_ACCEPTABLE` unless the request accepts `media`."""
    if not acceptable(ctx.request.headers.get("accept"), media):
        raise NotAcceptable(ErrorCode.NOT_ACCEPTABLE, f"this resource is {media}", location="header", name="Accept")
