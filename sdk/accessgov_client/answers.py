"""A 2xx answer's body read as the operation's result, or `UndecodableResponseError`: never a raw `ValueError`,
`KeyError`, `TypeError` or `RecursionError` of the generated parsing.

The server is untrusted (docs/security.md): a 2xx body must be what the contract says the operation returns, a JSON
object of the operation's schema, sent as JSON (`application/json` or a `+json` type, or no `Content-Type` at all)
in UTF-8. What is refused: a body that is not JSON (HTML, empty, cut short, nested deeper than the decoder
recurses), not UTF-8, labelled another media type, a top-level array, string, number or `null` where the operation
returns an object, and an object whose members the generated model cannot read (`{"list": "nope"}`). What is kept:
members the SDK does not know, and enumeration values it has never seen (open enums: the value as a `str`).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Final

import attrs
import httpx

from .exceptions import UndecodableResponseError, shown

__all__ = ["JSON_TYPES", "parsed_result"]

JSON_TYPES: Final = ("application/json",)
_WHITESPACE: Final = b" \t\r\n"
_BOM: Final = b"\xef\xbb\xbf"
# What the generated `from_dict` code and `json.loads` raise on a body of the wrong shape or syntax (UnicodeDecodeError
# and JSONDecodeError are ValueErrors; RecursionError: JSON nested deeper than the decoder recurses).
_PARSE_ERRORS: Final = (ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError, OverflowError)
_SHOWN: Final = 200  # characters of an error's text kept in the message


def is_json_type(content_type: str) -> bool:
    """Whether a `Content-Type` names JSON: `application/json` or a structured `+json` type, any parameters."""
    media = content_type.split(";", 1)[0].strip().lower()
    return media in JSON_TYPES or (media.startswith("application/") and media.endswith("+json"))


def _refused(name: str, response: httpx.Response, why: str) -> UndecodableResponseError:
    message = f"{name}: HTTP {response.status_code}: {shown(why, 400)}"
    return UndecodableResponseError(message, request=response.request)


def _first_byte(content: bytes) -> bytes:
    return content.removeprefix(_BOM).lstrip(_WHITESPACE)[:1]


def parsed_result(name: str, module: ModuleType, client: Any, response: httpx.Response) -> Any:
    """The result of operation `name` (its generated `module`) from a 2xx `response`, or
    `UndecodableResponseError` saying why the body is not one."""
    content = response.content
    content_type = response.headers.get("content-type", "")
    if content.strip(_WHITESPACE) and content_type and not is_json_type(content_type):
        raise _refused(name, response, f"the body is {content_type[:100]!r}, not the JSON the operation returns")
    try:
        content.decode("utf-8")
    except UnicodeDecodeError as error:
        raise _refused(name, response, f"the body is not UTF-8 ({str(error)[:_SHOWN]})") from error
    try:
        parsed = module._build_response(client=client, response=response).parsed
    except RecursionError as error:
        raise _refused(name, response, "the body's JSON is nested deeper than the SDK reads") from error
    except _PARSE_ERRORS as error:
        text = f"{type(error).__name__}: {str(error)[:_SHOWN]}"
        raise _refused(name, response, f"the body is not the JSON the operation returns ({text})") from error
    if attrs.has(type(parsed)) and _first_byte(content) != b"{":
        kind = {b"[": "an array", b'"': "a string", b"n": "null"}.get(_first_byte(content), "not an object")
        raise _refused(name, response, f"the body is {kind}, where the operation returns a JSON object")
    return parsed
