from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.grant_outcome import GrantOutcome
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.task_grant_source import TaskGrantSource


T = TypeVar("T", bound="TaskTypeGrant")


@_attrs_define
class TaskTypeGrant:
    """Details of a grant task. All fields are read-only.

    Attributes:
        app_entitlement_id (str | Unset): ID of the app entitlement being granted.
        app_id (str | Unset): ID of the app the entitlement belongs to.
        app_user_id (str | Unset): ID of the app user receiving the grant.
        identity_user_id (str | Unset): ID of the identity user receiving the grant.
        grant_duration (None | str | Unset): How long the grant lasts, as an ISO 8601 duration (for example `PT4H`);
            `null` for no limit.
        outcome (GrantOutcome | str | Unset): The outcome of a grant task. Open enumeration: the values below are the
            ones known to this version of the contract; the service may add values at any time, so clients must accept any
            other string (see `x-open-enum` in the document info).
        outcome_time (datetime.datetime | None | Unset): When the outcome was reached.
        source (None | TaskGrantSource | Unset): Where the grant request came from.
    """

    app_entitlement_id: str | Unset = UNSET
    app_id: str | Unset = UNSET
    app_user_id: str | Unset = UNSET
    identity_user_id: str | Unset = UNSET
    grant_duration: None | str | Unset = UNSET
    outcome: GrantOutcome | str | Unset = UNSET
    outcome_time: datetime.datetime | None | Unset = UNSET
    source: None | TaskGrantSource | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.task_grant_source import TaskGrantSource  # noqa: PLC0415

        app_entitlement_id = self.app_entitlement_id

        app_id = self.app_id

        app_user_id = self.app_user_id

        identity_user_id = self.identity_user_id

        grant_duration: None | str | Unset
        if isinstance(self.grant_duration, Unset):
            grant_duration = UNSET
        else:
            grant_duration = self.grant_duration

        outcome: str | Unset
        if isinstance(self.outcome, Unset):
            outcome = UNSET
        elif isinstance(self.outcome, GrantOutcome):
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

        source: dict[str, Any] | None | Unset
        if isinstance(self.source, Unset):
            source = UNSET
        elif isinstance(self.source, TaskGrantSource):
            source = self.source.to_dict()
        else:
            source = self.source

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if app_entitlement_id is not UNSET:
            field_dict["appEntitlementId"] = app_entitlement_id
        if app_id is not UNSET:
            field_dict["appId"] = app_id
        if app_user_id is not UNSET:
            field_dict["appUserId"] = app_user_id
        if identity_user_id is not UNSET:
            field_dict["identityUserId"] = identity_user_id
        if grant_duration is not UNSET:
            field_dict["grantDuration"] = grant_duration
        if outcome is not UNSET:
            field_dict["outcome"] = outcome
        if outcome_time is not UNSET:
            field_dict["outcomeTime"] = outcome_time
        if source is not UNSET:
            field_dict["source"] = source

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.task_grant_source import TaskGrantSource  # noqa: PLC0415

        d = dict(src_dict)
        app_entitlement_id = d.pop("appEntitlementId", UNSET)

        app_id = d.pop("appId", UNSET)

        app_user_id = d.pop("appUserId", UNSET)

        identity_user_id = d.pop("identityUserId", UNSET)

        def _parse_grant_duration(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        grant_duration = _parse_grant_duration(d.pop("grantDuration", UNSET))

        def _parse_outcome(data: object) -> GrantOutcome | str | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                componentsschemas_grant_outcome_type_0 = GrantOutcome(data)

                return componentsschemas_grant_outcome_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(GrantOutcome | str | Unset, data)

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

        def _parse_source(data: object) -> None | TaskGrantSource | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                source_type_0 = TaskGrantSource.from_dict(data)

                return source_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TaskGrantSource | Unset, data)

        source = _parse_source(d.pop("source", UNSET))

        task_type_grant = cls(
            app_entitlement_id=app_entitlement_id,
            app_id=app_id,
            app_user_id=app_user_id,
            identity_user_id=identity_user_id,
            grant_duration=grant_duration,
            outcome=outcome,
            outcome_time=outcome_time,
            source=source,
        )

        task_type_grant.additional_properties = d
        return task_type_grant

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
