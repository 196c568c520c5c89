from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.field import Field
    from ..models.field_group import FieldGroup
    from ..models.field_relationship import FieldRelationship


T = TypeVar("T", bound="Form")


@_attrs_define
class Form:
    """A form collected for a task.

    Attributes:
        id (str | Unset): Form ID.
        display_name (str | Unset): Display name.
        description (str | Unset): Description.
        fields (list[Field] | None | Unset): The fields of the form.
        field_groups (list[FieldGroup] | None | Unset): Groups of fields, for display.
        field_relationships (list[FieldRelationship] | None | Unset): Constraints between fields.
    """

    id: str | Unset = UNSET
    display_name: str | Unset = UNSET
    description: str | Unset = UNSET
    fields: list[Field] | None | Unset = UNSET
    field_groups: list[FieldGroup] | None | Unset = UNSET
    field_relationships: list[FieldRelationship] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        display_name = self.display_name

        description = self.description

        fields: list[dict[str, Any]] | None | Unset
        if isinstance(self.fields, Unset):
            fields = UNSET
        elif isinstance(self.fields, list):
            fields = []
            for fields_type_0_item_data in self.fields:
                fields_type_0_item = fields_type_0_item_data.to_dict()
                fields.append(fields_type_0_item)

        else:
            fields = self.fields

        field_groups: list[dict[str, Any]] | None | Unset
        if isinstance(self.field_groups, Unset):
            field_groups = UNSET
        elif isinstance(self.field_groups, list):
            field_groups = []
            for field_groups_type_0_item_data in self.field_groups:
                field_groups_type_0_item = field_groups_type_0_item_data.to_dict()
                field_groups.append(field_groups_type_0_item)

        else:
            field_groups = self.field_groups

        field_relationships: list[dict[str, Any]] | None | Unset
        if isinstance(self.field_relationships, Unset):
            field_relationships = UNSET
        elif isinstance(self.field_relationships, list):
            field_relationships = []
            for field_relationships_type_0_item_data in self.field_relationships:
                field_relationships_type_0_item = field_relationships_type_0_item_data.to_dict()
                field_relationships.append(field_relationships_type_0_item)

        else:
            field_relationships = self.field_relationships

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if id is not UNSET:
            field_dict["id"] = id
        if display_name is not UNSET:
            field_dict["displayName"] = display_name
        if description is not UNSET:
            field_dict["description"] = description
        if fields is not UNSET:
            field_dict["fields"] = fields
        if field_groups is not UNSET:
            field_dict["fieldGroups"] = field_groups
        if field_relationships is not UNSET:
            field_dict["fieldRelationships"] = field_relationships

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.field import Field  # noqa: PLC0415
        from ..models.field_group import FieldGroup  # noqa: PLC0415
        from ..models.field_relationship import FieldRelationship  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id", UNSET)

        display_name = d.pop("displayName", UNSET)

        description = d.pop("description", UNSET)

        def _parse_fields(data: object) -> list[Field] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                fields_type_0 = []
                _fields_type_0 = data
                for fields_type_0_item_data in _fields_type_0:
                    fields_type_0_item = Field.from_dict(fields_type_0_item_data)

                    fields_type_0.append(fields_type_0_item)

                return fields_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[Field] | None | Unset, data)

        fields = _parse_fields(d.pop("fields", UNSET))

        def _parse_field_groups(data: object) -> list[FieldGroup] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                field_groups_type_0 = []
                _field_groups_type_0 = data
                for field_groups_type_0_item_data in _field_groups_type_0:
                    field_groups_type_0_item = FieldGroup.from_dict(field_groups_type_0_item_data)

                    field_groups_type_0.append(field_groups_type_0_item)

                return field_groups_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[FieldGroup] | None | Unset, data)

        field_groups = _parse_field_groups(d.pop("fieldGroups", UNSET))

        def _parse_field_relationships(data: object) -> list[FieldRelationship] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                field_relationships_type_0 = []
                _field_relationships_type_0 = data
                for field_relationships_type_0_item_data in _field_relationships_type_0:
                    field_relationships_type_0_item = FieldRelationship.from_dict(field_relationships_type_0_item_data)

                    field_relationships_type_0.append(field_relationships_type_0_item)

                return field_relationships_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[FieldRelationship] | None | Unset, data)

        field_relationships = _parse_field_relationships(d.pop("fieldRelationships", UNSET))

        form = cls(
            id=id,
            display_name=display_name,
            description=description,
            fields=fields,
            field_groups=field_groups,
            field_relationships=field_relationships,
        )

        form.additional_properties = d
        return form

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
