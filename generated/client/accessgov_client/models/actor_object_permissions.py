from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.actor_object_permissions_extra import ActorObjectPermissionsExtra


T = TypeVar("T", bound="ActorObjectPermissions")


@_attrs_define
class ActorObjectPermissions:
    """What the calling user may do with an object.

    Attributes:
        read (bool | Unset): The caller may read the object.
        edit (bool | Unset): The caller may edit the object.
        delete (bool | Unset): The caller may delete the object.
        extra (ActorObjectPermissionsExtra | Unset): Further permissions by name.
    """

    read: bool | Unset = UNSET
    edit: bool | Unset = UNSET
    delete: bool | Unset = UNSET
    extra: ActorObjectPermissionsExtra | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        read = self.read

        edit = self.edit

        delete = self.delete

        extra: dict[str, Any] | Unset = UNSET
        if not isinstance(self.extra, Unset):
            extra = self.extra.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if read is not UNSET:
            field_dict["read"] = read
        if edit is not UNSET:
            field_dict["edit"] = edit
        if delete is not UNSET:
            field_dict["delete"] = delete
        if extra is not UNSET:
            field_dict["extra"] = extra

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.actor_object_permissions_extra import ActorObjectPermissionsExtra  # noqa: PLC0415

        d = dict(src_dict)
        read = d.pop("read", UNSET)

        edit = d.pop("edit", UNSET)

        delete = d.pop("delete", UNSET)

        _extra = d.pop("extra", UNSET)
        extra: ActorObjectPermissionsExtra | Unset
        if isinstance(_extra, Unset):
            extra = UNSET
        else:
            extra = ActorObjectPermissionsExtra.from_dict(_extra)

        actor_object_permissions = cls(
            read=read,
            edit=edit,
            delete=delete,
            extra=extra,
        )

        actor_object_permissions.additional_properties = d
        return actor_object_permissions

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
