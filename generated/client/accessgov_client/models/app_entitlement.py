from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="AppEntitlement")


@_attrs_define
class AppEntitlement:
    """A permission that can be granted in an app. Only the fields listed here are part of this contract; the object is
    open and the service may send more.

        Attributes:
            id (str | Unset): Entitlement ID, unique within its app.
            app_id (str | Unset): ID of the app.
            display_name (str | Unset): Display name.
            description (str | Unset): Description.
            slug (str | Unset): Short machine-friendly name, for example `admin`.
            created_at (datetime.datetime | None | Unset): When the entitlement was created.
    """

    id: str | Unset = UNSET
    app_id: str | Unset = UNSET
    display_name: str | Unset = UNSET
    description: str | Unset = UNSET
    slug: str | Unset = UNSET
    created_at: datetime.datetime | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        app_id = self.app_id

        display_name = self.display_name

        description = self.description

        slug = self.slug

        created_at: None | str | Unset
        if isinstance(self.created_at, Unset):
            created_at = UNSET
        elif isinstance(self.created_at, datetime.datetime):
            created_at = self.created_at.isoformat()
        else:
            created_at = self.created_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if id is not UNSET:
            field_dict["id"] = id
        if app_id is not UNSET:
            field_dict["appId"] = app_id
        if display_name is not UNSET:
            field_dict["displayName"] = display_name
        if description is not UNSET:
            field_dict["description"] = description
        if slug is not UNSET:
            field_dict["slug"] = slug
        if created_at is not UNSET:
            field_dict["createdAt"] = created_at

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id", UNSET)

        app_id = d.pop("appId", UNSET)

        display_name = d.pop("displayName", UNSET)

        description = d.pop("description", UNSET)

        slug = d.pop("slug", UNSET)

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

        app_entitlement = cls(
            id=id,
            app_id=app_id,
            display_name=display_name,
            description=description,
            slug=slug,
            created_at=created_at,
        )

        app_entitlement.additional_properties = d
        return app_entitlement

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
