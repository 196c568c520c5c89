from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.o_auth_token_request_grant_type import OAuthTokenRequestGrantType
from ..types import UNSET, Unset

T = TypeVar("T", bound="OAuthTokenRequest")


@_attrs_define
class OAuthTokenRequest:
    """OAuth2 client-credentials grant (RFC 6749 section 4.4), form-encoded. The client authenticates with `client_id` and
    `client_secret` in the body.

        Attributes:
            grant_type (OAuthTokenRequestGrantType): Always `client_credentials`.
            client_id (str): The OAuth client ID.
            client_secret (str): The OAuth client secret.
            scope (str | Unset): Ignored; tokens carry the client's roles.
    """

    grant_type: OAuthTokenRequestGrantType
    client_id: str
    client_secret: str
    scope: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        grant_type = self.grant_type.value

        client_id = self.client_id

        client_secret = self.client_secret

        scope = self.scope

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "grant_type": grant_type,
                "client_id": client_id,
                "client_secret": client_secret,
            }
        )
        if scope is not UNSET:
            field_dict["scope"] = scope

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        grant_type = OAuthTokenRequestGrantType(d.pop("grant_type"))

        client_id = d.pop("client_id")

        client_secret = d.pop("client_secret")

        scope = d.pop("scope", UNSET)

        o_auth_token_request = cls(
            grant_type=grant_type,
            client_id=client_id,
            client_secret=client_secret,
            scope=scope,
        )

        o_auth_token_request.additional_properties = d
        return o_auth_token_request

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
