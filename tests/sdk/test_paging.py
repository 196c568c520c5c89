"""Paging: the paginator walks pages by the operation table, and the table comes from the contract, so a new
list operation that uses the shared page_token parameter pages without SDK code."""

from __future__ import annotations

import asyncio
import copy
from typing import Any

import pytest
from accessgov_client import AccessGov, AsyncAccessGov, PageLimitError, PagingLoopError
from accessgov_client.api.app_entitlements import list_app_entitlements
from accessgov_client.operations import CATALOG

from accessgov_tools.generate import GenerationError, operation_entries
from accessgov_tools.overlay import apply_overlay, load_document, load_overlay
from tests.sdk._fake import Answer, ScriptedServer
from tests.sdk.conftest import REPO

pytestmark = pytest.mark.slow


def page(ids: list[str], token: str) -> Answer:
    return Answer(200, {"list": [{"appEntitlement": {"id": i}} for i in ids], "nextPageToken": token})


def test_paginate_sends_each_next_token_and_yields_every_item() -> None:
    with ScriptedServer(page(["e1", "e2"], "t1"), page(["e3"], "t2"), page([], "")) as fake:
        api = AccessGov(fake.url, token="t")
        ids = [item.app_entitlement.id for item in api.paginate(list_app_entitlements, app_id="a", page_size=10)]
    assert ids == ["e1", "e2", "e3"]
    queries = [seen.path.split("?", 1)[1] for seen in fake.seen]
    assert queries == ["page_size=10", "page_size=10&page_token=t1", "page_size=10&page_token=t2"]


def test_async_paginate() -> None:
    async def main() -> list[str]:
        async with AsyncAccessGov(fake.url, token="t") as api:
            return [item.app_entitlement.id async for item in api.paginate("list_app_entitlements", app_id="a")]

    with ScriptedServer(page(["e1"], "t1"), page(["e2"], "")) as fake:
        assert asyncio.run(main()) == ["e1", "e2"]


def test_a_repeated_token_stops_the_walk() -> None:
    with ScriptedServer(page(["e1"], "same"), page(["e2"], "same")) as fake:
        walk = AccessGov(fake.url, token="t").paginate("list_app_entitlements", app_id="a")
        with pytest.raises(PagingLoopError, match="twice"):
            list(walk)
    assert len(fake.seen) == 2


def test_max_pages_bounds_the_walk() -> None:
    with ScriptedServer(page(["e1"], "t1"), page(["e2"], "t2"), page(["e3"], "t3")) as fake:
        walk = AccessGov(fake.url, token="t").paginate("list_app_entitlements", app_id="a", max_pages=2)
        with pytest.raises(PageLimitError, match="max_pages=2"):
            list(walk)


def test_only_paged_operations_paginate() -> None:
    api = AccessGov("http://127.0.0.1:9", token="t")
    with pytest.raises(ValueError, match="not a paged operation"):
        api.paginate("restart_task", "1001")
    with pytest.raises(ValueError, match="unknown operation"):
        api.paginate("list_everything")
    with pytest.raises(AttributeError):
        api.list_everything  # noqa: B018


def test_the_committed_table_marks_the_list_operation() -> None:
    paging = CATALOG.get("list_app_entitlements").paging
    assert paging is not None and (paging.token_param, paging.next_token, paging.items) == (
        "page_token",
        "next_page_token",
        "list_",
    )
    assert CATALOG.get("restart_task").paging is None and not CATALOG.get("restart_task").idempotent
    assert CATALOG.get("receive_webhook").idempotent


def _sdk_variant_with(extra_path: str, operation: dict[str, Any]) -> dict[str, Any]:
    bundle = load_document(REPO / "generated" / "openapi.yaml")
    bundle["paths"][extra_path] = {"get": operation}
    return apply_overlay(load_overlay(REPO / "overlays" / "sdk.yaml"), bundle)


def test_a_new_list_operation_pages_without_sdk_code() -> None:
    listing = copy.deepcopy(
        load_document(REPO / "generated" / "openapi.yaml")["paths"]["/api/v1/apps/{app_id}/entitlements"]["get"]
    )
    listing.update(operationId="svc.api.app.v1.AppResourcesService.List", tags=["App Resources"])
    listing["responses"]["200"].pop("links", None)
    variant = _sdk_variant_with("/api/v1/apps/{app_id}/resources", listing)
    entries = {entry["name"]: entry for entry in operation_entries(variant)}
    new = entries["svc_api_app_v_1_app_resources_service_list"]
    assert new["paging"] == {"token_param": "page_token", "next_token": "next_page_token", "items": "list_"}
    assert new["idempotent"] and new["module"].startswith("accessgov_client.api.app_resources.")


def test_a_wrong_paging_declaration_fails_generation() -> None:
    variant = load_document(REPO / "generated" / "variants" / "sdk.yaml")
    variant["paths"]["/api/v1/apps/{app_id}/entitlements"]["get"]["x-paginated"]["items"] = "entries"
    with pytest.raises(GenerationError, match=r"x-paginated\.items"):
        operation_entries(variant)
