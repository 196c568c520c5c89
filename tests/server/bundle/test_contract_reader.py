"""One bundle reader (`accessgov.bundle`) for the engine, the proxy and the mock: they route the same operations
and judge integer parameters alike, exactly to 19 digits and by sign beyond (so an int64 bound judges every value)."""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from starlette.routing import Route

from accessgov.bundle.reader import Schemas, coerce, operations_from_bundle, parse_integer, present
from accessgov.http.context import HandlerSpec, RequestContext
from accessgov.http.engine import build_app, load_bundle
from accessgov.proxy.contract import Contract
from generated.stub_server.mock import MockApp
from generated.stub_server.operations import OPERATIONS

BUNDLE = load_bundle()
INT64 = {"type": "integer", "format": "int64", "minimum": -(2**63), "maximum": 2**63 - 1}
# A bundle of one operation: an int64-bounded parameter, and an unbounded one as the contract's page_size is.
DOC: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "t", "version": "1"},
    "paths": {
        "/items": {
            "get": {
                "operationId": "List",
                "parameters": [
                    {"name": "bounded", "in": "query", "schema": INT64},
                    {"name": "unbounded", "in": "query", "schema": {"$ref": "#/components/schemas/Unbounded"}},
                ],
                "responses": {
                    "200": {"description": "ok", "content": {"application/json": {"schema": {}, "example": {}}}}
                },
            }
        }
    },
    "components": {"schemas": {"Unbounded": BUNDLE["components"]["parameters"]["PageSize"]["schema"]}},
}
BIG = "9" * 19  # above int64's maximum, within 19 digits: exact
# value -> (valid for the int64-bounded parameter, valid for the unbounded one)
VERDICTS = {
    "0": (True, True),
    "-0": (True, True),
    "+5": (True, True),
    "9223372036854775807": (True, True),
    "-9223372036854775808": (True, True),
    BIG: (False, True),
    "9" * 20: (False, True),
    "0" * 30 + "7": (True, True),  # leading zeros are no digits of the value
    "-" + "9" * 25: (False, True),
    "1" * 5000: (False, True),
    "١٢": (False, False),  # Arabic-Indic digits: not ASCII
    " 1": (False, False),
    "1.0": (False, False),
    "": (False, False),
    "--1": (False, False),
}


async def _answer(ctx: RequestContext) -> tuple[int, dict[str, Any]]:
    return 200, {}


async def _statuses(app: Any, name: str) -> dict[str, int]:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as client:
        return {value: (await client.get(f"/items?{name}={quote(value, safe='')}")).status_code for value in VERDICTS}


@pytest.mark.parametrize("name", ["bounded", "unbounded"])
def test_engine_proxy_and_mock_judge_integers_alike(name: str) -> None:
    expected = {value: verdict[name == "unbounded"] for value, verdict in VERDICTS.items()}
    operations = operations_from_bundle(DOC)
    engine = build_app(operations, DOC, {"List": HandlerSpec(_answer)})
    assert {v: s == 200 for v, s in asyncio.run(_statuses(engine, name)).items()} == expected
    mock = MockApp(operations, DOC)
    assert {v: s == 200 for v, s in asyncio.run(_statuses(mock, name)).items()} == expected
    found = Contract(DOC).find("GET", "/items")
    assert found is not None
    proxy = {value: not found[0].check_request({}, {name: value}, {}, b"") for value in VERDICTS}
    assert proxy == expected


@pytest.mark.parametrize(
    ("authorization", "credential", "expected"),
    [
        ("Bearer abc", "bearer", True),
        ("bearer abc", "bearer", True),
        ("Bearer ", "bearer", False),
        ("Bearer", "bearer", False),
        ("Basic eDp5", "bearer", False),  # another scheme
        ("Basic eDp5", "basic", True),  # x:y
        ("Basic eHk=", "basic", False),  # xy: no colon
        ("Basic not-base64!", "basic", False),
        ("Basic /w==", "basic", False),  # not UTF-8
    ],
)
def test_credentials_present(authorization: str, credential: str, expected: bool) -> None:
    """The one rule the mock and the proxy share for 'credentials present'."""
    assert present({"authorization": authorization}, credential) is expected


def test_api_key_credentials_present() -> None:
    assert present({"x-api-key": "k"}, "header:x-api-key")
    assert not present({"x-api-key": ""}, "header:x-api-key")
    assert not present({"authorization": "Bearer k"}, "header:x-api-key")


def test_parse_integer() -> None:
    assert [parse_integer(v) for v in ("0", "-0", "+5", BIG, "-" + "9" * 20)] == [0, 0, 5, int(BIG), -(10**19)]
    assert parse_integer("1" * 100_000) == 10**19  # never int() of the digits
    assert parse_integer("-" + "0" * 40 + "12") == -12
    assert [parse_integer(v) for v in ("١٢", " 1", "1.0", "", "+", "0x1")] == [None] * 6
    assert (coerce("boolean", "true"), coerce("boolean", "false"), coerce("boolean", "True")) == (True, False, "True")
    with pytest.raises(ValueError):
        coerce("integer", "1e3")


def test_engine_proxy_and_mock_route_the_same_operations() -> None:
    table = operations_from_bundle(BUNDLE)
    assert table == OPERATIONS  # the mock's generated table is the reader's
    routes = [(e["operation_id"], e["method"], e["path"]) for e in table]
    contract = Contract(BUNDLE)
    assert [(o.operation_id, o.method, o.path) for o in contract.operations] == routes
    engine = build_app(table, BUNDLE, {e["operation_id"]: HandlerSpec(_answer) for e in table})
    served = [(r.name, *(r.methods or set()) - {"HEAD"}, r.path) for r in engine.routes if isinstance(r, Route)]
    assert sorted(served) == sorted(routes)
    # A concrete path of each template finds its own operation in the proxy and in the mock.
    mock = MockApp(table, BUNDLE)
    for operation_id, method, path in routes:
        concrete = path.replace("{", "x").replace("}", "")
        found = contract.find(method, concrete)
        assert found is not None and found[0].operation_id == operation_id
        matched = [o for o in mock.operations if o.entry["method"] == method and o.regex.match(concrete)]
        assert matched[0].entry["operation_id"] == operation_id


def test_validators_are_shared_per_schema() -> None:
    schemas = Schemas(BUNDLE)
    pointer = "/components/parameters/PageSize/schema"
    assert schemas.validator(pointer) is schemas.validator(pointer)
    assert schemas.check(pointer)(25) and not schemas.check(pointer)("25")
