"""Operations and webhooks: added, removed, their operationId and tags.

An operation removed breaks its clients unless it was deprecated first (then a warning), and even then before
its `x-sunset` date; a webhook removed leaves its subscribers without it. The operationId names the generated
client's methods: changing it is breaking for this contract (`severities.yaml`, policy `client-method-names`).
"""

from __future__ import annotations

from collections.abc import Iterator

from accessgov_tools.diffcheck.model import show
from accessgov_tools.diffcheck.rules.deprecation import removed_before_sunset
from accessgov_tools.diffcheck.rules.registry import BREAKING, INFO, WARNING, Context, Rule, RuleKey, Said, check
from accessgov_tools.diffcheck.walk.differences import OperationAdded, OperationIdChanged, OperationRemoved, TagChanged
from accessgov_tools.display import quote

ENDPOINT_ADDED = check("endpoint-added", INFO, "operation added")
API_REMOVED_WITHOUT_DEPRECATION = check(
    "api-removed-without-deprecation", BREAKING, "operation removed without being deprecated first"
)
API_REMOVED_WITH_DEPRECATION = check("api-removed-with-deprecation", WARNING, "deprecated operation removed")
API_REMOVED_BEFORE_SUNSET = check(
    "api-removed-before-sunset", BREAKING, "deprecated operation removed before its x-sunset date"
)
WEBHOOK_ADDED = check("webhook-added", INFO, "webhook operation added")
WEBHOOK_REMOVED = check(
    "webhook-removed", BREAKING, "webhook operation removed (subscribers relying on it get nothing)"
)
API_OPERATION_ID_REMOVED = check("api-operation-id-removed", INFO, "operationId changed or removed")
API_OPERATION_ID_ADDED = check("api-operation-id-added", INFO, "operationId added")
API_TAG_REMOVED = check("api-tag-removed", INFO, "tag removed from an operation")
API_TAG_ADDED = check("api-tag-added", INFO, "tag added to an operation")


def operation_added(d: OperationAdded, context: Context) -> Iterator[Said]:
    yield Said(WEBHOOK_ADDED if d.webhook else ENDPOINT_ADDED, f"{quote(d.label)} added", d.head)


def operation_removed(d: OperationRemoved, context: Context) -> Iterator[Said]:
    deprecated = d.operation.get("deprecated") is True
    check_ = API_REMOVED_WITH_DEPRECATION if deprecated else API_REMOVED_WITHOUT_DEPRECATION
    if deprecated and removed_before_sunset(d.operation, context.today):
        check_ = API_REMOVED_BEFORE_SUNSET
    yield Said(WEBHOOK_REMOVED if d.webhook else check_, f"{quote(d.label)} removed", d.head)


def operation_id_changed(d: OperationIdChanged, context: Context) -> Iterator[Said]:
    if d.before:
        text = f"operationId {show(d.before)} " + (f"changed to {show(d.after)}" if d.after else "removed")
        yield Said(API_OPERATION_ID_REMOVED, text + " (generated client method names follow it)", d.head)
    else:
        yield Said(API_OPERATION_ID_ADDED, f"operationId {show(d.after)} added", d.head)


def tag_changed(d: TagChanged, context: Context) -> Iterator[Said]:
    word = "added" if d.added else "removed"
    yield Said(API_TAG_ADDED if d.added else API_TAG_REMOVED, f"tag {quote(d.tag)} {word}", d.head)


RULES: dict[RuleKey, Rule] = {
    OperationAdded: operation_added,
    OperationRemoved: operation_removed,
    OperationIdChanged: operation_id_changed,
    TagChanged: tag_changed,
}
