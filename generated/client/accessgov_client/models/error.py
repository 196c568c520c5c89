from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.error_detail import ErrorDetail


T = TypeVar("T", bound="Error")


@_attrs_define
class Error:
    """The body of every error response of this API (except the OAuth2 token endpoint, which follows RFC 6749). `code` is a
    stable UPPER_SNAKE machine-readable reason, `message` is for humans and may change.

        Attributes:
            code (str): Machine-readable reason, for example `INVALID_ARGUMENT`, `MISSING_HEADER`,
                `TIMESTAMP_OUT_OF_WINDOW`, `SIGNATURE_MISMATCH`, `SOURCE_NOT_ALLOWED`, `NOT_FOUND`, `DUPLICATE_EVENT`,
                `PAYLOAD_TOO_LARGE`, `TASK_NOT_RESTARTABLE`. New codes may be added; treat an unknown code by its HTTP status.
            message (str): Human-readable explanation.
            details (list[ErrorDetail] | Unset): Where the problem is, when it can be pinned to a part of the request.
    """

    code: str
    message: str
    details: list[ErrorDetail] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        code = self.code

        message = self.message

        details: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.details, Unset):
            details = []
            for details_item_data in self.details:
                details_item = details_item_data.to_dict()
                details.append(details_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "code": code,
                "message": message,
            }
        )
        if details is not UNSET:
            field_dict["details"] = details

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.error_detail import ErrorDetail  # noqa: PLC0415

        d = dict(src_dict)
        code = d.pop("code")

        message = d.pop("message")

        _details = d.pop("details", UNSET)
        details: list[ErrorDetail] | Unset = UNSET
        if _details is not UNSET:
            details = []
            for details_item_data in _details:
                details_item = ErrorDetail.from_dict(details_item_data)

                details.append(details_item)

        error = cls(
            code=code,
            message=message,
            details=details,
        )

        error.additional_properties = d
        return error

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
