from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.finding_outcome import FindingOutcome
from ..types import UNSET, Unset

T = TypeVar("T", bound="TaskTypeFinding")


@_attrs_define
class TaskTypeFinding:
    """Details of a finding task. All fields are read-only.

    Attributes:
        finding_id (str | Unset): Reference to the source finding.
        finding_type (str | Unset): The type of the finding.
        outcome (FindingOutcome | str | Unset): The outcome of a finding task. Open enumeration: the values below are
            the ones known to this version of the contract; the service may add values at any time, so clients must accept
            any other string (see `x-open-enum` in the document info).
        outcome_time (datetime.datetime | None | Unset): When the outcome was reached.
    """

    finding_id: str | Unset = UNSET
    finding_type: str | Unset = UNSET
    outcome: FindingOutcome | str | Unset = UNSET
    outcome_time: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        finding_id = self.finding_id

        finding_type = self.finding_type

        outcome: str | Unset
        if isinstance(self.outcome, Unset):
            outcome = UNSET
        elif isinstance(self.outcome, FindingOutcome):
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

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if finding_id is not UNSET:
            field_dict["findingId"] = finding_id
        if finding_type is not UNSET:
            field_dict["findingType"] = finding_type
        if outcome is not UNSET:
            field_dict["outcome"] = outcome
        if outcome_time is not UNSET:
            field_dict["outcomeTime"] = outcome_time

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        finding_id = d.pop("findingId", UNSET)

        finding_type = d.pop("findingType", UNSET)

        def _parse_outcome(data: object) -> FindingOutcome | str | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                componentsschemas_finding_outcome_type_0 = FindingOutcome(data)

                return componentsschemas_finding_outcome_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(FindingOutcome | str | Unset, data)

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

        task_type_finding = cls(
            finding_id=finding_id,
            finding_type=finding_type,
            outcome=outcome,
            outcome_time=outcome_time,
        )

        task_type_finding.additional_properties = d
        return task_type_finding

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
