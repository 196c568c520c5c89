"""The contract as the validation proxy checks it: one `OperationContract` per operation of the bundle.

Requests are checked for what the contract asks of a client (credentials present for one security requirement,
parameters, body); responses for what it promises (status documented, content type, required headers, body
valid against the response schema). Each check returns human-readable problems, empty when all is well.

A problem names what failed and where (the schema keyword, a parameter or header name, a JSON pointer), never the
value: request values may be secrets (a client secret in a form, a token), and response values too.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from jsonschema.exceptions import ValidationError, best_match

from accessgov import jsoncodec
from accessgov.bundle.reader import Schemas, coerce, escape, operations_from_bundle, path_regex, present

# The body limit of every operation documenting a 413 (components/responses/PayloadTooLarge: 65,536 bytes).
CONTRACT_MAX_BODY = 64 * 1024
SCHEMA_VALUE_CHARS = 64


@dataclass(frozen=True)
class Problem:
    """One contract violation: `kind` is stable (`response.status`, `request.parameter`...), `message` is not."""

    kind: str
    message: str


def _failed(error: ValidationError) -> str:
    """What a value failed, without the value: `maxLength 1024 at /comment` (the keyword's value is the schema's)."""
    expected = repr(error.validator_value)
    if len(expected) > SCHEMA_VALUE_CHARS:
        expected = expected[:SCHEMA_VALUE_CHARS] + "..."
    where = "/" + "/".join(escape(str(part)) for part in error.absolute_path)
    return f"fails {error.validator} {expected} at {where}"


class OperationContract:
    """What one operation accepts and answers."""

    def __init__(self, entry: dict[str, Any], schemas: Schemas) -> None:
        self.operation_id: str = entry["operation_id"]
        self.method: str = entry["method"]
        self.path: str = entry["path"]
        self.regex = path_regex(self.path)
        self.parameters = [(param, schemas.validator(param["schema"])) for param in entry["parameters"]]
        body = entry["body"] or {"required": False, "content": {}}
        self.body = {media: schemas.validator(pointer) for media, pointer in body["content"].items()}
        self.body_required: bool = body["required"]
        self.security = [[needed for _, needed in requirement] for requirement in entry["security"]]
        self.responses: dict[str, dict[str, Any]] = {
            status: {
                "content": {
                    media: (schemas.check(pointer), schemas.validator(pointer)) if pointer else None
                    for media, pointer in response["content"].items()
                },
                "headers": {
                    name.lower(): schemas.validator(header["schema"])
                    for name, header in response["headers"].items()
                    if header["required"]
                },
            }
            for status, response in entry["responses"].items()
        }
        self.max_body: int | None = CONTRACT_MAX_BODY if "413" in self.responses else None

    def check_request(
        self, path_params: dict[str, str], query: dict[str, str], headers: dict[str, str], body: bytes
    ) -> list[Problem]:
        problems = []
        optional = not self.security or any(not requirement for requirement in self.security)
        if not optional and not any(all(present(headers, c) for c in r) for r in self.security):
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
            try:
                value = coerce(param["type"], raw)
            except ValueError:
                problems.append(Problem("request.parameter", f"{where} parameter {name} is not an integer"))
                continue
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


class Contract:
    """Every operation of a bundle, found by method and path."""

    def __init__(self, doc: dict[str, Any]) -> None:
        schemas = Schemas(doc)
        self.operations = [OperationContract(entry, schemas) for entry in operations_from_bundle(doc)]

    def find(self, method: str, path: str) -> tuple[OperationContract, dict[str, str]] | None:
        for operation in self.operations:
            if operation.method == method:
                match = operation.regex.match(path)
                if match:
                    return operation, match.groupdict()
        return None
