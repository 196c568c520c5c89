from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.task_expand_mask import TaskExpandMask


T = TypeVar("T", bound="TaskActionsServiceRestartRequest")


@_attrs_define
class TaskActionsServiceRestartRequest:
    """Restart a task's current policy workflow from its first step. The body is a JSON object (an empty one is valid);
    members this version does not define are ignored, so a newer client's request is still accepted.

        Attributes:
            comment (str | Unset): Comment attached to the request; it is added to the task's comments.
            expand_mask (None | TaskExpandMask | Unset): Related objects to return in `expanded`.
            policy_step_id (str | Unset): Deprecated. Accepted but has no effect: whatever step it names (one of the task's,
                or none), the task restarts exactly as without it.
    """

    comment: str | Unset = UNSET
    expand_mask: None | TaskExpandMask | Unset = UNSET
    policy_step_id: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.task_expand_mask import TaskExpandMask  # noqa: PLC0415

        comment = self.comment

        expand_mask: dict[str, Any] | None | Unset
        if isinstance(self.expand_mask, Unset):
            expand_mask = UNSET
        elif isinstance(self.expand_mask, TaskExpandMask):
            expand_mask = self.expand_mask.to_dict()
        else:
            expand_mask = self.expand_mask

        policy_step_id = self.policy_step_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if comment is not UNSET:
            field_dict["comment"] = comment
        if expand_mask is not UNSET:
            field_dict["expandMask"] = expand_mask
        if policy_step_id is not UNSET:
            field_dict["policyStepId"] = policy_step_id

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.task_expand_mask import TaskExpandMask  # noqa: PLC0415

        d = dict(src_dict)
        comment = d.pop("comment", UNSET)

        def _parse_expand_mask(data: object) -> None | TaskExpandMask | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                expand_mask_type_0 = TaskExpandMask.from_dict(data)

                return expand_mask_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TaskExpandMask | Unset, data)

        expand_mask = _parse_expand_mask(d.pop("expandMask", UNSET))

        policy_step_id = d.pop("policyStepId", UNSET)

        task_actions_service_restart_request = cls(
            comment=comment,
            expand_mask=expand_mask,
            policy_step_id=policy_step_id,
        )

        task_actions_service_restart_request.additional_properties = d
        return task_actions_service_restart_request

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
