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
    """The body of every error response of this API (except the OAuth2 token endpoint, which follows RFC 6749 for
    all but its 429).
    `code` is a stable UPPER_SNAKE machine-readable reason, `message` is for humans and may change. The codes
    this version sends (new codes may be added; treat an unknown code by its HTTP status):

    | code | status | condition |
    |---|---|---|
    | `INVALID_ARGUMENT` | 400 | A parameter or the JSON body fails the contract (`details` names it), or the request is
    not valid HTTP/1.1. |
    | `MISSING_PARAMETER` | 400 | A required path or query parameter is absent. |
    | `MISSING_HEADER` | 400 | A required header is absent (`Webhook-Timestamp`, `Webhook-Event-Id`, `Content-Type`). |
    | `INVALID_CONTENT_TYPE` | 400 | The body is not `application/json`. |
    | `INVALID_JSON` | 400 | The body is not valid JSON (UTF-8, no NaN or Infinity, numbers a double can hold, nesting
    within limits, no unpaired surrogate escape such as `\\ud800`). |
    | `INVALID_TIMESTAMP` | 400 | `Webhook-Timestamp` is not whole Unix seconds. |
    | `TIMESTAMP_OUT_OF_WINDOW` | 400 | `Webhook-Timestamp` is more than 5 minutes from the server's time. |
    | `INVALID_EVENT_ID` | 400 | `Webhook-Event-Id` is not a UUID version 4. |
    | `INVALID_EXPAND_PATH` | 400 | An `expandMask.paths` value is not one of the allowed paths. |
    | `INVALID_PAGE_SIZE` | 400 | `page_size` is not an integer (out-of-range values are clamped, not rejected). |
    | `INVALID_PAGE_TOKEN` | 400 | `page_token` was altered, truncated, expired, or issued for another listing. |
    | `UNAUTHENTICATED` | 401 | No bearer token, or one that is unknown or expired. |
    | `MISSING_AUTHENTICATION` | 401 | A webhook without its `Webhook-Signature` or `Authorization: Bearer <JWT>`. |
    | `SIGNATURE_MISMATCH` | 401 | The HMAC signature does not match the request. |
    | `INVALID_TOKEN` | 401 | The webhook JWT is malformed, uses another algorithm, or its signature does not verify. |
    | `TOKEN_EXPIRED` | 401 | The webhook JWT's `exp` has passed (5 seconds of clock skew allowed). |
    | `INVALID_CLAIM` | 401 | A webhook JWT claim is missing or wrong (`sub`, `aud`, `exp` too far ahead, `jti`, `htm`,
    `htb_s256`). |
    | `UNKNOWN_KID` | 401 | The webhook JWT's `kid` is not in the listener's JWKS. |
    | `JWKS_UNREACHABLE` | 401 | The listener's JWKS could not be fetched or used (retried at most every 30 seconds). |
    | `PERMISSION_DENIED` | 403 | The caller's role does not include the action (for example restart for a viewer). |
    | `SOURCE_NOT_ALLOWED` | 403 | The source address is outside the listener's allowed CIDR ranges. |
    | `NOT_FOUND` | 404 | No such task, app, listener or route. |
    | `METHOD_NOT_ALLOWED` | 405 | The path exists but not with this method. |
    | `NOT_ACCEPTABLE` | 406 | The `Accept` header rules out the only media type the operation answers with. |
    | `DUPLICATE_EVENT` | 409 | The listener already received this `Webhook-Event-Id` (within 7 days). |
    | `TASK_NOT_RESTARTABLE` | 409 | The task is closed or deleted, has no policy workflow, or its baseline policy chain
    is broken. |
    | `PAYLOAD_TOO_LARGE` | 413 | The body exceeds the operation's limit (64 KB for webhooks). |
    | `REQUEST_HEADERS_TOO_LARGE` | 431 | A header line, the number of header lines or the whole request head exceeds
    the server's limits. |
    | `TOO_MANY_FAILED_ATTEMPTS` | 429 | Too many failed authentications from this source address (an IPv6 address
    counts by its /64); see `Retry-After`. A credential that verifies is never refused. |
    | `SERVICE_UNAVAILABLE` | 503 | The server is overloaded (its connection cap is reached) or shutting down, or its
    database cannot be reached; retry later. |
    | `KEY_UNAVAILABLE` | 503 | A stored secret this request needs (a webhook listener's signing secret) is sealed under
    a key the server does not have: an operator's key file or `ACCESSGOV_SECRET_KEY` is incomplete (`accessgov keys
    doctor`); retry later. |
    | `NOT_READY` | 503 | Readiness probe (internal): the database is unreachable or not migrated to the newest schema.
    |
    | `INTERNAL` | 500 | A fault of the server, never of the request. |

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
