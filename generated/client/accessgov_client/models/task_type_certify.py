from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.certify_outcome import CertifyOutcome
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.app_resource_ref import AppResourceRef


T = TypeVar("T", bound="TaskTypeCertify")


@_attrs_define
class TaskTypeCertify:
    """Details of a certify (access review) task. All fields are read-only.

    Attributes:
        access_review_id (str | Unset): ID of the access review the task belongs to.
        access_review_selection (str | Unset): The access review selection the task certifies. Also set on a revoke task
            created from a denied certify outcome.
        app_entitlement_id (str | Unset): ID of the app entitlement under review.
        app_id (str | Unset): ID of the app under review.
        app_user_id (str | Unset): ID of the app user under review.
        identity_user_id (str | Unset): ID of the identity user under review.
        outcome (CertifyOutcome | str | Unset): The outcome of a certify task. Open enumeration: the values below are
            the ones known to this version of the contract; the service may add values at any time, so clients must accept
            any other string (see `x-open-enum` in the document info).
        outcome_time (datetime.datetime | None | Unset): When the outcome was reached.
        resource (AppResourceRef | None | Unset): The app resource under review, when it is resource-scoped.
    """

    access_review_id: str | Unset = UNSET
    access_review_selection: str | Unset = UNSET
    app_entitlement_id: str | Unset = UNSET
    app_id: str | Unset = UNSET
    app_user_id: str | Unset = UNSET
    identity_user_id: str | Unset = UNSET
    outcome: CertifyOutcome | str | Unset = UNSET
    outcome_time: datetime.datetime | None | Unset = UNSET
    resource: AppResourceRef | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.app_resource_ref import AppResourceRef  # noqa: PLC0415

        access_review_id = self.access_review_id

        access_review_selection = self.access_review_selection

        app_entitlement_id = self.app_entitlement_id

        app_id = self.app_id

        app_user_id = self.app_user_id

        identity_user_id = self.identity_user_id

        outcome: str | Unset
        if isinstance(self.outcome, Unset):
            outcome = UNSET
        elif isinstance(self.outcome, CertifyOutcome):
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

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if access_review_id is not UNSET:
            field_dict["accessReviewId"] = access_review_id
        if access_review_selection is not UNSET:
            field_dict["accessReviewSelection"] = access_review_selection
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

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.app_resource_ref import AppResourceRef  # noqa: PLC0415

        d = dict(src_dict)
        access_review_id = d.pop("accessReviewId", UNSET)

        access_review_selection = d.pop("accessReviewSelection", UNSET)

        app_entitlement_id = d.pop("appEntitlementId", UNSET)

        app_id = d.pop("appId", UNSET)

        app_user_id = d.pop("appUserId", UNSET)

        identity_user_id = d.pop("identityUserId", UNSET)

        def _parse_outcome(data: object) -> CertifyOutcome | str | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                componentsschemas_certify_outcome_type_0 = CertifyOutcome(data)

                return componentsschemas_certify_outcome_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CertifyOutcome | str | Unset, data)

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

        task_type_certify = cls(
            access_review_id=access_review_id,
            access_review_selection=access_review_selection,
            app_entitlement_id=app_entitlement_id,
            app_id=app_id,
            app_user_id=app_user_id,
            identity_user_id=identity_user_id,
            outcome=outcome,
            outcome_time=outcome_time,
            resource=resource,
        )

        task_type_certify.additional_properties = d
        return task_type_certify

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
