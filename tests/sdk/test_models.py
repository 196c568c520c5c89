"""The generated Pydantic models (`generated/models`) against the contract: examples, open enums, unions, types."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Any

import pytest
from pydantic import MISSING, ValidationError

from generated import models
from tests.support.bundle import (
    at_most_one_members,
    bundle,
    component_examples_used,
    documented_examples,
    member_schema,
    minimal_instance,
    model_for,
    one_of_member_groups,
    open_enum_names,
    schemas,
)

pytestmark = pytest.mark.slow

OPEN_ENUMS = open_enum_names({"components": {"schemas": schemas()}})
ALL_EXAMPLES = documented_examples()
# A scalar schema referenced by models (NextPageToken) is inlined into their fields and has no model of its own.
EXAMPLES = [e for e in ALL_EXAMPLES if model_for(e[1]) or e[1] in OPEN_ENUMS]
UNION_SCHEMAS = sorted(name for name, schema in schemas().items() if one_of_member_groups(schema))
AT_MOST_ONE_SCHEMAS = sorted(name for name, schema in schemas().items() if at_most_one_members(name, schema))


def dump(instance: Any) -> Any:
    return instance.model_dump(mode="json", by_alias=True, exclude_unset=True)


# --- coverage of the contract -------------------------------------------------------------------------------------


def test_every_object_schema_has_a_model() -> None:
    missing = [name for name, schema in schemas().items() if schema.get("type") == "object" and not model_for(name)]
    assert missing == []


def test_every_open_enum_is_a_str_enum_named_after_its_schema() -> None:
    assert OPEN_ENUMS, "the bundle has no open enum any more?"
    for name in OPEN_ENUMS:
        enum = getattr(models, name)
        assert issubclass(enum, StrEnum), name
        assert [member.value for member in enum] == schemas()[name]["anyOf"][0]["enum"]


def test_the_union_schemas_are_found() -> None:
    assert {"TaskType", "PolicyStep", "PolicyStepInstance", "Field", "FieldRelationship"} <= set(UNION_SCHEMAS)
    assert {"StringField", "BoolField", "StringSliceField"} <= set(UNION_SCHEMAS)
    assert AT_MOST_ONE_SCHEMAS == ["TaskTypeAction"]


def test_every_component_example_is_reached_through_a_media_type() -> None:
    """So that the example tests below see every one of them."""
    assert component_examples_used() == set(bundle()["components"]["examples"])


# --- examples -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("label", "schema_name", "value"), EXAMPLES, ids=[label for label, _, _ in EXAMPLES])
def test_example_parses_and_serialises_back(label: str, schema_name: str, value: Any) -> None:
    if schema_name in OPEN_ENUMS:
        assert value in set(getattr(models, schema_name)), f"{label}: not a known value of {schema_name}"
        return
    assert dump(model_for(schema_name).model_validate(value)) == value


def test_only_examples_of_inlined_scalars_have_no_model() -> None:
    left_out = {name for _, name, _ in ALL_EXAMPLES} - {name for _, name, _ in EXAMPLES}
    assert left_out <= {"NextPageToken"}
    assert all(schemas()[name]["type"] == "string" for name in left_out)


def test_examples_cover_requests_responses_and_schemas() -> None:
    labels = " ".join(label for label, _, _ in EXAMPLES)
    assert "request" in labels and " 200 " in labels and "schema " in labels
    assert len(EXAMPLES) >= 20


# --- types --------------------------------------------------------------------------------------------------------


def test_field_names_are_pythonic_with_camel_case_aliases() -> None:
    task = models.Task.model_validate({"numericId": "1042", "commentCount": 3})
    assert (task.numeric_id, task.comment_count) == ("1042", 3)
    assert models.Task(numeric_id="7").numeric_id == "7"  # population by field name
    assert dump(models.Task(numeric_id="7")) == {"numericId": "7"}


def test_int64_strings_stay_strings_and_keep_their_pattern() -> None:
    assert models.Task.model_validate({"numericId": "9223372036854775807"}).numeric_id == "9223372036854775807"
    with pytest.raises(ValidationError):
        models.Task.model_validate({"numericId": "12a"})
    with pytest.raises(ValidationError):
        models.Task.model_validate({"numericId": 1042})
    assert models.FileField.model_validate({"maxFileSize": None}).max_file_size is None


def test_date_times_and_durations_are_typed() -> None:
    task = models.Task.model_validate({"createdAt": "2026-01-06T10:15:00Z"})
    assert task.created_at == datetime(2026, 1, 6, 10, 15, tzinfo=UTC)
    grant = models.TaskTypeGrant.model_validate({"grantDuration": "PT4H"})
    assert grant.grant_duration == timedelta(hours=4)
    assert dump(grant) == {"grantDuration": "PT4H"}
    with pytest.raises(ValidationError):
        models.Task.model_validate({"createdAt": "yesterday"})


def test_missing_optional_fields_and_null_where_allowed_parse() -> None:
    task = models.Task.model_validate({})
    assert task.state is MISSING and task.type is MISSING and dump(task) == {}
    nullable = {"createdAt": None, "deletedAt": None, "type": None, "policy": None, "form": None, "actions": None}
    task = models.Task.model_validate(nullable)
    assert task.created_at is None and task.type is None and task.actions is None
    assert dump(task) == nullable
    run = models.AutomationRun.model_validate({"id": "r", "status": "AUTOMATION_RUN_STATUS_SKIPPED", "reason": None})
    assert run.reason is None


def test_null_where_not_allowed_fails() -> None:
    for document in ({"displayName": None}, {"commentCount": None}, {"state": None}):
        with pytest.raises(ValidationError):
            models.Task.model_validate(document)
    with pytest.raises(ValidationError):
        models.TaskType.model_validate({"grant": None})


def test_wrong_types_fail() -> None:
    with pytest.raises(ValidationError) as error:
        models.Task.model_validate({"commentCount": "x"})
    assert error.value.errors()[0]["loc"] == ("commentCount",)
    for document in ({"commentCount": -1}, {"actions": "TASK_ACTION_TYPE_CLOSE"}, {"emergencyAccess": "maybe"}):
        with pytest.raises(ValidationError):
            models.Task.model_validate(document)
    with pytest.raises(ValidationError):
        models.AutomationRun.model_validate({"id": "run-1"})  # `status` is required


# --- open enums ---------------------------------------------------------------------------------------------------


def test_unknown_enum_values_parse_and_keep_the_raw_string() -> None:
    document = {
        "state": "TASK_STATE_SOMETHING_NEW",
        "actions": ["TASK_ACTION_TYPE_CLOSE", "TASK_ACTION_TYPE_SOMETHING_NEW"],
        "type": {"grant": {"outcome": "GRANT_OUTCOME_SOMETHING_NEW"}},
        "policy": {"current": {"state": "POLICY_STEP_STATE_NEW", "approval": {}}},
    }
    task = models.Task.model_validate(document)
    assert task.state == "TASK_STATE_SOMETHING_NEW"
    assert task.actions[1] == "TASK_ACTION_TYPE_SOMETHING_NEW"
    assert task.type.grant.outcome == "GRANT_OUTCOME_SOMETHING_NEW"
    assert dump(task) == document


def test_known_enum_values_equal_their_members() -> None:
    task = models.Task.model_validate({"state": "TASK_STATE_OPEN", "actions": ["TASK_ACTION_TYPE_RESTART"]})
    assert task.state == models.TaskState.TASK_STATE_OPEN
    assert task.actions == [models.TaskActionType.TASK_ACTION_TYPE_RESTART]
    assert task.state in {models.TaskState.TASK_STATE_OPEN, models.TaskState.TASK_STATE_CLOSED}
    closed = models.Task(state=models.TaskState.TASK_STATE_CLOSED)
    assert closed.model_dump(mode="json") == {"state": "TASK_STATE_CLOSED"}


def test_closed_request_enums_stay_closed() -> None:
    assert models.TaskExpandMask.model_validate({"paths": ["user_id", "*"]})
    with pytest.raises(ValidationError):
        models.TaskExpandMask.model_validate({"paths": ["user"]})


# --- "exactly one of" / "at most one of" ----------------------------------------------------------------------------


def _with_members(schema_name: str, group: list[str], members: list[str]) -> dict[str, Any]:
    """A valid instance of `schema_name` whose `group` is replaced by exactly `members`."""
    instance = minimal_instance(schema_name)
    for member in group:
        instance.pop(member, None)
    for member in members:
        instance[member] = minimal_instance(member_schema(schema_name, member))
    return instance


def _groups() -> list[tuple[str, int, list[str]]]:
    return [
        (name, index, group)
        for name in UNION_SCHEMAS
        for index, group in enumerate(one_of_member_groups(schemas()[name]))
    ]


@pytest.mark.parametrize(("schema_name", "index", "group"), _groups(), ids=[f"{n}-{i}" for n, i, _ in _groups()])
def test_exactly_one_member_of_each_group(schema_name: str, index: int, group: list[str]) -> None:
    model = model_for(schema_name)
    for member in group:
        assert dump(model.model_validate(_with_members(schema_name, group, [member])))
    with pytest.raises(ValidationError):
        model.model_validate(_with_members(schema_name, group, []))
    for pair in itertools.combinations(group, 2):
        with pytest.raises(ValidationError):
            model.model_validate(_with_members(schema_name, group, list(pair)))


def test_task_type_is_exactly_one_of() -> None:
    assert models.TaskType.model_validate({"grant": {"appId": "app-github"}}).grant.app_id == "app-github"
    with pytest.raises(ValidationError, match="exactly one"):
        models.TaskType.model_validate({"grant": {}, "revoke": {}})
    with pytest.raises(ValidationError, match="exactly one"):
        models.TaskType.model_validate({})
    with pytest.raises(ValidationError):
        models.TaskType(grant=models.TaskTypeGrant(), revoke=models.TaskTypeRevoke())  # by field name too
    with pytest.raises(ValidationError):  # nested: a task whose type has two members
        models.Task.model_validate({"type": {"grant": {}, "certify": {}}})


def test_policy_step_instance_is_exactly_one_of() -> None:
    step = models.PolicyStepInstance.model_validate({"id": "s", "state": "POLICY_STEP_STATE_ACTIVE", "approval": {}})
    assert step.approval is not MISSING and step.provision is MISSING
    with pytest.raises(ValidationError):
        models.PolicyStepInstance.model_validate({"id": "s", "approval": {}, "wait": {}})
    with pytest.raises(ValidationError):
        models.PolicyStepInstance.model_validate({"id": "s"})
    with pytest.raises(ValidationError):
        models.PolicyInstance.model_validate({"next": [{"approval": {}}, {}]})


def test_field_needs_one_value_type_and_one_provider_config() -> None:
    text = {"stringField": {"textField": {}}}
    assert models.FieldModel.model_validate({"name": "f", **text, "userConfig": {}})
    with pytest.raises(ValidationError):  # two value types
        models.FieldModel.model_validate({**text, "boolField": {"toggleField": {}}, "userConfig": {}})
    with pytest.raises(ValidationError):  # no value type
        models.FieldModel.model_validate({"userConfig": {}})
    with pytest.raises(ValidationError):  # two provider configs
        models.FieldModel.model_validate({**text, "userConfig": {}, "adminConfig": {}})
    with pytest.raises(ValidationError):  # no provider config
        models.FieldModel.model_validate(text)
    with pytest.raises(ValidationError):  # the nested StringField needs exactly one view
        models.FieldModel.model_validate({"stringField": {}, "userConfig": {}})


def test_task_type_action_has_at_most_one_target() -> None:
    assert models.TaskTypeAction.model_validate({"actionId": "a"})
    assert models.TaskTypeAction.model_validate({"scopeRole": {"role": "admin"}}).scope_role.role == "admin"
    assert models.TaskTypeAction.model_validate({"scopeRole": {}, "toolCall": None, "finding": None})
    for first, second in itertools.combinations(at_most_one_members("TaskTypeAction", schemas()["TaskTypeAction"]), 2):
        with pytest.raises(ValidationError, match="at most one"):
            models.TaskTypeAction.model_validate({first: {}, second: {}})
    with pytest.raises(ValidationError, match="at most one"):
        models.TaskTypeAction(scope_role=models.ScopeRole(), finding=models.FindingTarget())
