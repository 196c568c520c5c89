"""Request bodies and responses: a body added, removed or made required, response statuses, media types, headers.

A required request body added, or one made required, breaks requests that have none; a request media type
removed breaks the clients that send it. A 2xx/3xx status removed breaks the clients that expected it (a 4xx/5xx
one is an addition to the changelog either way); a response media type removed breaks its readers, one renamed
to the general type of its `+suffix` too. A required response header removed, or one no longer always sent,
breaks the clients that read it.
"""

from __future__ import annotations

from collections.abc import Iterator

from accessgov_tools.diffcheck.rules.registry import BREAKING, INFO, WARNING, Context, Rule, RuleKey, Said, check
from accessgov_tools.diffcheck.walk.differences import (
    HeaderAdded,
    HeaderRemoved,
    HeaderRequiredChanged,
    MediaTypeChanged,
    MediaTypeRenamed,
    RequestBodyAdded,
    RequestBodyRemoved,
    RequestBodyRequiredChanged,
    ResponseChanged,
)
from accessgov_tools.display import quote

REQUEST_BODY_ADDED_REQUIRED = check("request-body-added-required", BREAKING, "required request body added")
REQUEST_BODY_ADDED_OPTIONAL = check("request-body-added-optional", INFO, "optional request body added")
REQUEST_BODY_REMOVED = check("request-body-removed", BREAKING, "request body removed")
REQUEST_BODY_BECAME_REQUIRED = check("request-body-became-required", BREAKING, "request body now required")
REQUEST_BODY_BECAME_OPTIONAL = check("request-body-became-optional", INFO, "request body now optional")
REQUEST_BODY_MEDIA_TYPE_ADDED = check("request-body-media-type-added", INFO, "request media type added")
REQUEST_BODY_MEDIA_TYPE_REMOVED = check("request-body-media-type-removed", BREAKING, "request media type removed")

RESPONSE_SUCCESS_STATUS_REMOVED = check("response-success-status-removed", BREAKING, "2xx/3xx response status removed")
RESPONSE_NON_SUCCESS_STATUS_REMOVED = check(
    "response-non-success-status-removed", INFO, "4xx/5xx/default response status removed"
)
RESPONSE_SUCCESS_STATUS_ADDED = check("response-success-status-added", INFO, "2xx/3xx response status added")
RESPONSE_NON_SUCCESS_STATUS_ADDED = check(
    "response-non-success-status-added", INFO, "4xx/5xx/default response status added"
)
RESPONSE_MEDIA_TYPE_REMOVED = check("response-media-type-removed", BREAKING, "response media type removed")
RESPONSE_MEDIA_TYPE_ADDED = check("response-media-type-added", INFO, "response media type added")
RESPONSE_MEDIA_TYPE_NAME_CHANGED = check(
    "response-media-type-name-changed", INFO, "response media type parameters changed"
)
RESPONSE_MEDIA_TYPE_NAME_SPECIALIZED = check(
    "response-media-type-name-specialized", INFO, "response media type now a suffix type of it (+json)"
)
RESPONSE_MEDIA_TYPE_NAME_GENERALIZED = check(
    "response-media-type-name-generalized", BREAKING, "response media type now the general type of its suffix"
)
REQUIRED_RESPONSE_HEADER_REMOVED = check(
    "required-response-header-removed", BREAKING, "required response header removed"
)
OPTIONAL_RESPONSE_HEADER_REMOVED = check(
    "optional-response-header-removed", WARNING, "optional response header removed"
)
RESPONSE_HEADER_ADDED = check("response-header-added", INFO, "response header added")
RESPONSE_HEADER_BECAME_OPTIONAL = check(
    "response-header-became-optional", BREAKING, "response header no longer always sent"
)
RESPONSE_HEADER_BECAME_REQUIRED = check("response-header-became-required", INFO, "response header now always sent")


def body_added(d: RequestBodyAdded, context: Context) -> Iterator[Said]:
    check_ = REQUEST_BODY_ADDED_REQUIRED if d.required else REQUEST_BODY_ADDED_OPTIONAL
    yield Said(check_, f"{'required' if d.required else 'optional'} request body added", d.head)


def body_removed(d: RequestBodyRemoved, context: Context) -> Iterator[Said]:
    yield Said(REQUEST_BODY_REMOVED, "request body removed", d.head)


def body_required_changed(d: RequestBodyRequiredChanged, context: Context) -> Iterator[Said]:
    check_ = REQUEST_BODY_BECAME_REQUIRED if d.required else REQUEST_BODY_BECAME_OPTIONAL
    yield Said(check_, f"request body is now {'required' if d.required else 'optional'}", d.head)


def media_type_changed(d: MediaTypeChanged, context: Context) -> Iterator[Said]:
    if d.status is None:
        check_ = REQUEST_BODY_MEDIA_TYPE_ADDED if d.added else REQUEST_BODY_MEDIA_TYPE_REMOVED
        label = "request media type"
    else:
        check_ = RESPONSE_MEDIA_TYPE_ADDED if d.added else RESPONSE_MEDIA_TYPE_REMOVED
        label = f"response {d.status}: media type"
    yield Said(check_, f"{label} {quote(d.media)} {'added' if d.added else 'removed'}", d.head)


def media_type_renamed(d: MediaTypeRenamed, context: Context) -> Iterator[Said]:
    check_ = {
        "changed": RESPONSE_MEDIA_TYPE_NAME_CHANGED,
        "specialized": RESPONSE_MEDIA_TYPE_NAME_SPECIALIZED,
        "generalized": RESPONSE_MEDIA_TYPE_NAME_GENERALIZED,
    }[d.relation]
    yield Said(check_, f"response {d.status}: media type {quote(d.before)} {d.relation} to {quote(d.after)}", d.head)


def response_changed(d: ResponseChanged, context: Context) -> Iterator[Said]:
    success = d.status.startswith(("2", "3"))
    if d.added:
        check_ = RESPONSE_SUCCESS_STATUS_ADDED if success else RESPONSE_NON_SUCCESS_STATUS_ADDED
    else:
        check_ = RESPONSE_SUCCESS_STATUS_REMOVED if success else RESPONSE_NON_SUCCESS_STATUS_REMOVED
    yield Said(check_, f"response status {d.status} {'added' if d.added else 'removed'}", d.head)


def header_added(d: HeaderAdded, context: Context) -> Iterator[Said]:
    yield Said(RESPONSE_HEADER_ADDED, f"{d.label} added", d.head)


def header_removed(d: HeaderRemoved, context: Context) -> Iterator[Said]:
    check_ = REQUIRED_RESPONSE_HEADER_REMOVED if d.required else OPTIONAL_RESPONSE_HEADER_REMOVED
    yield Said(check_, f"{d.label} removed", d.head)


def header_required_changed(d: HeaderRequiredChanged, context: Context) -> Iterator[Said]:
    check_ = RESPONSE_HEADER_BECAME_REQUIRED if d.required else RESPONSE_HEADER_BECAME_OPTIONAL
    yield Said(check_, f"{d.label} is now {'always sent' if d.required else 'optional'}", d.head)


RULES: dict[RuleKey, Rule] = {
    RequestBodyAdded: body_added,
    RequestBodyRemoved: body_removed,
    RequestBodyRequiredChanged: body_required_changed,
    MediaTypeChanged: media_type_changed,
    MediaTypeRenamed: media_type_renamed,
    ResponseChanged: response_changed,
    HeaderAdded: header_added,
    HeaderRemoved: header_removed,
    HeaderRequiredChanged: header_required_changed,
}
