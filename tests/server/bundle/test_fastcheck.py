"""The compiled schema checks agree with jsonschema on every schema they accept to compile."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from accessgov.bundle.fastcheck import compile_check
from accessgov.bundle.reader import BUNDLE_URI

BUNDLE = json.loads((Path(__file__).resolve().parents[3] / "generated" / "openapi.json").read_text())
REGISTRY = Registry().with_resource(BUNDLE_URI, Resource.from_contents(BUNDLE, default_specification=DRAFT202012))


def _resolve(ref: str) -> Any:
    node: Any = BUNDLE
    for part in ref.removeprefix("#/").split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


SCHEMAS = {f"schemas/{name}": f"#/components/schemas/{name}" for name in BUNDLE["components"]["schemas"]}
SCHEMAS |= {
    f"parameters/{name}": f"#/components/parameters/{name}/schema" for name in BUNDLE["components"]["parameters"]
}
COMPILED = {name: compile_check({"$ref": ref}, _resolve) for name, ref in SCHEMAS.items()}
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4),
    max_leaves=12,
)


def test_the_request_path_schemas_compile() -> None:
    for name in ("schemas/TaskActionsServiceRestartRequest", "schemas/WebhookPayload", "parameters/WebhookEventId"):
        assert COMPILED[name] is not None, name


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(name for name, check in COMPILED.items() if check is not None))
@settings(max_examples=25, deadline=None, derandomize=True)
@given(value=JSON)
def test_same_verdict_as_jsonschema(name: str, value: Any) -> None:
    validator = Draft202012Validator(
        {"$ref": f"{BUNDLE_URI}{SCHEMAS[name]}"}, registry=REGISTRY, format_checker=Draft202012Validator.FORMAT_CHECKER
    )
    check = COMPILED[name]
    assert check is not None
    assert check(value) == validator.is_valid(value)


@pytest.mark.parametrize(
    "body",
    [
        {"comment": "x" * 4097},
        {"expandMask": {"paths": ["nope"]}},
        {"expandMask": {"paths": "*"}},
        {"expandMask": None, "comment": 3},
        {"expandMask": {"paths": None}, "policyStepId": "s", "extra": [1]},
        {"comment": "ok", "expandMask": {"paths": ["*", "user_id"]}},
    ],
)
def test_restart_bodies_agree(body: Any) -> None:
    name = "schemas/TaskActionsServiceRestartRequest"
    validator = Draft202012Validator({"$ref": f"{BUNDLE_URI}{SCHEMAS[name]}"}, registry=REGISTRY)
    assert COMPILED[name] is not None and COMPILED[name](body) == validator.is_valid(body)
