"""What a handler receives (`RequestContext`) and how an operation's implementation is declared (`HandlerSpec`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from accessgov.webhooks import cidr
from accessgov.webhooks.cidr import Address, Network

DEFAULT_MAX_BODY_BYTES = 64 * 1024


@dataclass
class RequestContext:
    """A request after the contract's checks: typed parameters and the parsed body."""

    request: Request
    operation_id: str
    path_params: dict[str, Any] = field(default_factory=dict)
    query: dict[str, Any] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    raw_body: bytes = b""
    body: Any = None
    principal: Any = None
    # Built on first use (not functools.cached_property: on Python 3.11 it takes a lock on every first access).
    _header_map: dict[str, str] | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def _headers(self) -> dict[str, str]:
        headers = self._header_map
        if headers is None:
            # Starlette's Headers scans the raw list on every lookup; the engine and handlers look up several.
            # Reversed, so the first of repeated lines wins, as with Headers.get.
            headers = self._header_map = {
                name.decode("latin-1"): value.decode("latin-1")
                for name, value in reversed(self.request.scope["headers"])
            }
        return headers

    def header(self, name: str) -> str | None:
        """The first value of header `name` (lowercase), or None."""
        return self._headers.get(name)

    @property
    def peer(self) -> str | None:
        client = self.request.scope.get("client")  # what Request.client reads, without building its Address
        return client[0] if client is not None else None

    def client_address(self, trusted_proxies: Sequence[Network]) -> Address | None:
        """The client's address: the TCP peer, or the forwarded one when the peer is a trusted proxy. Proxies may
        append their hop as a separate header line, so every X-Forwarded-For line is read, in order."""
        forwarded = self._forwarded_for() if trusted_proxies else None  # read only behind a trusted proxy
        return cidr.client_address(self.peer, forwarded, trusted_proxies)

    def _forwarded_for(self) -> str | None:
        """Every X-Forwarded-For line joined with ",", in order (no Starlette Headers object: it is built per call)."""
        first = self._headers.get("x-forwarded-for")
        if first is None:
            return None
        lines = [value.decode("latin-1") for name, value in self.request.scope["headers"] if name == b"x-forwarded-for"]
        return ",".join(lines) or None


HandlerResult = Response | tuple[int, Any]
Handler = Callable[[RequestContext], Awaitable[HandlerResult]]
# Returns the principal, or raises `Unauthenticated`; may be a coroutine function, or return a coroutine when it
# must wait (`BearerAuthenticator`: only for a token not cached). Other awaitables are not awaited.
Authenticator = Callable[[RequestContext], Any]


@dataclass(frozen=True)
class HandlerSpec:
    """A hand-written implementation of one operation: a coroutine function of the `RequestContext`.

    `parse_body=False` leaves content type and body to the handler (for example an RFC 6749 form body).
    Handlers must not block the event loop: database work goes through `accessgov.storage.database`.
    """

    func: Handler
    parse_body: bool = True
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
