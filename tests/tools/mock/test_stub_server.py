"""The generated stub server over real HTTP: validation, security presence, `Prefer`, dynamic bodies, ids."""

from __future__ import annotations

import ast
import json
import random
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from generated.stub_server import create_app
from generated.stub_server.dynamic import generate
from generated.stub_server.mock import _pointer, _resolver
from generated.stub_server.operations import OPERATIONS
from tests.support import loopback
from tests.support.harness import serve

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[3]
STUB_DIR = REPO / "generated" / "stub_server"
BUNDLE = json.loads((REPO / "generated" / "openapi.json").read_text(encoding="utf-8"))
ENTITLEMENTS = "/api/v1/apps/app-github/entitlements"
RESTART = "/api/v1/tasks/{task_id}/action/restart"
TOKEN = {"Authorization": "Bearer anything"}
STUB_APP = create_app()


@pytest.fixture(scope="module")
def stub() -> Iterator[httpx.Client]:
    with serve(create_app(seed=7)) as base_url, loopback.client(base_url=base_url, timeout=10) as client:
        yield client


def _validator(pointer: str) -> Draft202012Validator:
    registry = Registry().with_resource("urn:b", Resource.from_contents(BUNDLE, default_specification=DRAFT202012))
    return Draft202012Validator({"$ref": f"urn:b#{pointer}"}, registry=registry)


def _schema_of(path: str, method: str, status: str) -> str:
    entry = next(e for e in OPERATIONS if e["path"] == path and e["method"] == method)
    return entry["responses"][status]["schema"]


def test_generated_code_imports_nothing_from_accessgov() -> None:
    for module in STUB_DIR.glob("*.py"):
        tree = ast.parse(module.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            ours = ("accessgov", "accessgov_tools", "benchmarks", "tests")
            assert not [n for n in names if n.split(".")[0] in ours], module.name


def test_example_by_default(stub: httpx.Client) -> None:
    response = stub.get(ENTITLEMENTS, headers=TOKEN)
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    assert body["nextPageToken"]  # firstPage, the first documented example
    assert _validator(_schema_of("/api/v1/apps/{app_id}/entitlements", "GET", "200")).is_valid(body)


def test_missing_bearer_is_401_with_the_error_body(stub: httpx.Client) -> None:
    response = stub.get(ENTITLEMENTS)
    assert response.status_code == 401
    assert response.json()["code"] == "UNAUTHENTICATED"
    assert "www-authenticate" in response.headers
    assert stub.get(ENTITLEMENTS, headers={"Authorization": "Basic eDp5"}).status_code == 401


def test_invalid_parameter_is_400_with_its_error_code(stub: httpx.Client) -> None:
    response = stub.get(ENTITLEMENTS, params={"page_size": "ten"}, headers=TOKEN)
    assert response.status_code == 400
    assert response.json()["code"] == "INVALID_PAGE_SIZE"
    reason = "query parameter page_size must be an integer"
    assert response.json()["details"] == [{"location": "query", "name": "page_size", "reason": reason}]


def test_invalid_body_is_400(stub: httpx.Client) -> None:
    path = RESTART.format(task_id="t1")
    response = stub.post(path, content=b"{", headers={**TOKEN, "Content-Type": "application/json"})
    assert (response.status_code, response.json()["code"]) == (400, "INVALID_JSON")
    response = stub.post(path, json={"expandMask": {"paths": ["nope"]}}, headers=TOKEN)
    assert (response.status_code, response.json()["code"]) == (400, "INVALID_ARGUMENT")
    response = stub.post(path, content=b"x", headers={**TOKEN, "Content-Type": "text/plain"})
    assert (response.status_code, response.json()["code"]) == (400, "INVALID_CONTENT_TYPE")


def test_token_endpoint_answers_in_rfc6749_shape(stub: httpx.Client) -> None:
    response = stub.post("/auth/v1/token", data={"grant_type": "password"})
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_request"
    response = stub.post("/auth/v1/token", data={"grant_type": "client_credentials", "client_id": "c"})
    assert response.status_code == 200
    assert response.headers["cache-control"]


def test_unknown_route_and_method(stub: httpx.Client) -> None:
    assert stub.get("/nope").json()["code"] == "NOT_FOUND"
    response = stub.delete(ENTITLEMENTS, headers=TOKEN)
    assert (response.status_code, response.headers["allow"]) == (405, "GET")


def test_prefer_code_and_named_example(stub: httpx.Client) -> None:
    response = stub.get(ENTITLEMENTS, headers={**TOKEN, "Prefer": "code=404"})
    assert (response.status_code, response.json()["code"]) == (404, "NOT_FOUND")
    response = stub.get(ENTITLEMENTS, headers={**TOKEN, "Prefer": "example=lastPage"})
    assert (response.status_code, response.json()["nextPageToken"]) == (200, "")
    response = stub.get(ENTITLEMENTS, headers={**TOKEN, "Prefer": "code=200, example=lastPage"})
    assert response.json()["nextPageToken"] == ""


@pytest.mark.parametrize(
    ("prefer", "says"),
    [
        ("colour=blue", "unknown preference 'colour'"),
        ("code=418", "code=418"),
        ("example=nope", "'nope'"),
        ("dynamic=maybe", "dynamic"),
        ("dynamic=true, seed=x", "seed"),
    ],
)
def test_unusable_preferences_are_422(stub: httpx.Client, prefer: str, says: str) -> None:
    response = stub.get(ENTITLEMENTS, headers={**TOKEN, "Prefer": prefer})
    assert response.status_code == 422
    assert response.json()["code"] == "MOCK_INVALID_PREFER"
    assert says in response.json()["message"]


def test_dynamic_bodies_are_valid_and_seeded(stub: httpx.Client) -> None:
    for entry in OPERATIONS:
        for status, response_spec in entry["responses"].items():
            if response_spec["schema"] is None:
                continue
            validator = _validator(response_spec["schema"])
            for seed in range(15):
                operation = next(o for o in STUB_APP.operations if o.entry is entry)
                # The generator itself, not `dynamic()`, which would fall back to the example on a miss.
                value = generate(_pointer(BUNDLE, response_spec["schema"]), _resolver(BUNDLE), random.Random(seed))
                assert validator.is_valid(value), (entry["operation_id"], status, seed)
                body = operation.dynamic(status, random.Random(seed), {})
                json_body = response_spec["media"] == "application/json"
                assert (json.loads(body) if json_body else body.decode()) == value
    first = stub.get(ENTITLEMENTS, headers={**TOKEN, "Prefer": "dynamic=true, seed=42"})
    again = stub.get(ENTITLEMENTS, headers={**TOKEN, "Prefer": "dynamic=true, seed=42"})
    other = stub.get(ENTITLEMENTS, headers={**TOKEN, "Prefer": "dynamic=true, seed=43"})
    assert first.status_code == 200
    assert first.content == again.content != other.content
    assert first.json() != stub.get(ENTITLEMENTS, headers=TOKEN).json()
    assert _validator(_schema_of("/api/v1/apps/{app_id}/entitlements", "GET", "200")).is_valid(first.json())


def test_restart_of_an_id_taken_from_a_list_answers_with_that_id(stub: httpx.Client) -> None:
    listed = stub.get(ENTITLEMENTS, headers=TOKEN).json()
    entitlement_id = listed["list"][1]["appEntitlement"]["id"]
    response = stub.post(RESTART.format(task_id=entitlement_id), json={}, headers=TOKEN)
    assert response.status_code == 200
    assert response.json()["taskView"]["task"]["id"] == entitlement_id
    other = stub.get("/api/v1/apps/app-okta/entitlements", headers=TOKEN).json()
    assert {item["appEntitlement"]["appId"] for item in other["list"]} == {"app-okta"}


def test_operations_without_examples_answer_with_a_generated_body(stub: httpx.Client) -> None:
    document = stub.get("/openapi.json")
    assert document.status_code == 200
    assert _validator(_schema_of("/openapi.json", "GET", "200")).is_valid(document.json())
    assert document.content == stub.get("/openapi.json").content
    page = stub.get("/docs")
    assert (page.status_code, page.headers["content-type"]) == (200, "text/html")
    assert page.text
