"""A Starlette application driven by the bundled OpenAPI document.

Every operation of the contract becomes a route. Before a handler runs, the request is checked against
the operation as the spec declares it: credentials for schemes that have an authenticator (401), path,
query and header parameters (400, with the parameter's `x-error-code` when it has one), body size (413),
content type and JSON syntax and schema (400). An operation without a registered handler answers with its
first documented success example, which makes the app a mock server of the contract ("stub mode").
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from accessgov.service.errors import ApiError, bad_request, detail, from_verification, unauthorized
from accessgov.verification.errors import PayloadTooLargeError, WebhookRequestError
from accessgov.verification.request_checks import parse_json_body, read_limited_body

log = logging.getLogger(__name__)

BUNDLE_PATH = Path(__file__).resolve().parents[2] / "generated" / "openapi.json"
BUNDLE_URI = "urn:accessgov:bundle"
DEFAULT_MAX_BODY_BYTES = 64 * 1024
HTTP_METHODS = ("get", "put", "post", "delete", "patch")
INTEGER = re.compile(r"^[+-]?[0-9]+$")


def load_bundle(path: Path = BUNDLE_PATH) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def _deref(doc: dict[str, Any], node: Any) -> tuple[Any, str | None]:
    pointer = None
    while isinstance(node, dict) and str(node.get("$ref", "")).startswith("#/"):
        pointer = node["$ref"][1:]
        node = doc
        for part in pointer[1:].split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
    return node, pointer


def _escape(part: str) -> str:
    return part.replace("~", "~0").replace("/", "~1")


def operations_from_bundle(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The route table of a bundle: plain data, so it can be generated into a module and reviewed."""
    table = []
    for path, item in doc.get("paths", {}).items():
        for method in HTTP_METHODS:
            op = item.get(method)
            if not isinstance(op, dict):
                continue
            base = f"/paths/{_escape(path)}/{method}"
            params = []
            for index, raw in enumerate([*item.get("parameters", []), *op.get("parameters", [])]):
                param, pointer = _deref(doc, raw)
                where = pointer or f"{base}/parameters/{index}"
                params.append(
                    {
                        "name": param["name"],
                        "in": param["in"],
                        "required": bool(param.get("required", False)),
                        "schema": f"{where}/schema",
                        "type": _deref(doc, param.get("schema", {}))[0].get("type", "string"),
                        "error_code": param.get("x-error-code"),
                    }
                )
            body = None
            if "requestBody" in op:
                request_body, pointer = _deref(doc, op["requestBody"])
                where = pointer or f"{base}/requestBody"
                body = {
                    "required": bool(request_body.get("required", False)),
                    "content": {
                        media: f"{where}/content/{_escape(media)}/schema" for media in request_body.get("content", {})
                    },
                }
            responses = {}
            for status, raw in op.get("responses", {}).items():
                response, _ = _deref(doc, raw)
                media = response.get("content", {}).get("application/json", {})
                example = media.get("example")
                for candidate in media.get("examples", {}).values():
                    if example is None:
                        example = _deref(doc, candidate)[0].get("value")
                responses[str(status)] = {"example": example}
            security = op.get("security", doc.get("security", []))
            table.append(
                {
                    "operation_id": op["operationId"],
                    "method": method.upper(),
                    "path": path,
                    "parameters": params,
                    "body": body,
                    "security": [sorted(requirement) for requirement in security],
                    "responses": responses,
                }
            )
    return sorted(table, key=lambda entry: (entry["path"], entry["method"]))


@dataclass
class RequestContext:
    """A request after the contract's checks: typed parameters and the parsed body."""

    request: Request
    operation_id: str
    path_params: dict[str, Any]
    query: dict[str, Any]
    headers: dict[str, str]
    raw_body: bytes
    body: Any
    principal: Any = None
    state: dict[str, Any] = field(default_factory=dict)

    @cached_property
    def peer(self) -> str | None:
        return self.request.client.host if self.request.client else None


HandlerResult = Response | tuple[int, Any]
Handler = Callable[[RequestContext], HandlerResult | Awaitable[HandlerResult]]
Authenticator = Callable[[RequestContext], Any]


@dataclass(frozen=True)
class HandlerSpec:
    """A hand-written implementation of one operation.

    `parse_body=False` leaves content type and body to the handler (for example an RFC 6749 form body);
    `sync=True` runs the handler in the thread pool (database work).
    """

    func: Handler
    sync: bool = True
    parse_body: bool = True
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES


def error_response(error: ApiError) -> JSONResponse:
    return JSONResponse(error.body(), status_code=error.status, headers=error.headers)


class _Operation:
    """One route: validators compiled once, then `endpoint` per request."""

    def __init__(
        self,
        entry: dict[str, Any],
        registry: Registry,
        handler: HandlerSpec | None,
        authenticators: Mapping[str, Authenticator],
    ) -> None:
        self.entry = entry
        self.handler = handler
        self.authenticators = authenticators
        self.validators: dict[str, Draft202012Validator] = {}
        pointers = [p["schema"] for p in entry["parameters"]]
        pointers += list((entry["body"] or {}).get("content", {}).values())
        for pointer in pointers:
            self.validators[pointer] = Draft202012Validator(
                {"$ref": f"{BUNDLE_URI}#{pointer}"},
                registry=registry,
                format_checker=Draft202012Validator.FORMAT_CHECKER,
            )

    async def endpoint(self, request: Request) -> Response:
        try:
            return await self._handle(request)
        except ApiError as error:
            return error_response(error)

    async def _handle(self, request: Request) -> Response:
        ctx = RequestContext(
            request=request,
            operation_id=self.entry["operation_id"],
            path_params={},
            query={},
            headers={},
            raw_body=b"",
            body=None,
        )
        self._authenticate(ctx)
        self._check_parameters(ctx)
        await self._read_body(ctx)
        if self.handler is None:
            return self._stub_response()
        if self.handler.sync:
            result = await run_in_threadpool(self.handler.func, ctx)
        else:
            result = self.handler.func(ctx)
            if isinstance(result, Awaitable):
                result = await result
        if isinstance(result, Response):
            return result
        status, body = result
        return JSONResponse(body, status_code=status)

    def _authenticate(self, ctx: RequestContext) -> None:
        """Any one requirement must pass; within one, every scheme (schemes without an authenticator are
        left to the handler, which knows more, such as the webhook listener's method)."""
        requirements = self.entry["security"]
        checkable = [r for r in requirements if r and all(s in self.authenticators for s in r)]
        if not checkable or len(checkable) != len(requirements):
            return
        last: ApiError | None = None
        for requirement in checkable:
            try:
                principals = {self.authenticators[scheme](ctx) for scheme in requirement}
            except ApiError as error:
                last = error
                continue
            ctx.principal = principals.pop() if len(principals) == 1 else principals
            return
        raise last or unauthorized("UNAUTHENTICATED", "credentials are required")

    def _check_parameters(self, ctx: RequestContext) -> None:
        request = ctx.request
        sources = {"path": request.path_params, "query": request.query_params, "header": request.headers}
        targets = {"path": ctx.path_params, "query": ctx.query, "header": ctx.headers}
        for param in self.entry["parameters"]:
            name, where = param["name"], param["in"]
            if where not in sources:
                continue
            raw = sources[where].get(name)
            if raw is None:
                if param["required"]:
                    code = "MISSING_HEADER" if where == "header" else "MISSING_PARAMETER"
                    raise bad_request(code, f"the {name} {where} parameter is required", detail(where, "missing", name))
                continue
            value = self._coerce(param, raw)
            error = best_match(self.validators[param["schema"]].iter_errors(value))
            if error is not None:
                raise bad_request(
                    param["error_code"] or "INVALID_ARGUMENT",
                    f"{where} parameter {name}: {error.message}",
                    detail(where, error.message, name),
                )
            targets[where][name] = value

    @staticmethod
    def _coerce(param: dict[str, Any], raw: str) -> Any:
        kind = param["type"]
        if kind == "integer":
            if not INTEGER.match(raw):
                reason = "must be an integer"
                raise bad_request(
                    param["error_code"] or "INVALID_ARGUMENT",
                    f"{param['in']} parameter {param['name']} {reason}",
                    detail(param["in"], reason, param["name"]),
                )
            return int(raw)
        if kind == "boolean" and raw in ("true", "false"):
            return raw == "true"
        return raw

    async def _read_body(self, ctx: RequestContext) -> None:
        body_spec = self.entry["body"]
        if body_spec is None:
            return
        limit = self.handler.max_body_bytes if self.handler else DEFAULT_MAX_BODY_BYTES
        declared = ctx.request.headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > limit:
            raise ApiError(413, "PAYLOAD_TOO_LARGE", f"the request body exceeds {limit} bytes")
        try:
            ctx.raw_body = await read_limited_body(ctx.request.stream(), limit)
        except PayloadTooLargeError as error:
            raise from_verification(error) from None
        if self.handler is not None and not self.handler.parse_body:
            return
        media = (ctx.request.headers.get("content-type") or "").split(";")[0].strip().lower()
        if not ctx.raw_body and not body_spec["required"]:
            return
        if media not in body_spec["content"]:
            expected = ", ".join(body_spec["content"])
            reason = f"must be {expected}" if media else "missing"
            raise bad_request(
                "INVALID_CONTENT_TYPE",
                f"Content-Type must be {expected}",
                detail("header", reason, "Content-Type"),
            )
        if media != "application/json":
            return
        try:
            ctx.body = parse_json_body(ctx.raw_body)  # strict: UTF-8 only, no NaN, nesting-safe
        except WebhookRequestError as error:
            raise from_verification(error) from None
        error = best_match(self.validators[body_spec["content"][media]].iter_errors(ctx.body))
        if error is not None:
            at = "/" + "/".join(map(str, error.absolute_path))
            raise bad_request("INVALID_ARGUMENT", f"body: {at} {error.message}", detail("body", error.message, at))

    def _stub_response(self) -> Response:
        for status, response in sorted(self.entry["responses"].items()):
            if status.startswith("2"):
                return JSONResponse(response["example"], status_code=int(status))
        return Response(status_code=204)


async def _http_exception(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    codes = {404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED"}
    error = ApiError(exc.status_code, codes.get(exc.status_code, "HTTP_ERROR"), str(exc.detail))
    response = error_response(error)
    if exc.headers:
        response.headers.update(exc.headers)
    return response


async def _unexpected(request: Request, exc: Exception) -> Response:
    log.exception("unhandled error in %s %s", request.method, request.url.path)
    return error_response(ApiError(500, "INTERNAL", "internal error"))


def build_app(
    operations: list[dict[str, Any]],
    doc: dict[str, Any],
    handlers: Mapping[str, HandlerSpec] | None = None,
    *,
    authenticators: Mapping[str, Authenticator] | None = None,
    lifespan: Any = None,
) -> Starlette:
    """A Starlette app serving `operations` (see `operations_from_bundle`) of the bundle `doc`."""
    handlers = dict(handlers or {})
    unknown = set(handlers) - {entry["operation_id"] for entry in operations}
    if unknown:
        raise ValueError(f"handlers for operations the spec does not have: {sorted(unknown)}")
    registry = Registry().with_resource(BUNDLE_URI, Resource.from_contents(doc, default_specification=DRAFT202012))
    routes = [
        Route(
            entry["path"],
            _Operation(entry, registry, handlers.get(entry["operation_id"]), authenticators or {}).endpoint,
            methods=[entry["method"]],
            name=entry["operation_id"],
        )
        for entry in operations
    ]
    return Starlette(
        routes=routes,
        exception_handlers={HTTPException: _http_exception, Exception: _unexpected},
        lifespan=lifespan,
    )


def require_bearer(ctx: RequestContext) -> str:
    """The token of `Authorization: Bearer <token>`, or 401."""
    scheme, _, token = (ctx.request.headers.get("authorization") or "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise unauthorized("UNAUTHENTICATED", "an Authorization header with a Bearer token is required")
    return token.strip()


def stub_authenticators() -> dict[str, Authenticator]:
    """Stub mode only checks that a bearer token is present; the reference server verifies it."""
    return {"bearerAuth": require_bearer, "oauth": require_bearer}
