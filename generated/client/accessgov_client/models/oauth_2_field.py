from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.oauth_2_field_view import Oauth2FieldView


T = TypeVar("T", bound="Oauth2Field")


@_attrs_define
class Oauth2Field:
    """An OAuth2 credential obtained by connecting an account. Its view is `oauth2FieldView`.

    Attributes:
        oauth_2_field_view (Oauth2FieldView | Unset): View: an OAuth2 connect button. Its fields are outside this
            contract: the object is open, clients must keep and ignore members they do not know, and servers may send any
            members.
    """

    oauth_2_field_view: Oauth2FieldView | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        oauth_2_field_view: dict[str, Any] | Unset = UNSET
        if not isinstance(self.oauth_2_field_view, Unset):
            oauth_2_field_view = self.oauth_2_field_view.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if oauth_2_field_view is not UNSET:
            field_dict["oauth2FieldView"] = oauth_2_field_view

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.oauth_2_field_view import Oauth2FieldView  # noqa: PLC0415

        d = dict(src_dict)
        _oauth_2_field_view = d.pop("oauth2FieldView", UNSET)
        oauth_2_field_view: Oauth2FieldView | Unset
        if isinstance(_oauth_2_field_view, Unset):
            oauth_2_field_view = UNSET
        else:
            oauth_2_field_view = Oauth2FieldView.from_dict(_oauth_2_field_view)

        oauth_2_field = cls(
            oauth_2_field_view=oauth_2_field_view,
        )

        oauth_2_field.additional_properties = d
        return oauth_2_field

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
