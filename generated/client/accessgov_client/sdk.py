"""`AccessGov` and `AsyncAccessGov`: the generated operations behind one object with authentication, bounds on what
the server may send (a deadline per attempt, a size cap, a page bound), retries for idempotent calls, typed errors
and paging.

    api = AccessGov("http://127.0.0.1:8080", token="...")
    for item in api.paginate("list_app_entitlements", app_id="app-github"):
        ...
    api.restart_task("1001", body=TaskActionsServiceRestartRequest(comment="retry"))

Every operation of the catalogue is an attribute (`api.<operation>(...)`, the generated function's arguments
without `client`), so an operation added to the contract is callable without SDK code.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import functools
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from types import ModuleType
from typing import Any, Final

import httpx

from .answers import parsed_result
from .client import AuthenticatedClient
from .exceptions import error_from_response
from .oauth import ClientCredentials
from .operations import CATALOG
from .paging import DEFAULT_MAX_PAGES, aiterate, iterate, page_bound
from .retries import (
    DEFAULT_RETRY,
    Retry,
    RetryChooser,
    async_transport,
    call_retry,
    retry_policy,
    sync_transport,
)
from .transport import DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_TIMEOUT, byte_cap, timeout_of

Operation = str | ModuleType


class _Default(enum.Enum):
    """The type of `_DEFAULT`: a call's retry left to its idempotency (an enum member, so type checkers narrow it)."""

    DEFAULT = enum.auto()


_DEFAULT: Final = _Default.DEFAULT


class _Base:
    """What the sync and async facades share: configuration, the generated client, results and errors."""

    def __init__(
        self,
        base_url: str,
        *,
        token: str | None = None,
        credentials: ClientCredentials | None = None,
        timeout: httpx.Timeout | float | None = DEFAULT_TIMEOUT,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        max_pages: int | None = DEFAULT_MAX_PAGES,
        retry: Retry | bool | None = DEFAULT_RETRY,
        raise_errors: bool = True,
        headers: Mapping[str, str] | None = None,
        verify_ssl: bool | str = True,
    ) -> None:
        if (token is None) == (credentials is None):
            raise ValueError("give exactly one of token= (an API or access token) and credentials= (OAuth2)")
        self.base_url = base_url.rstrip("/")
        self.credentials = credentials
        self.raise_errors = raise_errors
        self.retry = retry_policy(retry)
        self.timeout = timeout_of(timeout)
        self.max_response_bytes = byte_cap(max_response_bytes)
        self.max_pages = page_bound(max_pages)
        self._chooser = RetryChooser(self.retry, CATALOG)
        self._headers = {**(headers or {}), **({"Authorization": f"Bearer {token}"} if token else {})}
        self._verify = verify_ssl
        # The generated client only carries the base URL here: the httpx client below does the sending.
        self.client = AuthenticatedClient(base_url=self.base_url, token=token or "", timeout=self.timeout)

    def _httpx_options(self, transport: Any, hook: Callable[..., Any]) -> dict[str, Any]:
        return {
            "headers": self._headers,
            "timeout": self.timeout,
            "transport": transport,
            "event_hooks": {"request": [hook]},
        }

    def _pages(self, max_pages: int | _Default | None) -> int | None:
        """The page bound of one walk: the call's, else the client's."""
        return self.max_pages if max_pages is _DEFAULT else page_bound(max_pages)

    def _override(self, retry: Retry | bool | _Default | None) -> Retry | _Default | None:
        """The retry choice of one call: `_DEFAULT` (by idempotency), a policy, or `None` (no retry)."""
        if retry is _DEFAULT:
            return _DEFAULT
        return retry_policy(retry) if retry is not True else (self.retry or DEFAULT_RETRY)

    def _result(self, name: str, module: ModuleType, response: httpx.Response) -> Any:
        """The parsed body of a 2xx answer (`UndecodableResponseError` when it is not the operation's result);
        otherwise the typed error (or, with `raise_errors=False`, whatever the generated code parsed: the `Error`
        model, or `None` for an undocumented status or a body that is no `Error`)."""
        status = response.status_code
        if not 200 <= status < 300:
            if self.raise_errors:
                raise error_from_response(status, response.headers, response.content, operation=name)
            return module._build_response(client=self.client, response=response).parsed
        return parsed_result(name, module, self.client, response)

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name.startswith("_") or name not in CATALOG:
            raise AttributeError(f"{type(self).__name__!r} has no attribute or operation {name!r}")
        return functools.partial(self.call, name)


class AccessGov(_Base):
    """Synchronous SDK client. Give `token=` (an API token) or `credentials=ClientCredentials(...)` (OAuth2).

    `timeout`: seconds, the total deadline of each attempt from connecting to the last body byte (default 30 s,
    connecting within 5 s; an `httpx.Timeout`'s `read` is the deadline; `None`: no limit) -> `DeadlineExceededError`.
    `max_response_bytes`: the cap on an answer's body as received and after decompression (default 8 MiB) ->
    `ResponseTooLargeError`. `max_pages`: the pages one `paginate()` walk may fetch (default 1,000; `None`: no
    bound) -> `PageLimitError`. `retry`: the policy for idempotent calls (`DEFAULT_RETRY`; `None` turns retries
    off); every attempt gets its own deadline. `raise_errors`: raise `ApiError` subclasses for non-2xx answers
    (default) instead of returning the parsed `Error`. The OAuth2 token requests have the same bounds.
    """

    def __init__(self, base_url: str, **options: Any) -> None:
        super().__init__(base_url, **options)
        httpx_options = self._httpx_options(sync_transport(self._verify, self.max_response_bytes), self._chooser)
        self.http: httpx.Client = (
            self.credentials.sync_client(self.base_url, **httpx_options)
            if self.credentials
            else httpx.Client(base_url=self.base_url, **httpx_options)
        )
        self.client.set_httpx_client(self.http)

    def call(self, operation: Operation, /, *args: Any, retry: Any = _DEFAULT, **kwargs: Any) -> Any:
        """Call an operation by name or generated module with its arguments (no `client`). `retry`: `False` to
        send once, `True` to retry even a non-idempotent call, or a `Retry` policy for this call."""
        op = CATALOG.get(operation)
        choice = self._override(retry)
        module = op.load()
        request = module._get_kwargs(*args, **kwargs)
        with call_retry(choice) if choice is not _DEFAULT else contextlib.nullcontext():
            self._ensure_token()
            response = self.http.request(**request)
        return self._result(op.name, module, response)

    def paginate(
        self, operation: Operation, /, *args: Any, max_pages: int | _Default | None = _DEFAULT, **kwargs: Any
    ) -> Iterator[Any]:
        """Every item of a list operation, page after page (`page_size` and filters go in `kwargs`); at most
        `max_pages` pages (the client's unless given; `None`: no bound), a token seen twice is `PagingLoopError`."""
        op = CATALOG.get(operation)
        if op.paging is None:
            raise ValueError(f"{op.name} is not a paged operation")
        bound = self._pages(max_pages)
        return iterate(lambda extra: self.call(op.name, *args, **kwargs, **extra), op.paging, max_pages=bound)

    def _ensure_token(self) -> None:
        if self.credentials is not None and not self.http.token:  # type: ignore[attr-defined]
            self.http.fetch_token()  # type: ignore[attr-defined]

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> AccessGov:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class AsyncAccessGov(_Base):
    """`AccessGov` for asyncio: `await api.call(...)`, `await api.<operation>(...)`, `async for item in
    api.paginate(...)`; OAuth2 tokens are fetched and refreshed with awaited requests."""

    def __init__(self, base_url: str, **options: Any) -> None:
        super().__init__(base_url, **options)
        transport = async_transport(self._verify, self.max_response_bytes)
        httpx_options = self._httpx_options(transport, self._chooser.hook_async)
        self.http: httpx.AsyncClient = (
            self.credentials.async_client(self.base_url, **httpx_options)
            if self.credentials
            else httpx.AsyncClient(base_url=self.base_url, **httpx_options)
        )
        self.client.set_async_httpx_client(self.http)
        self._token_lock: asyncio.Lock | None = None

    async def call(self, operation: Operation, /, *args: Any, retry: Any = _DEFAULT, **kwargs: Any) -> Any:
        """`AccessGov.call`, awaited."""
        op = CATALOG.get(operation)
        choice = self._override(retry)
        module = op.load()
        request = module._get_kwargs(*args, **kwargs)
        with call_retry(choice) if choice is not _DEFAULT else contextlib.nullcontext():
            await self._ensure_token()
            response = await self.http.request(**request)
        return self._result(op.name, module, response)

    def paginate(
        self, operation: Operation, /, *args: Any, max_pages: int | _Default | None = _DEFAULT, **kwargs: Any
    ) -> AsyncIterator[Any]:
        """`AccessGov.paginate` as an async iterator."""
        op = CATALOG.get(operation)
        if op.paging is None:
            raise ValueError(f"{op.name} is not a paged operation")
        bound = self._pages(max_pages)

        async def fetch(extra: dict[str, Any]) -> Any:
            return await self.call(op.name, *args, **kwargs, **extra)

        return aiterate(fetch, op.paging, max_pages=bound)

    async def _ensure_token(self) -> None:
        if self.credentials is None:
            return
        if self._token_lock is None:
            self._token_lock = asyncio.Lock()
        async with self._token_lock:  # concurrent first calls fetch one token
            if not self.http.token:  # type: ignore[attr-defined]
                await self.http.fetch_token()  # type: ignore[attr-defined]

    async def aclose(self) -> None:
        await self.http.aclose()

    async def __aenter__(self) -> AsyncAccessGov:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()
