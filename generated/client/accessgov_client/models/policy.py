from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.policy_type import PolicyType
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.policy_annotations import PolicyAnnotations
    from ..models.policy_policy_steps import PolicyPolicySteps
    from ..models.policy_post_actions import PolicyPostActions
    from ..models.policy_scope import PolicyScope
    from ..models.rule import Rule


T = TypeVar("T", bound="Policy")


@_attrs_define
class Policy:
    """A workflow definition: sequences of steps keyed in `policySteps`, and rules that choose among them.

    Attributes:
        id (str | Unset): Policy ID.
        display_name (str | Unset): Display name.
        description (str | Unset): Description.
        policy_type (PolicyType | str | Unset): The kind of work a policy governs. Open enumeration: the values below
            are the ones known to this version of the contract; the service may add values at any time, so clients must
            accept any other string (see `x-open-enum` in the document info).
        policy_steps (PolicyPolicySteps | Unset): Step sequences by key. One entry is always the baseline, keyed by the
            lowercased policy type (for example `grant`). Other entries have opaque UUID keys and are referenced by rules.
        rules (list[Rule] | None | Unset): Evaluated top to bottom. The first matching rule selects a step sequence. If
            none matches or the array is empty, the baseline entry is used.
        baseline_policy_id (str | Unset): When set, the baseline defers to another policy of the same policy type when
            no rule matches. Mutually exclusive with the baseline entry in `policySteps`. The referenced policy must not
            create a cycle or reference itself, and no reachable chain may exceed depth 5. Gated by a feature flag.
        post_actions (list[PolicyPostActions] | None | Unset): Ordered actions run after the policy completes.
        annotations (PolicyAnnotations | Unset): Key/value metadata: up to 16 entries, keys 1-128 characters, values
            0-256 characters, URL-safe ASCII. Keys starting with the service's reserved prefix are reserved. Updates merge:
            absent keys are kept and an empty value deletes the key. Well-known keys: `managed_by`, `iac_workspace`,
            `iac_resource_address`, `iac_tool_version`.
        scope (None | PolicyScope | Unset): The scope the policy applies to.
        reassign_tasks_to_delegates (bool | Unset): Deprecated and unused; still accepted.
        system_builtin (bool | Unset): True for builtin policies, which cannot be edited.
        created_at (datetime.datetime | None | Unset): When the policy was created.
        updated_at (datetime.datetime | None | Unset): When the policy was last updated.
        deleted_at (datetime.datetime | None | Unset): When the policy was deleted, if it was.
    """

    id: str | Unset = UNSET
    display_name: str | Unset = UNSET
    description: str | Unset = UNSET
    policy_type: PolicyType | str | Unset = UNSET
    policy_steps: PolicyPolicySteps | Unset = UNSET
    rules: list[Rule] | None | Unset = UNSET
    baseline_policy_id: str | Unset = UNSET
    post_actions: list[PolicyPostActions] | None | Unset = UNSET
    annotations: PolicyAnnotations | Unset = UNSET
    scope: None | PolicyScope | Unset = UNSET
    reassign_tasks_to_delegates: bool | Unset = UNSET
    system_builtin: bool | Unset = UNSET
    created_at: datetime.datetime | None | Unset = UNSET
    updated_at: datetime.datetime | None | Unset = UNSET
    deleted_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.policy_scope import PolicyScope  # noqa: PLC0415

        id = self.id

        display_name = self.display_name

        description = self.description

        policy_type: str | Unset
        if isinstance(self.policy_type, Unset):
            policy_type = UNSET
        elif isinstance(self.policy_type, PolicyType):
            policy_type = self.policy_type.value
        else:
            policy_type = self.policy_type

        policy_steps: dict[str, Any] | Unset = UNSET
        if not isinstance(self.policy_steps, Unset):
            policy_steps = self.policy_steps.to_dict()

        rules: list[dict[str, Any]] | None | Unset
        if isinstance(self.rules, Unset):
            rules = UNSET
        elif isinstance(self.rules, list):
            rules = []
            for rules_type_0_item_data in self.rules:
                rules_type_0_item = rules_type_0_item_data.to_dict()
                rules.append(rules_type_0_item)

        else:
            rules = self.rules

        baseline_policy_id = self.baseline_policy_id

        post_actions: list[dict[str, Any]] | None | Unset
        if isinstance(self.post_actions, Unset):
            post_actions = UNSET
        elif isinstance(self.post_actions, list):
            post_actions = []
            for post_actions_type_0_item_data in self.post_actions:
                post_actions_type_0_item = post_actions_type_0_item_data.to_dict()
                post_actions.append(post_actions_type_0_item)

        else:
            post_actions = self.post_actions

        annotations: dict[str, Any] | Unset = UNSET
        if not isinstance(self.annotations, Unset):
            annotations = self.annotations.to_dict()

        scope: dict[str, Any] | None | Unset
        if isinstance(self.scope, Unset):
            scope = UNSET
        elif isinstance(self.scope, PolicyScope):
            scope = self.scope.to_dict()
        else:
            scope = self.scope

        reassign_tasks_to_delegates = self.reassign_tasks_to_delegates

        system_builtin = self.system_builtin

        created_at: None | str | Unset
        if isinstance(self.created_at, Unset):
            created_at = UNSET
        elif isinstance(self.created_at, datetime.datetime):
            created_at = self.created_at.isoformat()
        else:
            created_at = self.created_at

        updated_at: None | str | Unset
        if isinstance(self.updated_at, Unset):
            updated_at = UNSET
        elif isinstance(self.updated_at, datetime.datetime):
            updated_at = self.updated_at.isoformat()
        else:
            updated_at = self.updated_at

        deleted_at: None | str | Unset
        if isinstance(self.deleted_at, Unset):
            deleted_at = UNSET
        elif isinstance(self.deleted_at, datetime.datetime):
            deleted_at = self.deleted_at.isoformat()
        else:
            deleted_at = self.deleted_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if id is not UNSET:
            field_dict["id"] = id
        if display_name is not UNSET:
            field_dict["displayName"] = display_name
        if description is not UNSET:
            field_dict["description"] = description
        if policy_type is not UNSET:
            field_dict["policyType"] = policy_type
        if policy_steps is not UNSET:
            field_dict["policySteps"] = policy_steps
        if rules is not UNSET:
            field_dict["rules"] = rules
        if baseline_policy_id is not UNSET:
            field_dict["baselinePolicyId"] = baseline_policy_id
        if post_actions is not UNSET:
            field_dict["postActions"] = post_actions
        if annotations is not UNSET:
            field_dict["annotations"] = annotations
        if scope is not UNSET:
            field_dict["scope"] = scope
        if reassign_tasks_to_delegates is not UNSET:
            field_dict["reassignTasksToDelegates"] = reassign_tasks_to_delegates
        if system_builtin is not UNSET:
            field_dict["systemBuiltin"] = system_builtin
        if created_at is not UNSET:
            field_dict["createdAt"] = created_at
        if updated_at is not UNSET:
            field_dict["updatedAt"] = updated_at
        if deleted_at is not UNSET:
            field_dict["deletedAt"] = deleted_at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.policy_annotations import PolicyAnnotations  # noqa: PLC0415
        from ..models.policy_policy_steps import PolicyPolicySteps  # noqa: PLC0415
        from ..models.policy_post_actions import PolicyPostActions  # noqa: PLC0415
        from ..models.policy_scope import PolicyScope  # noqa: PLC0415
        from ..models.rule import Rule  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id", UNSET)

        display_name = d.pop("displayName", UNSET)

        description = d.pop("description", UNSET)

        def _parse_policy_type(data: object) -> PolicyType | str | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                componentsschemas_policy_type_type_0 = PolicyType(data)

                return componentsschemas_policy_type_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(PolicyType | str | Unset, data)

        policy_type = _parse_policy_type(d.pop("policyType", UNSET))

        _policy_steps = d.pop("policySteps", UNSET)
        policy_steps: PolicyPolicySteps | Unset
        if isinstance(_policy_steps, Unset):
            policy_steps = UNSET
        else:
            policy_steps = PolicyPolicySteps.from_dict(_policy_steps)

        def _parse_rules(data: object) -> list[Rule] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                rules_type_0 = []
                _rules_type_0 = data
                for rules_type_0_item_data in _rules_type_0:
                    rules_type_0_item = Rule.from_dict(rules_type_0_item_data)

                    rules_type_0.append(rules_type_0_item)

                return rules_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[Rule] | None | Unset, data)

        rules = _parse_rules(d.pop("rules", UNSET))

        baseline_policy_id = d.pop("baselinePolicyId", UNSET)

        def _parse_post_actions(data: object) -> list[PolicyPostActions] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                post_actions_type_0 = []
                _post_actions_type_0 = data
                for post_actions_type_0_item_data in _post_actions_type_0:
                    post_actions_type_0_item = PolicyPostActions.from_dict(post_actions_type_0_item_data)

                    post_actions_type_0.append(post_actions_type_0_item)

                return post_actions_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[PolicyPostActions] | None | Unset, data)

        post_actions = _parse_post_actions(d.pop("postActions", UNSET))

        _annotations = d.pop("annotations", UNSET)
        annotations: PolicyAnnotations | Unset
        if isinstance(_annotations, Unset):
            annotations = UNSET
        else:
            annotations = PolicyAnnotations.from_dict(_annotations)

        def _parse_scope(data: object) -> None | PolicyScope | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                scope_type_0 = PolicyScope.from_dict(data)

                return scope_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PolicyScope | Unset, data)

        scope = _parse_scope(d.pop("scope", UNSET))

        reassign_tasks_to_delegates = d.pop("reassignTasksToDelegates", UNSET)

        system_builtin = d.pop("systemBuiltin", UNSET)

        def _parse_created_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                created_at_type_0 = datetime.datetime.fromisoformat(data)

                return created_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        created_at = _parse_created_at(d.pop("createdAt", UNSET))

        def _parse_updated_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                updated_at_type_0 = datetime.datetime.fromisoformat(data)

                return updated_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        updated_at = _parse_updated_at(d.pop("updatedAt", UNSET))

        def _parse_deleted_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                deleted_at_type_0 = datetime.datetime.fromisoformat(data)

                return deleted_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        deleted_at = _parse_deleted_at(d.pop("deletedAt", UNSET))

        policy = cls(
            id=id,
            display_name=display_name,
            description=description,
            policy_type=policy_type,
            policy_steps=policy_steps,
            rules=rules,
            baseline_policy_id=baseline_policy_id,
            post_actions=post_actions,
            annotations=annotations,
            scope=scope,
            reassign_tasks_to_delegates=reassign_tasks_to_delegates,
            system_builtin=system_builtin,
            created_at=created_at,
            updated_at=updated_at,
            deleted_at=deleted_at,
        )

        policy.additional_properties = d
        return policy

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
