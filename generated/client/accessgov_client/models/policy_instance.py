from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.policy import Policy
    from ..models.policy_step import PolicyStep
    from ..models.policy_step_instance import PolicyStepInstance


T = TypeVar("T", bound="PolicyInstance")


@_attrs_define
class PolicyInstance:
    """The state of a task's policy workflow.

    Attributes:
        current (None | PolicyStepInstance | Unset): The step now executing; `null` when no step is executing (for
            example once the task is done).
        history (list[PolicyStepInstance] | None | Unset): Previously processed steps with their outcomes, in order.
        next_ (list[PolicyStep] | None | Unset): Steps still to be processed, in order.
        policy (None | Policy | Unset): The policy this instance was created from.
    """

    current: None | PolicyStepInstance | Unset = UNSET
    history: list[PolicyStepInstance] | None | Unset = UNSET
    next_: list[PolicyStep] | None | Unset = UNSET
    policy: None | Policy | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.policy import Policy  # noqa: PLC0415
        from ..models.policy_step_instance import PolicyStepInstance  # noqa: PLC0415

        current: dict[str, Any] | None | Unset
        if isinstance(self.current, Unset):
            current = UNSET
        elif isinstance(self.current, PolicyStepInstance):
            current = self.current.to_dict()
        else:
            current = self.current

        history: list[dict[str, Any]] | None | Unset
        if isinstance(self.history, Unset):
            history = UNSET
        elif isinstance(self.history, list):
            history = []
            for history_type_0_item_data in self.history:
                history_type_0_item = history_type_0_item_data.to_dict()
                history.append(history_type_0_item)

        else:
            history = self.history

        next_: list[dict[str, Any]] | None | Unset
        if isinstance(self.next_, Unset):
            next_ = UNSET
        elif isinstance(self.next_, list):
            next_ = []
            for next_type_0_item_data in self.next_:
                next_type_0_item = next_type_0_item_data.to_dict()
                next_.append(next_type_0_item)

        else:
            next_ = self.next_

        policy: dict[str, Any] | None | Unset
        if isinstance(self.policy, Unset):
            policy = UNSET
        elif isinstance(self.policy, Policy):
            policy = self.policy.to_dict()
        else:
            policy = self.policy

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if current is not UNSET:
            field_dict["current"] = current
        if history is not UNSET:
            field_dict["history"] = history
        if next_ is not UNSET:
            field_dict["next"] = next_
        if policy is not UNSET:
            field_dict["policy"] = policy

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.policy import Policy  # noqa: PLC0415
        from ..models.policy_step import PolicyStep  # noqa: PLC0415
        from ..models.policy_step_instance import PolicyStepInstance  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_current(data: object) -> None | PolicyStepInstance | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                current_type_0 = PolicyStepInstance.from_dict(data)

                return current_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PolicyStepInstance | Unset, data)

        current = _parse_current(d.pop("current", UNSET))

        def _parse_history(data: object) -> list[PolicyStepInstance] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                history_type_0 = []
                _history_type_0 = data
                for history_type_0_item_data in _history_type_0:
                    history_type_0_item = PolicyStepInstance.from_dict(history_type_0_item_data)

                    history_type_0.append(history_type_0_item)

                return history_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[PolicyStepInstance] | None | Unset, data)

        history = _parse_history(d.pop("history", UNSET))

        def _parse_next_(data: object) -> list[PolicyStep] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                next_type_0 = []
                _next_type_0 = data
                for next_type_0_item_data in _next_type_0:
                    next_type_0_item = PolicyStep.from_dict(next_type_0_item_data)

                    next_type_0.append(next_type_0_item)

                return next_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[PolicyStep] | None | Unset, data)

        next_ = _parse_next_(d.pop("next", UNSET))

        def _parse_policy(data: object) -> None | Policy | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                policy_type_0 = Policy.from_dict(data)

                return policy_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Policy | Unset, data)

        policy = _parse_policy(d.pop("policy", UNSET))

        policy_instance = cls(
            current=current,
            history=history,
            next_=next_,
            policy=policy,
        )

        policy_instance.additional_properties = d
        return policy_instance

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
