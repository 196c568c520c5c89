from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.revoke_outcome import RevokeOutcome
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.app_resource_ref import AppResourceRef
    from ..models.task_revoke_source import TaskRevokeSource


T = TypeVar("T", bound="TaskTypeRevoke")


@_attrs_define
class TaskTypeRevoke:
    """Details of a revoke task. All fields are read-only.

    Attributes:
        app_entitlement_id (str | Unset): ID of the app entitlement being revoked.
        app_id (str | Unset): ID of the app the entitlement belongs to.
        app_user_id (str | Unset): ID of the app user losing the entitlement.
        identity_user_id (str | Unset): ID of the identity user losing the entitlement.
        outcome (RevokeOutcome | str | Unset): The outcome of a revoke task. Open enumeration: the values below are the
            ones known to this version of the contract; the service may add values at any time, so clients must accept any
            other string (see `x-open-enum` in the document info).
        outcome_time (datetime.datetime | None | Unset): When the outcome was reached.
        resource (AppResourceRef | None | Unset): The app resource the entitlement is on, when it is resource-scoped.
        source (None | TaskRevokeSource | Unset): Where the revoke request came from.
    """

    app_entitlement_id: str | Unset = UNSET
    app_id: str | Unset = UNSET
    app_user_id: str | Unset = UNSET
    identity_user_id: str | Unset = UNSET
    outcome: RevokeOutcome | str | Unset = UNSET
    outcome_time: datetime.datetime | None | Unset = UNSET
    resource: AppResourceRef | None | Unset = UNSET
    source: None | TaskRevokeSource | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.app_resource_ref import AppResourceRef  # noqa: PLC0415
        from ..models.task_revoke_source import TaskRevokeSource  # noqa: PLC0415

        app_entitlement_id = self.app_entitlement_id

        app_id = self.app_id

        app_user_id = self.app_user_id

        identity_user_id = self.identity_user_id

        outcome: str | Unset
        if isinstance(self.outcome, Unset):
            outcome = UNSET
        elif isinstance(self.outcome, RevokeOutcome):
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

        resource: dict[str, Any] | None | Unset
        if isinstance(self.resource, Unset):
            resource = UNSET
        elif isinstance(self.resource, AppResourceRef):
            resource = self.resource.to_dict()
        else:
            resource = self.resource

        source: dict[str, Any] | None | Unset
        if isinstance(self.source, Unset):
            source = UNSET
        elif isinstance(self.source, TaskRevokeSource):
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
        if outcome is not UNSET:
            field_dict["outcome"] = outcome
        if outcome_time is not UNSET:
            field_dict["outcomeTime"] = outcome_time
        if resource is not UNSET:
            field_dict["resource"] = resource
        if source is not UNSET:
            field_dict["source"] = source

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.app_resource_ref import AppResourceRef  # noqa: PLC0415
        from ..models.task_revoke_source import TaskRevokeSource  # noqa: PLC0415

        d = dict(src_dict)
        app_entitlement_id = d.pop("appEntitlementId", UNSET)

        app_id = d.pop("appId", UNSET)

        app_user_id = d.pop("appUserId", UNSET)

        identity_user_id = d.pop("identityUserId", UNSET)

        def _parse_outcome(data: object) -> RevokeOutcome | str | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                componentsschemas_revoke_outcome_type_0 = RevokeOutcome(data)

                return componentsschemas_revoke_outcome_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(RevokeOutcome | str | Unset, data)

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

        def _parse_resource(data: object) -> AppResourceRef | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                resource_type_0 = AppResourceRef.from_dict(data)

                return resource_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AppResourceRef | None | Unset, data)

        resource = _parse_resource(d.pop("resource", UNSET))

        def _parse_source(data: object) -> None | TaskRevokeSource | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                source_type_0 = TaskRevokeSource.from_dict(data)

                return source_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TaskRevokeSource | Unset, data)

        source = _parse_source(d.pop("source", UNSET))

        task_type_revoke = cls(
            app_entitlement_id=app_entitlement_id,
            app_id=app_id,
            app_user_id=app_user_id,
            identity_user_id=identity_user_id,
            outcome=outcome,
            outcome_time=outcome_time,
            resource=resource,
            source=source,
        )

        task_type_revoke.additional_properties = d
        return task_type_revoke

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
