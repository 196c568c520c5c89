"""A mock server of an OpenAPI 3.1 bundle: an ASGI app that validates requests and answers with examples.

Copied verbatim into the generated stub package by `make generate` (accessgov_tools/generate_stub.py), beside a copy of
`accessgov/bundle` (the bundle reader, the parameter grammar and the validators the reference server uses too): it
depends on nothing but those, the bundle, jsonschema/referencing and orjson.

Per request: route (404/405 in the `Error` shape), the `Prefer` header (422 `MOCK_INVALID_PREFER` for an
unknown or impossible preference), credentials present for one security requirement (401), parameters and
body against their schemas (400), then the response:

- `Prefer: code=<status>` picks a documented status, `example=<name>` a named example (any status);
- `Prefer: dynamic=true` generates the body from the response schema (valid against it), deterministic when a
  seed is given (`Prefer: seed=<int>` or the app's `seed`); otherwise the status's first example (a body
  generated with the app's seed when the status documents none);
- path parameter values are written into the example's matching ids (`task_id` -> `task.id` and every
  `taskId`), so an id taken from one response comes back from the next.
"""

from __future__ import annotations

import json
import random
import re
import uuid
from collections.abc import Awaitable, Callable, Mapping
from typing import Any
from urllib.parse import parse_qsl

import orjson
from jsonschema.exceptions import ValidationError, best_match

# The template's own directory has no `bundle/`: only the generated package does (a copy of accessgov/bundle).
from .bundle.reader import Schemas, coerce, deref, path_regex, present  # type: ignore[import-not-found, import-untyped, unused-ignore]
from .bundle.reader import resolve as _pointer  # type: ignore[import-not-found, import-untyped, unused-ignore]
from .dynamic import generate

MAX_BODY_BYTES = 64 * 1024
PREFERENCES = ("code", "example", "dynamic", "seed")
DYNAMIC_ATTEMPTS = 20
JSON_HEADERS = [(b"content-type", b"application/json")]
# The contract's convention: every response, errors included, carries X-Request-Id: the client's own when it is
# 1-128 characters of this set, else a generated one (32 hex digits), as the reference server does.
REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}", re.ASCII)

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


class MockError(Exception):
    """A response decided before the example: 400/401 from the contract, 404/405/413/422 from the mock."""

    def __init__(self, status: int, body: Any, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(status)
        self.status, self.body, self.headers = status, body, dict(headers or {})


def _error(status: int, code: str, message: str, **detail: str) -> MockError:
    # Each detail carries the `reason` the contract's ErrorDetail requires (the message, as the server words it).
    message = _cut(message, MESSAGE_CHARS)
    return MockError(
        status, {"code": code, "message": message, "details": [{**detail, "reason": message}] if detail else []}
    )


# `seed=<int>`: ASCII digits only (str.isdigit() takes "²" and int() refuses it), at most 18 of them (any int64).
SEED = re.compile(r"-?[0-9]{1,18}", re.ASCII)
# The server's quoting rule (docs/edges.md): a value the client sent is quoted cut to QUOTED_CHARS, a whole message
# to MESSAGE_CHARS, each with a marker saying how much was cut.
QUOTED_CHARS = 64
MESSAGE_CHARS = 1024


def _cut(text: str, limit: int = QUOTED_CHARS) -> str:
    return text if len(text) <= limit else f"{text[:limit]}...({len(text) - limit} more characters)"


def _schema_message(error: ValidationError) -> str:
    """jsonschema's message with the value it quotes (`'AAAA...' is too long`) cut to QUOTED_CHARS."""
    message: str = error.message
    shown = repr(error.instance)
    if len(shown) > QUOTED_CHARS and shown in message:
        message = message.replace(shown, _cut(shown))
    return _cut(message, QUOTED_CHARS * 4)


def _invalid_prefer(message: str) -> MockError:
    return _error(422, "MOCK_INVALID_PREFER", message, location="header", name="Prefer")


def parse_prefer(header: str) -> dict[str, str]:
    """`Prefer: code=404, example=lastPage` -> {"code": "404", "example": "lastPage"} (RFC 7240 syntax); any value
    the mock cannot use is a 422 `MOCK_INVALID_PREFER`, never an error of the mock's own."""
    prefs: dict[str, str] = {}
    for part in re.split(r"[,;]", header):
        part = part.strip()
        if not part:
            continue
        name, _, value = part.partition("=")
        name, value = name.strip().lower(), value.strip().strip('"')
        if name not in PREFERENCES:
            raise _invalid_prefer(f"unknown preference {_cut(name)!r}: the mock understands {', '.join(PREFERENCES)}")
        prefs[name] = value
    if "dynamic" in prefs and prefs["dynamic"] not in ("true", "false"):
        raise _invalid_prefer("dynamic must be true or false")
    if "seed" in prefs and not SEED.fullmatch(prefs["seed"]):
        raise _invalid_prefer("seed must be an integer of at most 18 ASCII digits, optionally negative")
    return prefs


class _Operation:
    """One operation: validators compiled once, responses rendered per request."""

    def __init__(self, entry: dict[str, Any], doc: dict[str, Any], schemas: Schemas) -> None:
        self.entry = entry
        self.doc = doc
        self.regex = path_regex(entry["path"])
        self.schemas = schemas
        # Per status: the headers sent (the documented ones, and the media type answered with).
        self.headers: dict[str, dict[str, str]] = {}
        for status, response in entry["responses"].items():
            self.headers[status] = {name: header["value"] for name, header in response["headers"].items()}
            if response["media"]:
                self.headers[status]["Content-Type"] = response["media"]
        self.success = next((s for s in sorted(entry["responses"]) if s.startswith("2")), None)
        # The shape of this operation's 400 body: the contract's `Error`, or RFC 6749's for the token endpoint.
        bad_request = entry["responses"].get("400", {}).get("schema")
        shape = deref(doc, _pointer(doc, bad_request))[0] if bad_request else {}
        self.oauth_errors = "error" in shape.get("required", [])
        self.rendered: dict[tuple[str, str, tuple[str, ...]], bytes] = {}
        for pointer in [
            *(p["schema"] for p in entry["parameters"]),
            *(entry["body"] or {}).get("content", {}).values(),
            *(r["schema"] for r in entry["responses"].values() if r["schema"]),
        ]:
            schemas.validator(pointer)  # compiled now, not on the first request

    def bad_request(self, code: str, message: str, **detail: str) -> MockError:
        if self.oauth_errors:
            return MockError(400, {"error": "invalid_request", "error_description": message})
        return _error(400, code, message, **detail)

    def authenticate(self, headers: dict[str, str]) -> None:
        requirements = self.entry["security"]
        if not requirements or any(not requirement for requirement in requirements):
            return
        for requirement in requirements:
            if all(present(headers, credential) for _, credential in requirement):
                return
        unauthorized = self.entry["responses"].get("401")
        body = next(iter(unauthorized["examples"].values()), None) if unauthorized else None
        if body is None:
            body = {"code": "UNAUTHENTICATED", "message": "credentials are required", "details": []}
        raise MockError(401, body, self.headers.get("401") or {"WWW-Authenticate": "Bearer"})

    def check_parameters(self, path_params: dict[str, str], query: dict[str, str], headers: dict[str, str]) -> None:
        sources = {"path": path_params, "query": query, "header": headers}
        for param in self.entry["parameters"]:
            name, where = param["name"], param["in"]
            if where not in sources:
                continue
            raw = sources[where].get(name.lower() if where == "header" else name)
            if raw is None:
                if param["required"]:
                    code = "MISSING_HEADER" if where == "header" else "MISSING_PARAMETER"
                    raise self.bad_request(code, f"the {name} {where} parameter is required", location=where, name=name)
                continue
            try:
                value = coerce(param["type"], raw)
            except ValueError:
                raise self.bad_request(
                    param["error_code"] or "INVALID_ARGUMENT",
                    f"{where} parameter {name} must be an integer",
                    location=where,
                    name=name,
                ) from None
            error = best_match(self.schemas.validator(param["schema"]).iter_errors(value))
            if error is not None:
                raise self.bad_request(
                    param["error_code"] or "INVALID_ARGUMENT",
                    f"{where} parameter {name}: {_schema_message(error)}",
                    location=where,
                    name=name,
                )

    def check_body(self, raw: bytes, content_type: str) -> None:
        spec = self.entry["body"]
        if spec is None or (not raw and not spec["required"]):
            return
        media = content_type.split(";")[0].strip().lower()
        if media not in spec["content"]:
            expected = ", ".join(spec["content"])
            raise self.bad_request(
                "INVALID_CONTENT_TYPE", f"Content-Type must be {expected}", location="header", name="Content-Type"
            )
        if media == "application/json":
            try:
                body = json.loads(raw.decode("utf-8"), parse_constant=_reject_constant)
            except (UnicodeDecodeError, ValueError, RecursionError) as error:
                raise self.bad_request(
                    "INVALID_JSON", f"the request body is not valid JSON: {error}", location="body"
                ) from None
        elif media == "application/x-www-form-urlencoded":
            # Blank values kept: an empty `client_secret` is a present, invalid one (minLength 1), not an absent one.
            body = dict(parse_qsl(raw.decode("latin-1"), keep_blank_values=True))
        else:
            return
        failure = best_match(self.schemas.validator(spec["content"][media]).iter_errors(body))
        if failure is not None:
            at = _cut("/" + "/".join(map(str, failure.absolute_path)))
            raise self.bad_request(
                "INVALID_ARGUMENT", f"body: {at} {_schema_message(failure)}", location="body", name=at
            )

    def choose(self, prefs: dict[str, str]) -> tuple[str, str | None]:
        """The status and example name the preferences select (422 when they select nothing)."""
        responses = self.entry["responses"]
        status = prefs.get("code")
        if status is not None and status not in responses:
            documented = ", ".join(sorted(responses))
            raise _error(
                422, "MOCK_INVALID_PREFER", f"code={_cut(status)} is not documented here (documented: {documented})"
            )
        name = prefs.get("example")
        if name is not None:
            candidates = [status] if status else sorted(responses, key=lambda s: (not s.startswith("2"), s))
            for candidate in candidates:
                if name in responses[candidate]["examples"]:
                    return candidate, name
            known = sorted({n for s in candidates for n in responses[s]["examples"]})
            raise _error(422, "MOCK_INVALID_PREFER", f"no example named {_cut(name)!r} (known: {', '.join(known)})")
        status = status or self.success
        if status is None:
            raise _error(422, "MOCK_INVALID_PREFER", "the operation documents no success response")
        return status, None

    def example(self, status: str, name: str | None, path_params: dict[str, str]) -> bytes | None:
        """The example body, rendered once per (status, name, path parameters)."""
        key = (status, name or "", tuple(path_params.values()))
        rendered = self.rendered.get(key)
        if rendered is None:
            examples = self.entry["responses"][status]["examples"]
            if not examples:
                return None
            value = examples[name] if name else next(iter(examples.values()))
            rendered = self.encode(status, substitute_ids(value, path_params))
            if len(self.rendered) < 4096:
                self.rendered[key] = rendered
        return rendered

    def encode(self, status: str, value: Any) -> bytes:
        media = self.headers[status].get("Content-Type", "application/json")
        if isinstance(value, str) and not media.endswith("json"):
            return value.encode()
        return orjson.dumps(value)

    def dynamic(self, status: str, rng: random.Random, path_params: dict[str, str]) -> bytes | None:
        pointer = self.entry["responses"][status]["schema"]
        if pointer is None:
            return None
        validator = self.schemas.validator(pointer)
        schema, resolve = _pointer(self.doc, pointer), _resolver(self.doc)
        for _ in range(DYNAMIC_ATTEMPTS):
            value = substitute_ids(generate(schema, resolve, rng), path_params)
            if validator.is_valid(value):
                return self.encode(status, value)
        # The schema uses keywords the generator does not cover: the documented example is valid too.
        return self.example(status, None, path_params)


def _request_id(scope: Scope) -> str:
    for key, value in scope["headers"]:
        if key.lower() == b"x-request-id" and REQUEST_ID.fullmatch(value.decode("latin-1")):
            request_id: str = value.decode("latin-1")
            return request_id
    return uuid.uuid4().hex


def _resolver(doc: dict[str, Any]) -> Callable[[str], Any]:
    return lambda ref: _pointer(doc, ref)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def substitute_ids(value: Any, path_params: Mapping[str, str]) -> Any:
    """The example with `<name>_id` path parameters written into `<name>Id` fields and `<name>.id`."""
    targets = {name.removesuffix("_id"): v for name, v in path_params.items() if name.endswith("_id")}
    if not targets:
        return value
    camel = {_camel(name) + "Id": v for name, v in targets.items()}
    nested = {_camel(name): v for name, v in targets.items()}

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(item) for item in node]
        if not isinstance(node, dict):
            return node
        out: dict[str, Any] = {}
        for key, item in node.items():
            if key in camel and isinstance(item, str):
                out[key] = camel[key]
            elif key in nested and isinstance(item, dict) and isinstance(item.get("id"), str):
                out[key] = {**walk(item), "id": nested[key]}
            else:
                out[key] = walk(item)
        return out

    return walk(value)


def _camel(snake: str) -> str:
    head, *rest = snake.split("_")
    return head + "".join(part.title() for part in rest)


class MockApp:
    """The ASGI app: `MockApp(operations_from_bundle(doc), doc, seed=None, dynamic=False)` (the table is
    `operations.py`)."""

    def __init__(
        self, operations: list[dict[str, Any]], doc: dict[str, Any], *, seed: int | None = None, dynamic: bool = False
    ) -> None:
        schemas = Schemas(doc)
        self.operations = [_Operation(entry, doc, schemas) for entry in operations]
        self.seed = seed
        self.dynamic = dynamic
        self.requests = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                else:
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            return
        try:
            status, body, headers = await self._respond(scope, receive)
        except MockError as error:
            status, body, headers = error.status, orjson.dumps(error.body), error.headers
        raw_headers = [(k.lower().encode(), v.encode()) for k, v in headers.items() if k.lower() != "x-request-id"]
        raw_headers.append((b"x-request-id", _request_id(scope).encode()))
        if body is None:
            raw_headers = [(k, v) for k, v in raw_headers if k != b"content-type"]
            body = b""
        elif not any(k == b"content-type" for k, _ in raw_headers):
            raw_headers.extend(JSON_HEADERS)
        raw_headers.append((b"content-length", str(len(body)).encode()))
        await send({"type": "http.response.start", "status": status, "headers": raw_headers})
        await send({"type": "http.response.body", "body": body})

    async def _respond(self, scope: Scope, receive: Receive) -> tuple[int, bytes | None, dict[str, str]]:
        path, method = scope["path"], scope["method"]
        allowed = []
        for operation in self.operations:
            match = operation.regex.match(path)
            if match is None:
                continue
            if operation.entry["method"] != method:
                allowed.append(operation.entry["method"])
                continue
            return await self._operation(operation, match.groupdict(), scope, receive)
        if allowed:
            raise MockError(
                405,
                {"code": "METHOD_NOT_ALLOWED", "message": "Method Not Allowed", "details": []},
                {"Allow": ", ".join(allowed)},
            )
        raise _error(404, "NOT_FOUND", "Not Found")

    async def _operation(
        self, operation: _Operation, path_params: dict[str, str], scope: Scope, receive: Receive
    ) -> tuple[int, bytes | None, dict[str, str]]:
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        prefs = parse_prefer(headers["prefer"]) if "prefer" in headers else {}
        operation.authenticate(headers)
        query = dict(parse_qsl(scope["query_string"].decode("latin-1"), keep_blank_values=True))
        operation.check_parameters(path_params, query, headers)
        if operation.entry["body"] is not None:
            operation.check_body(await _read_body(receive), headers.get("content-type", ""))
        status, name = operation.choose(prefs)
        dynamic = prefs["dynamic"] == "true" if "dynamic" in prefs else self.dynamic
        if dynamic and name is None:
            seed = int(prefs["seed"]) if "seed" in prefs else self.seed
            body = operation.dynamic(status, random.Random(seed), path_params)
        else:
            body = operation.example(status, name, path_params)
            if body is None:  # no documented example: one generated from the schema, the same every time
                body = operation.dynamic(status, random.Random(self.seed or 0), path_params)
        return int(status), body, operation.headers[status]


async def _read_body(receive: Receive) -> bytes:
    parts, size = [], 0
    while True:
        message = await receive()
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise _error(413, "PAYLOAD_TOO_LARGE", f"the request body exceeds {MAX_BODY_BYTES} bytes")
        parts.append(chunk)
        if not message.get("more_body", False):
            return b"".join(parts)
