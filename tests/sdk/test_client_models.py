"""The generated client's models (`generated/client/accessgov_client`): open enums, optional and null members."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest

from tests.support.bundle import CLIENT_DIR, bundle, open_enum_names

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def client_models() -> Iterator[ModuleType]:
    """`accessgov_client.models`, imported from the committed tree (no install needed)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(CLIENT_DIR))
        yield importlib.import_module("accessgov_client.models")


def test_every_open_enum_is_an_enum_named_after_its_schema(client_models: ModuleType) -> None:
    for name in open_enum_names(bundle()):
        enum = getattr(client_models, name)
        assert {member.value for member in enum} == set(bundle()["components"]["schemas"][name]["anyOf"][0]["enum"])


def test_unknown_enum_values_parse_and_keep_the_raw_string(client_models: ModuleType) -> None:
    document = {
        "state": "TASK_STATE_SOMETHING_NEW",
        "actions": ["TASK_ACTION_TYPE_CLOSE", "TASK_ACTION_TYPE_SOMETHING_NEW"],
        "type": {"grant": {"outcome": "GRANT_OUTCOME_SOMETHING_NEW"}},
    }
    task = client_models.Task.from_dict(document)
    assert task.state == "TASK_STATE_SOMETHING_NEW" and isinstance(task.state, str)
    assert task.actions[1] == "TASK_ACTION_TYPE_SOMETHING_NEW"
    assert task.type_.grant.outcome == "GRANT_OUTCOME_SOMETHING_NEW"
    assert task.to_dict() == document


def test_known_enum_values_are_members(client_models: ModuleType) -> None:
    task = client_models.Task.from_dict({"state": "TASK_STATE_OPEN", "actions": ["TASK_ACTION_TYPE_RESTART"]})
    assert task.state is client_models.TaskState.TASK_STATE_OPEN
    assert task.state == "TASK_STATE_OPEN"
    assert task.actions == [client_models.TaskActionType.TASK_ACTION_TYPE_RESTART]


def test_missing_and_null_members(client_models: ModuleType) -> None:
    from accessgov_client.types import UNSET

    task = client_models.Task.from_dict({})
    assert task.state is UNSET and task.created_at is UNSET and task.to_dict() == {}
    nullable: dict[str, Any] = {"createdAt": None, "type": None, "policy": None, "actions": None}
    task = client_models.Task.from_dict(nullable)
    assert task.created_at is None and task.type_ is None and task.actions is None
    assert task.to_dict() == nullable


def test_union_objects_are_typed_classes(client_models: ModuleType) -> None:
    """TaskType, PolicyStep, ... are classes with every member optional (not `Any`), see
    tools/accessgov_tools/generate.py."""
    example = bundle()["components"]["examples"]["RestartResponse"]["value"]
    response = client_models.TaskActionsServiceRestartResponse.from_dict(example)
    task = response.task_view.task
    assert isinstance(task.type_, client_models.TaskType)
    assert task.type_.grant.app_entitlement_id == "ent-0001"
    assert isinstance(task.policy.current, client_models.PolicyStepInstance)
    assert isinstance(task.policy.next_[0], client_models.PolicyStep)
    assert response.expanded[0].type_ == "type.googleapis.com/svc.api.user.v1.User"
    assert response.expanded[0]["email"] == "ada@example.com"
