from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.automation_run_status import AutomationRunStatus
from ..types import UNSET, Unset

T = TypeVar("T", bound="AutomationRun")


@_attrs_define
class AutomationRun:
    """One run of a listener's automation, triggered by an accepted event.

    Attributes:
        id (str): ID of the run.
        status (AutomationRunStatus | str): Where the automation run of an accepted event stands. Runs leave the
            request: an accepted event's run is `QUEUED` (or `SKIPPED` at once when the automation is unpublished or its
            trigger disabled), then `RUNNING` while a runner executes it, then `SUCCEEDED` or `FAILED`. Open enumeration:
            the values below are the ones known to this version of the contract; the service may add values at any time, so
            clients must accept any other string (see `x-open-enum` in the document info).
        reason (None | str | Unset): Why the run was skipped or failed; `null` when it succeeded.
    """

    id: str
    status: AutomationRunStatus | str
    reason: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        status: str
        if isinstance(self.status, AutomationRunStatus):
            status = self.status.value
        else:
            status = self.status

        reason: None | str | Unset
        if isinstance(self.reason, Unset):
            reason = UNSET
        else:
            reason = self.reason

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "status": status,
            }
        )
        if reason is not UNSET:
            field_dict["reason"] = reason

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        def _parse_status(data: object) -> AutomationRunStatus | str:
            try:
                if not isinstance(data, str):
                    raise TypeError()
                componentsschemas_automation_run_status_type_0 = AutomationRunStatus(data)

                return componentsschemas_automation_run_status_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AutomationRunStatus | str, data)

        status = _parse_status(d.pop("status"))

        def _parse_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reason = _parse_reason(d.pop("reason", UNSET))

        automation_run = cls(
            id=id,
            status=status,
            reason=reason,
        )

        automation_run.additional_properties = d
        return automation_run

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
