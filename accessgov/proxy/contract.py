"""The contract as the validation proxy checks it: one `OperationContract` per operation of the bundle.

Requests are checked for what the contract asks of a client (credentials present for one security requirement,
parameters, body); responses for what it promises (status documented, content type, required headers, body
valid against the response schema). Each check returns human-readable problems, empty when all is well.

A problem names what failed and where (the schema keyword, a parameter or header name, a JSON pointer), never the
value: request values may be secrets (a client secret in a form, a token), and response values too.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from accessgov import jsoncodec
from accessgov.http.fastcheck import Check, compile_check

BUNDLE_URI = "urn:accessgov:proxy-bundle"
HTTP_METHODS = ("get", "put", "post", "delete", "patch")
INTEGER = re.compile(r"[+-]?[0-9]{1,19}", re.ASCII)
# The body limit of every operation documenting a 413 (components/responses/PayloadTooLarge: 65,536 bytes).
CONTRACT_MAX_BODY = 64 * 1024
SCHEMA_VALUE_CHARS = 64


@dataclass(frozen=True)
class Problem:
    """One contract violation: `kind` is stable (`response.status`, `request.parameter`...), `message` is not."""

    kind: str
    message: str


def _pointer(doc: Any, pointer: str) -> Any:
    node = doc
    for part in pointer.lstrip("#").lstrip("/").split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def _deref(doc: dict[str, Any], node: Any) -> Any:
    while isinstance(node, dict) and str(node.get("$ref", "")).startswith("#/"):
        node = _pointer(doc, node["$ref"])
    return node


class _Schemas:
    """Validators for schemas of the bundle, compiled once per schema object."""

    def __init__(self, doc: dict[str, Any]) -> None:
        resource = Resource.from_contents(doc, default_specification=DRAFT202012)
        self.registry = Registry().with_resource(BUNDLE_URI, resource)
        self.doc = doc

    def validator(self, pointer: str) -> Draft202012Validator:
        return Draft202012Validator(
            {"$ref": f"{BUNDLE_URI}#{pointer}"},
            registry=self.registry,
            format_checker=Draft202012Validator.FORMAT_CHECKER,
        )

    def check(self, pointer: str) -> Check:
        """A fast validity predicate for the schema at `pointer` (compiled when simple enough)."""
        compiled = compile_check(_pointer(self.doc, pointer), lambda ref: _pointer(self.doc, ref))
        return compiled or self.validator(pointer).is_valid


def _escape(part: str) -> str:
    return part.replace("~", "~0").replace("/", "~1")


def _failed(error: ValidationError) -> str:
    """What a value failed, without the value: `maxLength 1024 at /comment` (the keyword's value is the schema's)."""
    expected = repr(error.validator_value)
    if len(expected) > SCHEMA_VALUE_CHARS:
        expected = expected[:SCHEMA_VALUE_CHARS] + "..."
    where = "/" + "/".join(_escape(str(part)) for part in error.absolute_path)
    return f"fails {error.validator} {expected} at {where}"


class OperationContract:
    """What one operation accepts and answers."""

    def __init__(self, doc: dict[str, Any], schemas: _Schemas, path: str, method: str) -> None:
        item = doc["paths"][path]
        op = item[method]
        base = f"/paths/{_escape(path)}/{method}"
        self.operation_id: str = op.get("operationId", f"{method.upper()} {path}")
        self.method = method.upper()
        self.path = path
        self.regex = re.compile("^" + re.sub(r"\\\{([^}]+)\\\}", r"(?P<\1>[^/]+)", re.escape(path)) + "$")
        self.parameters: list[tuple[dict[str, Any], Draft202012Validator]] = []
        for index, raw in enumerate([*item.get("parameters", []), *op.get("parameters", [])]):
            param = _deref(doc, raw)
            where = raw["$ref"][1:] if "$ref" in raw else f"{base}/parameters/{index}"
            kind = _deref(doc, param.get("schema", {})).get("type", "string")
            self.parameters.append(({**param, "kind": kind}, schemas.validator(f"{where}/schema")))
        self.body: dict[str, Draft202012Validator] = {}
        self.body_required = False
        if "requestBody" in op:
            request_body = _deref(doc, op["requestBody"])
            where = op["requestBody"]["$ref"][1:] if "$ref" in op["requestBody"] else f"{base}/requestBody"
            self.body_required = bool(request_body.get("required", False))
            for media in request_body.get("content", {}):
                self.body[media] = schemas.validator(f"{where}/content/{_escape(media)}/schema")
        schemes = doc.get("components", {}).get("securitySchemes", {})
        self.security = [
            [_credential(schemes.get(name, {})) for name in requirement]
            for requirement in op.get("security", doc.get("security", []))
        ]
        self.responses: dict[str, dict[str, Any]] = {}
        for status, raw in op.get("responses", {}).items():
            response = _deref(doc, raw)
            where = raw["$ref"][1:] if "$ref" in raw else f"{base}/responses/{status}"
            content = {
                media: (
                    (
                        schemas.check(f"{where}/content/{_escape(media)}/schema"),
                        schemas.validator(f"{where}/content/{_escape(media)}/schema"),
                    )
                    if "schema" in spec
                    else None
                )
                for media, spec in response.get("content", {}).items()
            }
            headers = {
                name.lower(): schemas.validator(f"{where}/headers/{_escape(name)}/schema")
                if "$ref" not in header
                else schemas.validator(f"{header['$ref'][1:]}/schema")
                for name, header in response.get("headers", {}).items()
                if _deref(doc, header).get("required", False)
            }
            self.responses[str(status)] = {"content": content, "headers": headers}
        self.max_body: int | None = CONTRACT_MAX_BODY if "413" in self.responses else None

    def check_request(
        self, path_params: dict[str, str], query: dict[str, str], headers: dict[str, str], body: bytes
    ) -> list[Problem]:
        problems = []
        optional = not self.security or any(not requirement for requirement in self.security)
        if not optional and not any(all(_present(headers, c) for c in r) for r in self.security):
            problems.append(Problem("request.security", "no credentials for any security requirement"))
        sources = {"path": path_params, "query": query, "header": headers}
        for param, validator in self.parameters:
            where, name = param["in"], param["name"]
            if where not in sources:
                continue
            raw = sources[where].get(name.lower() if where == "header" else name)
            if raw is None:
                if param.get("required"):
                    problems.append(Problem("request.parameter", f"{where} parameter {name} is required"))
                continue
            value: Any = raw
            if param["kind"] == "integer":
                if not INTEGER.fullmatch(raw):
                    problems.append(Problem("request.parameter", f"{where} parameter {name} is not an integer"))
                    continue
                value = int(raw)
            elif param["kind"] == "boolean" and raw in ("true", "false"):
                value = raw == "true"
            error = best_match(validator.iter_errors(value))
            if error is not None:
                problems.append(Problem("request.parameter", f"{where} parameter {name} {_failed(error)}"))
        problems.extend(self._check_request_body(headers.get("content-type", ""), body))
        return problems

    def _check_request_body(self, content_type: str, body: bytes) -> list[Problem]:
        if not self.body or (not body and not self.body_required):
            return []
        media = content_type.split(";")[0].strip().lower()
        if media not in self.body:
            return [Problem("request.content_type", f"Content-Type is not one of {list(self.body)}")]
        if media == "application/json":
            try:
                value = json.loads(body)
            except (ValueError, RecursionError) as error:  # a position, never the text
                return [Problem("request.body", f"not valid JSON ({type(error).__name__})")]
        elif media == "application/x-www-form-urlencoded":
            value = dict(parse_qsl(body.decode("latin-1")))
        else:
            return []
        failure = best_match(self.body[media].iter_errors(value))
        if failure is None:
            return []
        return [Problem("request.body", f"body {_failed(failure)}")]

    def check_response(self, status: int, headers: dict[str, str], body: bytes | None) -> list[Problem]:
        """`body` None: not buffered (too large to check); the status, content type and headers still are."""
        spec = (
            self.responses.get(str(status)) or self.responses.get(f"{status // 100}XX") or self.responses.get("default")
        )
        if spec is None:
            documented = ", ".join(sorted(self.responses))
            return [Problem("response.status", f"status {status} is not documented (documented: {documented})")]
        problems = []
        for name, validator in spec["headers"].items():
            if name not in headers:
                problems.append(Problem("response.header", f"required header {name} is missing"))
                continue
            error = best_match(validator.iter_errors(headers[name]))
            if error is not None:
                problems.append(Problem("response.header", f"header {name} {_failed(error)}"))
        content = spec["content"]
        media = headers.get("content-type", "").split(";")[0].strip().lower()
        if not content:
            if body:
                problems.append(Problem("response.body", f"status {status} documents no body, got {len(body)} bytes"))
            return problems
        if media not in content:
            shown = media if media in ("", "text/plain", "text/html", "application/json") else "another type"
            problems.append(
                Problem("response.content_type", f"Content-Type {shown or '(none)'} not in {list(content)}")
            )
            return problems
        checks = content[media]
        if body is None or checks is None or not media.endswith("json"):
            return problems
        try:
            value = jsoncodec.loads(body)  # orjson where it reads exactly what json would
        except (ValueError, RecursionError) as error:
            return [*problems, Problem("response.body", f"not valid JSON ({type(error).__name__})")]
        is_valid, validator = checks
        if is_valid(value):  # a compiled predicate where possible; jsonschema only words the error
            return problems
        failure = best_match(validator.iter_errors(value))
        if failure is not None:
            problems.append(Problem("response.body", f"body {_failed(failure)}"))
        return problems


def _credential(scheme: dict[str, Any]) -> str:
    if scheme.get("type") == "apiKey" and scheme.get("in") == "header":
        return f"header:{scheme['name'].lower()}"
    if scheme.get("type") == "http" and str(scheme.get("scheme", "")).lower() == "basic":
        return "basic"
    return "bearer"


def _present(headers: dict[str, str], credential: str) -> bool:
    if credential.startswith("header:"):
        return bool(headers.get(credential.removeprefix("header:")))
    scheme, _, value = headers.get("authorization", "").partition(" ")
    return scheme.lower() == credential and bool(value.strip())


class Contract:
    """Every operation of a bundle, found by method and path."""

    def __init__(self, doc: dict[str, Any]) -> None:
        schemas = _Schemas(doc)
        self.operations = [
            OperationContract(doc, schemas, path, method)
            for path, item in doc.get("paths", {}).items()
            for method in HTTP_METHODS
            if isinstance(item.get(method), dict)
        ]

    def find(self, method: str, path: str) -> tuple[OperationContract, dict[str, str]] | None:
        for operation in self.operations:
            if operation.method == method:
                match = operation.regex.match(path)
                if match:
                    return operation, match.groupdict()
        return None
