"""A Starlette application driven by the bundled OpenAPI document.

Every operation of the contract becomes a route. Before a handler runs, the request is checked against
the operation as the spec declares it: credentials for schemes that have an authenticator (401), path,
query and header parameters (400, with the parameter's `x-error-code` when it has one), body size (413),
content type and JSON syntax and schema (400). Every operation has its handler (the mock of the contract is
`generated/stub_server`).
"""

from __future__ import annotations

import inspect
import json
import logging
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

from jsonschema.exceptions import ValidationError, best_match
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Route

from accessgov.bundle.reader import Schemas, coerce
from accessgov.documents import BUNDLE, document
from accessgov.errors import (
    QUOTED_CHARS,
    ApiError,
    ErrorCode,
    InvalidRequest,
    PayloadTooLarge,
    Unauthenticated,
    quoted,
    shortened,
)
from accessgov.http.body import parse_json_body, read_limited_body
from accessgov.http.context import Authenticator, HandlerSpec, RequestContext
from accessgov.http.dispatch import ContractApp
from accessgov.http.errors import error_response, http_exception, unexpected
from accessgov.http.in_flight import InFlight
from accessgov.http.responses import JSONResponse

log = logging.getLogger(__name__)

BUNDLE_PATH = Path(str(document(BUNDLE)))


def load_bundle(path: Path = BUNDLE_PATH) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return doc


def _query_parameters(scope: Mapping[str, Any]) -> dict[str, str]:
    """The query string read as Starlette's `request.query_params.get` reads it (the last of repeated names wins),
    without building its multi-dict; nothing to parse for an empty query string."""
    raw = scope.get("query_string", b"")
    if not raw:
        return {}
    text = raw.decode("latin-1")
    if "%" in text or "+" in text:
        return dict(parse_qsl(text, keep_blank_values=True))
    # Nothing to unquote (most requests): parse_qsl's result without its per-pair unquoting, a third of the cost.
    return {name: value for name, _, value in (pair.partition("=") for pair in text.split("&") if pair)}


def _message(error: ValidationError) -> str:
    """jsonschema's message with the value it quotes (`'AAAA...' is too long`) cut to `QUOTED_CHARS`: the value is
    the client's and may be as long as the request allows."""
    message: str = error.message
    shown = repr(error.instance)
    if len(shown) > QUOTED_CHARS and shown in message:
        message = message.replace(shown, quoted(error.instance))
    return shortened(message, QUOTED_CHARS * 4)


def _distinct(authenticators: Iterable[Authenticator]) -> list[Authenticator]:
    """Each authenticator once, in order (by identity: the same object gives the same answer)."""
    return list({id(authenticator): authenticator for authenticator in authenticators}.values())


class _Operation:
    """One route: validators compiled once, then `endpoint` per request."""

    def __init__(
        self,
        entry: dict[str, Any],
        schemas: Schemas,
        handler: HandlerSpec,
        authenticators: Mapping[str, Authenticator],
        in_flight: InFlight,
    ) -> None:
        self.in_flight = in_flight
        self.entry = entry
        self.handler = handler
        # The requirements the engine checks, fixed per route (computed here, not per request): each names only
        # schemes with an authenticator; none when any requirement is left to the handler (see `_authenticate`).
        requirements = [[scheme for scheme, _ in requirement] for requirement in entry["security"]]
        checkable = [r for r in requirements if r and all(s in authenticators for s in r)]
        # Schemes sharing one authenticator (bearerAuth and oauth: one header) are checked once per requirement.
        self.requirements: list[list[Authenticator]] = (
            [_distinct(authenticators[scheme] for scheme in r) for r in checkable]
            if checkable and len(checkable) == len(requirements)
            else []
        )
        only = self.requirements[0] if len(self.requirements) == 1 and len(self.requirements[0]) == 1 else None
        self.only: Authenticator | None = only[0] if only else None
        # (entry, name, location, header name, schema pointer) per parameter, looked up once here, not per request.
        self.parameters = [
            (param, param["name"], param["in"], param["name"].lower(), param["schema"]) for param in entry["parameters"]
        ]
        self.schemas = schemas  # jsonschema words the errors; the fast checks give the verdicts
        pointers = [*(p["schema"] for p in entry["parameters"]), *(entry["body"] or {}).get("content", {}).values()]
        self.checks = {pointer: schemas.check(pointer) for pointer in pointers}

    def _error(self, pointer: str, value: Any) -> Any:
        """The jsonschema error of an invalid `value` (the fast check said it is invalid), else None."""
        if self.checks[pointer](value):
            return None
        return best_match(self.schemas.validator(pointer).iter_errors(value))

    async def endpoint(self, request: Request) -> Response:
        self.in_flight.count += 1
        try:
            return await self._handle(request)
        except ApiError as error:
            request.scope["accessgov.error_code"] = error.code  # for the access log and delivery metrics
            return error_response(error)
        finally:
            self.in_flight.count -= 1

    async def _handle(self, request: Request) -> Response:
        ctx = RequestContext(request=request, operation_id=self.entry["operation_id"])
        await self._authenticate(ctx)
        self._check_parameters(ctx)
        await self._read_body(ctx)
        result = await self.handler.func(ctx)
        if isinstance(result, Response):
            return result
        status, body = result
        return JSONResponse(body, status_code=status)

    async def _authenticate(self, ctx: RequestContext) -> None:
        """Any one requirement must pass; within one, every scheme (schemes without an authenticator are
        left to the handler, which knows more, such as the webhook listener's method)."""
        if not self.requirements:
            return
        if self.only is not None:  # one requirement, one authenticator (bearerAuth or oauth): most operations
            principal = self.only(ctx)
            ctx.principal = await principal if inspect.iscoroutine(principal) else principal
            return
        last: ApiError | None = None
        for requirement in self.requirements:
            try:
                principals = []
                for authenticator in requirement:
                    principal = authenticator(ctx)
                    if inspect.iscoroutine(principal):
                        principal = await principal
                    principals.append(principal)
            except ApiError as error:
                last = error
                continue
            # bearerAuth and oauth arrive in one header, so one requirement naming both yields one principal.
            ctx.principal = principals[0] if all(p == principals[0] for p in principals) else principals
            return
        raise last or Unauthenticated(ErrorCode.UNAUTHENTICATED, "credentials are required")

    def _check_parameters(self, ctx: RequestContext) -> None:
        path_params = ctx.request.path_params
        targets = {"path": ctx.path_params, "query": ctx.query, "header": ctx.headers}
        query: dict[str, str] | None = None
        for param, name, where, header_name, pointer in self.parameters:
            # Each source is built only when an operation has parameters there (query parsing is not free).
            if where == "header":
                raw = ctx.header(header_name)
            elif where == "path":
                raw = path_params.get(name)
            elif where == "query":
                if query is None:
                    query = _query_parameters(ctx.request.scope)
                raw = query.get(name)
            else:
                continue
            if raw is None:
                if param["required"]:
                    code = ErrorCode.MISSING_HEADER if where == "header" else ErrorCode.MISSING_PARAMETER
                    raise InvalidRequest(code, f"the {name} {where} parameter is required", location=where, name=name)
                continue
            try:
                value = raw if param["type"] == "string" else coerce(param["type"], raw)
            except ValueError:
                message = f"{where} parameter {name} must be an integer"
                code = param["error_code"] or ErrorCode.INVALID_ARGUMENT
                raise InvalidRequest(code, message, location=where, name=name) from None
            error = None if self.checks[pointer](value) else self._error(pointer, value)
            if error is not None:
                raise InvalidRequest(
                    param["error_code"] or ErrorCode.INVALID_ARGUMENT,
                    f"{where} parameter {name}: {_message(error)}",
                    location=where,
                    name=name,
                )
            targets[where][name] = value

    async def _read_body(self, ctx: RequestContext) -> None:
        body_spec = self.entry["body"]
        if body_spec is None:
            return
        limit = self.handler.max_body_bytes
        declared = ctx.header("content-length")
        if declared and declared.isdigit() and int(declared) > limit:
            raise PayloadTooLarge(ErrorCode.PAYLOAD_TOO_LARGE, f"the request body exceeds {limit} bytes")
        try:
            ctx.raw_body = await read_limited_body(ctx.request.receive, limit)
        except ClientDisconnect:  # e.g. closed by the body-idle deadline: nobody is left to answer, nothing to log
            raise InvalidRequest(
                ErrorCode.INVALID_ARGUMENT, "the client disconnected before sending the whole body", location="body"
            ) from None
        if not self.handler.parse_body:
            return
        media = (ctx.header("content-type") or "").split(";")[0].strip().lower()
        if not ctx.raw_body and not body_spec["required"]:
            return
        if media not in body_spec["content"]:
            expected = ", ".join(body_spec["content"])
            raise InvalidRequest(
                ErrorCode.INVALID_CONTENT_TYPE,
                f"Content-Type must be {expected}",
                location="header",
                name="Content-Type",
            )
        if media != "application/json":
            return
        ctx.body = parse_json_body(ctx.raw_body)  # strict: UTF-8 only, no NaN, nesting-safe
        error = self._error(body_spec["content"][media], ctx.body)
        if error is not None:
            at = "/" + "/".join(map(str, error.absolute_path))
            at = shortened(at, QUOTED_CHARS)
            raise InvalidRequest(_body_code(error), f"body: {at} {_message(error)}", location="body", name=at)


def _body_code(error: Any) -> ErrorCode:
    """The `Error.code` of a body that fails its schema: the `x-error-code` (as a parameter's) of the schema that
    refused a value, looked for below a union's refusal too (`[7]` for the expand paths fails `anyOf [mask, null]`
    as a whole), else `INVALID_ARGUMENT`."""
    pending = [error]
    while pending:
        current = pending.pop()
        schema = current.schema if isinstance(current.schema, dict) else {}
        if code := schema.get("x-error-code"):
            return ErrorCode(code)
        pending.extend(current.context or ())
    return ErrorCode.INVALID_ARGUMENT


def build_app(
    operations: list[dict[str, Any]],
    doc: dict[str, Any],
    handlers: Mapping[str, HandlerSpec],
    *,
    authenticators: Mapping[str, Authenticator] | None = None,
    lifespan: Any = None,
    in_flight: InFlight | None = None,
) -> Starlette:
    """A Starlette app serving `operations` (`contract.bundle.operations_from_bundle`) of the bundle `doc`, each by
    its handler."""
    operation_ids = {entry["operation_id"] for entry in operations}
    if unknown := set(handlers) - operation_ids:
        raise ValueError(f"handlers for operations the spec does not have: {sorted(unknown)}")
    if missing := operation_ids - set(handlers):
        raise ValueError(f"operations without a handler: {sorted(missing)}")
    schemas = Schemas(doc)
    in_flight = in_flight or InFlight()
    endpoints = [
        (
            entry,
            _Operation(entry, schemas, handlers[entry["operation_id"]], authenticators or {}, in_flight).endpoint,
        )
        for entry in operations
    ]
    routes = [
        Route(entry["path"], endpoint, methods=[entry["method"]], name=entry["operation_id"])
        for entry, endpoint in endpoints
    ]
    return ContractApp(
        [(entry["method"], entry["path"], endpoint) for entry, endpoint in endpoints],
        routes=routes,
        exception_handlers={HTTPException: http_exception, Exception: unexpected},
        lifespan=lifespan,
    )
