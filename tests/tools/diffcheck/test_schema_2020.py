"""The engine on JSON Schema 2020-12 references and on sunset dates: `$dynamicRef`, anchors, `$defs`, cycles."""

from __future__ import annotations

import copy
import datetime as dt
from typing import Any

from accessgov_tools.diffcheck.compare import compare
from accessgov_tools.diffcheck.config import DiffConfig
from accessgov_tools.diffcheck.lifecycle import INVALID, sunset


def _doc(schema: dict[str, Any], components: dict[str, Any]) -> dict[str, Any]:
    body = {"content": {"application/json": {"schema": schema}}, "required": True}
    return {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "paths": {"/a": {"post": {"requestBody": body, "responses": {"200": {"description": "OK"}}}}},
        "components": {"schemas": components},
    }


def _checks(base: dict[str, Any], edit: Any) -> list[str]:
    head = copy.deepcopy(base)
    edit(head)
    head["info"]["version"] = "2"
    return [f.check for f in compare(base, head)]


def test_a_dynamic_ref_is_followed_to_its_anchor() -> None:
    tree = {
        "$dynamicAnchor": "node",
        "type": "object",
        "properties": {"name": {"type": "string", "maxLength": 50}, "children": {"$dynamicRef": "#node"}},
    }
    base = _doc({"$ref": "#/components/schemas/Tree"}, {"Tree": tree})

    def narrow(doc: dict[str, Any]) -> None:
        doc["components"]["schemas"]["Tree"]["properties"]["name"]["maxLength"] = 10

    assert _checks(base, narrow) == ["request-property-max-length-decreased"]


def test_defs_and_cycles_terminate_and_report_once() -> None:
    node = {
        "type": "object",
        "$defs": {"leaf": {"type": "string"}},
        "properties": {
            "next": {"$ref": "#/components/schemas/Node"},
            "value": {"$ref": "#/components/schemas/Node/$defs/leaf"},
        },
    }
    base = _doc({"$ref": "#/components/schemas/Node"}, {"Node": node})

    def change_leaf(doc: dict[str, Any]) -> None:
        doc["components"]["schemas"]["Node"]["$defs"]["leaf"]["type"] = "integer"

    assert _checks(base, change_leaf) == ["request-property-type-changed"]


def test_sunset_dates_in_every_spelling() -> None:
    assert sunset({"x-sunset": "2026-08-10"}) == dt.date(2026, 8, 10)
    assert sunset({"x-sunset": dt.date(2026, 8, 10)}) == dt.date(2026, 8, 10)  # unquoted in YAML
    assert sunset({"x-sunset": "2026-08-10T00:00:00Z"}) == dt.date(2026, 8, 10)
    assert sunset({"x-sunset": "soon"}) == INVALID
    assert sunset({}) is None


def test_removal_is_breaking_only_before_the_sunset() -> None:
    op = {"deprecated": True, "x-sunset": "2026-08-10", "responses": {"200": {"description": "OK"}}}
    base = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {"/a": {"get": op}}}
    head = {"openapi": "3.1.0", "info": {"title": "t", "version": "2"}, "paths": {}}
    before = compare(base, head, config=DiffConfig(), today=dt.date(2026, 8, 9))
    after = compare(base, head, config=DiffConfig(), today=dt.date(2026, 8, 10))
    assert [f.check for f in before] == ["api-removed-before-sunset"]
    assert [f.check for f in after] == ["api-removed-with-deprecation"]


def test_a_grace_period_requires_a_far_enough_sunset() -> None:
    base = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {"/a": {"get": {"responses": {}}}}}
    head = copy.deepcopy(base)
    head["paths"]["/a"]["get"].update({"deprecated": True, "x-sunset": "2026-09-01"})
    head["info"]["version"] = "2"
    today = dt.date(2026, 8, 1)
    strict = [f.check for f in compare(base, head, config=DiffConfig(days_stable=60), today=today)]
    lenient = [f.check for f in compare(base, head, config=DiffConfig(days_stable=30), today=today)]
    assert strict == ["api-sunset-date-too-small", "endpoint-deprecated-with-sunset"]
    assert lenient == ["endpoint-deprecated-with-sunset"]
