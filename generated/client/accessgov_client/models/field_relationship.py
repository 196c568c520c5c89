from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.dependent_on import DependentOn
    from ..models.empty_object import EmptyObject


T = TypeVar("T", bound="FieldRelationship")


@_attrs_define
class FieldRelationship:
    """A constraint between the fields named in `fieldNames`. Exactly one kind is set: `requiredTogether`, `atLeastOne`,
    `mutuallyExclusive` or `dependentOn`.

        Attributes:
            field_names (list[str] | Unset): Names of the fields the relationship constrains.
            required_together (EmptyObject | Unset): A marker with no fields; its presence is the information.
            at_least_one (EmptyObject | Unset): A marker with no fields; its presence is the information.
            mutually_exclusive (EmptyObject | Unset): A marker with no fields; its presence is the information.
            dependent_on (DependentOn | Unset): The fields in `fieldNames` are valid only if all dependency fields are
                present.
    """

    field_names: list[str] | Unset = UNSET
    required_together: EmptyObject | Unset = UNSET
    at_least_one: EmptyObject | Unset = UNSET
    mutually_exclusive: EmptyObject | Unset = UNSET
    dependent_on: DependentOn | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        field_names: list[str] | Unset = UNSET
        if not isinstance(self.field_names, Unset):
            field_names = self.field_names

        required_together: dict[str, Any] | Unset = UNSET
        if not isinstance(self.required_together, Unset):
            required_together = self.required_together.to_dict()

        at_least_one: dict[str, Any] | Unset = UNSET
        if not isinstance(self.at_least_one, Unset):
            at_least_one = self.at_least_one.to_dict()

        mutually_exclusive: dict[str, Any] | Unset = UNSET
        if not isinstance(self.mutually_exclusive, Unset):
            mutually_exclusive = self.mutually_exclusive.to_dict()

        dependent_on: dict[str, Any] | Unset = UNSET
        if not isinstance(self.dependent_on, Unset):
            dependent_on = self.dependent_on.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if field_names is not UNSET:
            field_dict["fieldNames"] = field_names
        if required_together is not UNSET:
            field_dict["requiredTogether"] = required_together
        if at_least_one is not UNSET:
            field_dict["atLeastOne"] = at_least_one
        if mutually_exclusive is not UNSET:
            field_dict["mutuallyExclusive"] = mutually_exclusive
        if dependent_on is not UNSET:
            field_dict["dependentOn"] = dependent_on

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.dependent_on import DependentOn  # noqa: PLC0415
        from ..models.empty_object import EmptyObject  # noqa: PLC0415

        d = dict(src_dict)
        field_names = cast(list[str], d.pop("fieldNames", UNSET))

        _required_together = d.pop("requiredTogether", UNSET)
        required_together: EmptyObject | Unset
        if isinstance(_required_together, Unset):
            required_together = UNSET
        else:
            required_together = EmptyObject.from_dict(_required_together)

        _at_least_one = d.pop("atLeastOne", UNSET)
        at_least_one: EmptyObject | Unset
        if isinstance(_at_least_one, Unset):
            at_least_one = UNSET
        else:
            at_least_one = EmptyObject.from_dict(_at_least_one)

        _mutually_exclusive = d.pop("mutuallyExclusive", UNSET)
        mutually_exclusive: EmptyObject | Unset
        if isinstance(_mutually_exclusive, Unset):
            mutually_exclusive = UNSET
        else:
            mutually_exclusive = EmptyObject.from_dict(_mutually_exclusive)

        _dependent_on = d.pop("dependentOn", UNSET)
        dependent_on: DependentOn | Unset
        if isinstance(_dependent_on, Unset):
            dependent_on = UNSET
        else:
            dependent_on = DependentOn.from_dict(_dependent_on)

        field_relationship = cls(
            field_names=field_names,
            required_together=required_together,
            at_least_one=at_least_one,
            mutually_exclusive=mutually_exclusive,
            dependent_on=dependent_on,
        )

        field_relationship.additional_properties = d
        return field_relationship

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
