from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.action_outcome import ActionOutcome
from ..models.task_type_action_type import TaskTypeActionType
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.action_instance import ActionInstance
    from ..models.credential_issue_target import CredentialIssueTarget
    from ..models.finding_target import FindingTarget
    from ..models.gated_tool_call_target import GatedToolCallTarget
    from ..models.scope_role import ScopeRole
    from ..models.task_type_action_form_values_type_0 import TaskTypeActionFormValuesType0


T = TypeVar("T", bound="TaskTypeAction")


@_attrs_define
class TaskTypeAction:
    """Details of an action task. All fields are read-only. At most one of the target members `scopeRole`, `toolCall`,
    `finding` and `credentialIssue` is set (non-null).

        Attributes:
            action_id (str | Unset): ID of the admin-authored action. Empty for synthesized action tasks.
            action_instance (ActionInstance | None | Unset): The running instance of the action.
            created_app_entitlement_ids (list[str] | None | Unset): IDs of app entitlements the action created. Filled only
                after the outcome `ACTION_OUTCOME_SUCCESS`, and may stay empty even then.
            created_app_resource_id (str | Unset): ID of the app resource created, set when a resource-create action
                completes.
            created_app_resource_type_id (str | Unset): ID of the resource type of the created app resource.
            display_name (str | Unset): Label of the action captured when the task was created.
            form_values (None | TaskTypeActionFormValuesType0 | Unset): Values of the action's form.
            outcome (ActionOutcome | str | Unset): The outcome of an action task. Open enumeration: the values below are the
                ones known to this version of the contract; the service may add values at any time, so clients must accept any
                other string (see `x-open-enum` in the document info).
            outcome_time (datetime.datetime | None | Unset): When the outcome was reached.
            type_ (str | TaskTypeActionType | Unset): The kind of admin-authored (or synthesized) action an action task
                runs. Open enumeration: the values below are the ones known to this version of the contract; the service may add
                values at any time, so clients must accept any other string (see `x-open-enum` in the document info).
            scope_role (None | ScopeRole | Unset): Target member. The scope and role of a scope-role action.
            tool_call (GatedToolCallTarget | None | Unset): Target member. The gated tool call.
            finding (FindingTarget | None | Unset): Target member. The finding acted upon.
            credential_issue (CredentialIssueTarget | None | Unset): Target member. The credential issued.
    """

    action_id: str | Unset = UNSET
    action_instance: ActionInstance | None | Unset = UNSET
    created_app_entitlement_ids: list[str] | None | Unset = UNSET
    created_app_resource_id: str | Unset = UNSET
    created_app_resource_type_id: str | Unset = UNSET
    display_name: str | Unset = UNSET
    form_values: None | TaskTypeActionFormValuesType0 | Unset = UNSET
    outcome: ActionOutcome | str | Unset = UNSET
    outcome_time: datetime.datetime | None | Unset = UNSET
    type_: str | TaskTypeActionType | Unset = UNSET
    scope_role: None | ScopeRole | Unset = UNSET
    tool_call: GatedToolCallTarget | None | Unset = UNSET
    finding: FindingTarget | None | Unset = UNSET
    credential_issue: CredentialIssueTarget | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.action_instance import ActionInstance  # noqa: PLC0415
        from ..models.credential_issue_target import CredentialIssueTarget  # noqa: PLC0415
        from ..models.finding_target import FindingTarget  # noqa: PLC0415
        from ..models.gated_tool_call_target import GatedToolCallTarget  # noqa: PLC0415
        from ..models.scope_role import ScopeRole  # noqa: PLC0415
        from ..models.task_type_action_form_values_type_0 import TaskTypeActionFormValuesType0  # noqa: PLC0415

        action_id = self.action_id

        action_instance: dict[str, Any] | None | Unset
        if isinstance(self.action_instance, Unset):
            action_instance = UNSET
        elif isinstance(self.action_instance, ActionInstance):
            action_instance = self.action_instance.to_dict()
        else:
            action_instance = self.action_instance

        created_app_entitlement_ids: list[str] | None | Unset
        if isinstance(self.created_app_entitlement_ids, Unset):
            created_app_entitlement_ids = UNSET
        elif isinstance(self.created_app_entitlement_ids, list):
            created_app_entitlement_ids = self.created_app_entitlement_ids

        else:
            created_app_entitlement_ids = self.created_app_entitlement_ids

        created_app_resource_id = self.created_app_resource_id

        created_app_resource_type_id = self.created_app_resource_type_id

        display_name = self.display_name

        form_values: dict[str, Any] | None | Unset
        if isinstance(self.form_values, Unset):
            form_values = UNSET
        elif isinstance(self.form_values, TaskTypeActionFormValuesType0):
            form_values = self.form_values.to_dict()
        else:
            form_values = self.form_values

        outcome: str | Unset
        if isinstance(self.outcome, Unset):
            outcome = UNSET
        elif isinstance(self.outcome, ActionOutcome):
            outcome = self.outcome.value
        else:
            outcome = self.outcome

        outcome_time: None | str | Unset
        if isinstance(self.outcome_time, Unset):
            outcome_time = UNSET
        elif isinstance(self.outcome_time, datetime.datetime):
            outcome_time = self.outcome_time.isoformat()
        else:
            outcome_time = self.outcome_time

        type_: str | Unset
        if isinstance(self.type_, Unset):
            type_ = UNSET
        elif isinstance(self.type_, TaskTypeActionType):
            type_ = self.type_.value
        else:
            type_ = self.type_

        scope_role: dict[str, Any] | None | Unset
        if isinstance(self.scope_role, Unset):
            scope_role = UNSET
        elif isinstance(self.scope_role, ScopeRole):
            scope_role = self.scope_role.to_dict()
        else:
            scope_role = self.scope_role

        tool_call: dict[str, Any] | None | Unset
        if isinstance(self.tool_call, Unset):
            tool_call = UNSET
        elif isinstance(self.tool_call, GatedToolCallTarget):
            tool_call = self.tool_call.to_dict()
        else:
            tool_call = self.tool_call

        finding: dict[str, Any] | None | Unset
        if isinstance(self.finding, Unset):
            finding = UNSET
        elif isinstance(self.finding, FindingTarget):
            finding = self.finding.to_dict()
        else:
            finding = self.finding

        credential_issue: dict[str, Any] | None | Unset
        if isinstance(self.credential_issue, Unset):
            credential_issue = UNSET
        elif isinstance(self.credential_issue, CredentialIssueTarget):
            credential_issue = self.credential_issue.to_dict()
        else:
            credential_issue = self.credential_issue

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if action_id is not UNSET:
            field_dict["actionId"] = action_id
        if action_instance is not UNSET:
            field_dict["actionInstance"] = action_instance
        if created_app_entitlement_ids is not UNSET:
            field_dict["createdAppEntitlementIds"] = created_app_entitlement_ids
        if created_app_resource_id is not UNSET:
            field_dict["createdAppResourceId"] = created_app_resource_id
        if created_app_resource_type_id is not UNSET:
            field_dict["createdAppResourceTypeId"] = created_app_resource_type_id
        if display_name is not UNSET:
            field_dict["displayName"] = display_name
        if form_values is not UNSET:
            field_dict["formValues"] = form_values
        if outcome is not UNSET:
            field_dict["outcome"] = outcome
        if outcome_time is not UNSET:
            field_dict["outcomeTime"] = outcome_time
        if type_ is not UNSET:
            field_dict["type"] = type_
        if scope_role is not UNSET:
            field_dict["scopeRole"] = scope_role
        if tool_call is not UNSET:
            field_dict["toolCall"] = tool_call
        if finding is not UNSET:
            field_dict["finding"] = finding
        if credential_issue is not UNSET:
            field_dict["credentialIssue"] = credential_issue

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.action_instance import ActionInstance  # noqa: PLC0415
        from ..models.credential_issue_target import CredentialIssueTarget  # noqa: PLC0415
        from ..models.finding_target import FindingTarget  # noqa: PLC0415
        from ..models.gated_tool_call_target import GatedToolCallTarget  # noqa: PLC0415
        from ..models.scope_role import ScopeRole  # noqa: PLC0415
        from ..models.task_type_action_form_values_type_0 import TaskTypeActionFormValuesType0  # noqa: PLC0415

        d = dict(src_dict)
        action_id = d.pop("actionId", UNSET)

        def _parse_action_instance(data: object) -> ActionInstance | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                action_instance_type_0 = ActionInstance.from_dict(data)

                return action_instance_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ActionInstance | None | Unset, data)

        action_instance = _parse_action_instance(d.pop("actionInstance", UNSET))

        def _parse_created_app_entitlement_ids(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                created_app_entitlement_ids_type_0 = cast(list[str], data)

                return created_app_entitlement_ids_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        created_app_entitlement_ids = _parse_created_app_entitlement_ids(d.pop("createdAppEntitlementIds", UNSET))

        created_app_resource_id = d.pop("createdAppResourceId", UNSET)

        created_app_resource_type_id = d.pop("createdAppResourceTypeId", UNSET)

        display_name = d.pop("displayName", UNSET)

        def _parse_form_values(data: object) -> None | TaskTypeActionFormValuesType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                form_values_type_0 = TaskTypeActionFormValuesType0.from_dict(data)

                return form_values_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TaskTypeActionFormValuesType0 | Unset, data)

        form_values = _parse_form_values(d.pop("formValues", UNSET))

        def _parse_outcome(data: object) -> ActionOutcome | str | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                componentsschemas_action_outcome_type_0 = ActionOutcome(data)

                return componentsschemas_action_outcome_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ActionOutcome | str | Unset, data)

        outcome = _parse_outcome(d.pop("outcome", UNSET))

        def _parse_outcome_time(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                outcome_time_type_0 = datetime.datetime.fromisoformat(data)

                return outcome_time_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        outcome_time = _parse_outcome_time(d.pop("outcomeTime", UNSET))

        def _parse_type_(data: object) -> str | TaskTypeActionType | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                componentsschemas_task_type_action_type_type_0 = TaskTypeActionType(data)

                return componentsschemas_task_type_action_type_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(str | TaskTypeActionType | Unset, data)

        type_ = _parse_type_(d.pop("type", UNSET))

        def _parse_scope_role(data: object) -> None | ScopeRole | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                scope_role_type_0 = ScopeRole.from_dict(data)

                return scope_role_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ScopeRole | Unset, data)

        scope_role = _parse_scope_role(d.pop("scopeRole", UNSET))

        def _parse_tool_call(data: object) -> GatedToolCallTarget | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                tool_call_type_0 = GatedToolCallTarget.from_dict(data)

                return tool_call_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(GatedToolCallTarget | None | Unset, data)

        tool_call = _parse_tool_call(d.pop("toolCall", UNSET))

        def _parse_finding(data: object) -> FindingTarget | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                finding_type_0 = FindingTarget.from_dict(data)

                return finding_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(FindingTarget | None | Unset, data)

        finding = _parse_finding(d.pop("finding", UNSET))

        def _parse_credential_issue(data: object) -> CredentialIssueTarget | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                credential_issue_type_0 = CredentialIssueTarget.from_dict(data)

                return credential_issue_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CredentialIssueTarget | None | Unset, data)

        credential_issue = _parse_credential_issue(d.pop("credentialIssue", UNSET))

        task_type_action = cls(
            action_id=action_id,
            action_instance=action_instance,
            created_app_entitlement_ids=created_app_entitlement_ids,
            created_app_resource_id=created_app_resource_id,
            created_app_resource_type_id=created_app_resource_type_id,
            display_name=display_name,
            form_values=form_values,
            outcome=outcome,
            outcome_time=outcome_time,
            type_=type_,
            scope_role=scope_role,
            tool_call=tool_call,
            finding=finding,
            credential_issue=credential_issue,
        )

        task_type_action.additional_properties = d
        return task_type_action

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
