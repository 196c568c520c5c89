from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="TypedObject")


@_attrs_define
class TypedObject:
    """An object whose string `@type` names its kind, with arbitrary further properties (a protobuf `Any` in JSON form).
    Used for task annotations and for the related objects of an `expanded` array. `@type` is required: the requirements
    give every such object a string `@type`.

        Attributes:
            type_ (str): The kind of the object, for example `type.googleapis.com/svc.api.app.v1.App`.
    """

    type_: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "@type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        type_ = d.pop("@type")

        typed_object = cls(
            type_=type_,
        )

        typed_object.additional_properties = d
        return typed_object

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
