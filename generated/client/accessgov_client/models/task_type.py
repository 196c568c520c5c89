from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.task_type_action import TaskTypeAction
    from ..models.task_type_certify import TaskTypeCertify
    from ..models.task_type_finding import TaskTypeFinding
    from ..models.task_type_grant import TaskTypeGrant
    from ..models.task_type_offboarding import TaskTypeOffboarding
    from ..models.task_type_revoke import TaskTypeRevoke


T = TypeVar("T", bound="TaskType")


@_attrs_define
class TaskType:
    """Kind-specific details of a task. Exactly one of the members `grant`, `revoke`, `certify`, `offboarding`, `action`
    and `finding` is set; an unset member is absent (never `null`). All fields of every member are read-only.

        Attributes:
            grant (TaskTypeGrant | Unset): Details of a grant task. All fields are read-only.
            revoke (TaskTypeRevoke | Unset): Details of a revoke task. All fields are read-only.
            certify (TaskTypeCertify | Unset): Details of a certify (access review) task. All fields are read-only.
            offboarding (TaskTypeOffboarding | Unset): Details of an offboarding task. All fields are read-only.
            action (TaskTypeAction | Unset): Details of an action task. All fields are read-only. At most one of the target
                members `scopeRole`, `toolCall`, `finding` and `credentialIssue` is set (non-null).
            finding (TaskTypeFinding | Unset): Details of a finding task. All fields are read-only.
    """

    grant: TaskTypeGrant | Unset = UNSET
    revoke: TaskTypeRevoke | Unset = UNSET
    certify: TaskTypeCertify | Unset = UNSET
    offboarding: TaskTypeOffboarding | Unset = UNSET
    action: TaskTypeAction | Unset = UNSET
    finding: TaskTypeFinding | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        grant: dict[str, Any] | Unset = UNSET
        if not isinstance(self.grant, Unset):
            grant = self.grant.to_dict()

        revoke: dict[str, Any] | Unset = UNSET
        if not isinstance(self.revoke, Unset):
            revoke = self.revoke.to_dict()

        certify: dict[str, Any] | Unset = UNSET
        if not isinstance(self.certify, Unset):
            certify = self.certify.to_dict()

        offboarding: dict[str, Any] | Unset = UNSET
        if not isinstance(self.offboarding, Unset):
            offboarding = self.offboarding.to_dict()

        action: dict[str, Any] | Unset = UNSET
        if not isinstance(self.action, Unset):
            action = self.action.to_dict()

        finding: dict[str, Any] | Unset = UNSET
        if not isinstance(self.finding, Unset):
            finding = self.finding.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if grant is not UNSET:
            field_dict["grant"] = grant
        if revoke is not UNSET:
            field_dict["revoke"] = revoke
        if certify is not UNSET:
            field_dict["certify"] = certify
        if offboarding is not UNSET:
            field_dict["offboarding"] = offboarding
        if action is not UNSET:
            field_dict["action"] = action
        if finding is not UNSET:
            field_dict["finding"] = finding

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.task_type_action import TaskTypeAction  # noqa: PLC0415
        from ..models.task_type_certify import TaskTypeCertify  # noqa: PLC0415
        from ..models.task_type_finding import TaskTypeFinding  # noqa: PLC0415
        from ..models.task_type_grant import TaskTypeGrant  # noqa: PLC0415
        from ..models.task_type_offboarding import TaskTypeOffboarding  # noqa: PLC0415
        from ..models.task_type_revoke import TaskTypeRevoke  # noqa: PLC0415

        d = dict(src_dict)
        _grant = d.pop("grant", UNSET)
        grant: TaskTypeGrant | Unset
        if isinstance(_grant, Unset):
            grant = UNSET
        else:
            grant = TaskTypeGrant.from_dict(_grant)

        _revoke = d.pop("revoke", UNSET)
        revoke: TaskTypeRevoke | Unset
        if isinstance(_revoke, Unset):
            revoke = UNSET
        else:
            revoke = TaskTypeRevoke.from_dict(_revoke)

        _certify = d.pop("certify", UNSET)
        certify: TaskTypeCertify | Unset
        if isinstance(_certify, Unset):
            certify = UNSET
        else:
            certify = TaskTypeCertify.from_dict(_certify)

        _offboarding = d.pop("offboarding", UNSET)
        offboarding: TaskTypeOffboarding | Unset
        if isinstance(_offboarding, Unset):
            offboarding = UNSET
        else:
            offboarding = TaskTypeOffboarding.from_dict(_offboarding)

        _action = d.pop("action", UNSET)
        action: TaskTypeAction | Unset
        if isinstance(_action, Unset):
            action = UNSET
        else:
            action = TaskTypeAction.from_dict(_action)

        _finding = d.pop("finding", UNSET)
        finding: TaskTypeFinding | Unset
        if isinstance(_finding, Unset):
            finding = UNSET
        else:
            finding = TaskTypeFinding.from_dict(_finding)

        task_type = cls(
            grant=grant,
            revoke=revoke,
            certify=certify,
            offboarding=offboarding,
            action=action,
            finding=finding,
        )

        task_type.additional_properties = d
        return task_type

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
