"""Probes of the `types` and `errors` mutants (tests/conformance/selftest/mutants/shapes.py): one request each on which
the mutant answers differently from the unchanged reference server."""

from __future__ import annotations

from typing import Any

from tests.conformance.selftest.probes.probing import ADMIN, RESTART, Probe, Target

EXPAND_ALL = {"expandMask": {"paths": ["*"]}}
NO_TASK = "no-such-task"


def _task(t: Target) -> dict[str, Any]:
    task: dict[str, Any] = t.restart().json()["taskView"]["task"]
    return task


def _policy(t: Target) -> dict[str, Any]:
    policy: dict[str, Any] = _task(t)["policy"]["policy"]
    return policy


def _bad_page_size(t: Target) -> Any:
    return t.page(page_size="x")


def _request_id(t: Target, sent: str | bytes) -> str | None:
    """The X-Request-Id answered to a listing that sent `sent` (bytes: a non-ASCII value, as httpx takes it)."""
    headers: dict[str, Any] = {**ADMIN, "X-Request-Id": sent}
    value: str | None = t.page(headers=headers).headers.get("x-request-id")
    return value


def _oversized_restart(t: Target) -> int:
    body = b'{"comment":"' + b"a" * 65_600 + b'"}'
    headers = {**ADMIN, "Content-Type": "application/json"}
    return t.client.post(RESTART.format(t.fx.open_task_ids[0]), content=body, headers=headers).status_code


def _oversized_token(t: Target) -> int:
    body = b"grant_type=client_credentials&client_id=demo-client&client_secret=x&pad=" + b"a" * 65_600
    headers = {"Content-Type": "application/x-www-form-urlencoded"}
    return t.client.post("/auth/v1/token", content=body, headers=headers).status_code


PROBES: dict[str, Probe] = {
    "types-numeric-id-number": lambda t: type(_task(t)["numericId"]).__name__,
    "types-created-at-not-date-time": lambda t: _task(t)["createdAt"],
    "types-comment-count-string": lambda t: type(_task(t)["commentCount"]).__name__,
    "types-approver-ids-string": lambda t: type(_task(t)["stepApproverIds"]).__name__,
    "types-external-ref-name-number": lambda t: _task(t)["externalRefs"],
    "types-revocation-target-ref-string": lambda t: _task(t)["revocationTargets"],
    "types-entitlement-ref-app-id-number": lambda t: _task(t)["revocationTargets"],
    "types-external-ref-source-number": lambda t: _task(t)["externalRefs"],
    "types-state-number": lambda t: _task(t)["state"],
    "types-action-null": lambda t: None in _task(t)["actions"],
    "types-tasktype-two-members": lambda t: sorted(_task(t)["type"]),
    "types-tasktype-no-member": lambda t: sorted(_task(t)["type"]),
    "types-tasktype-member-null": lambda t: sorted(_task(t)["type"]),
    "types-action-two-targets": lambda t: sorted(_task(t)["type"]),
    "types-step-two-members": lambda t: sorted(_task(t)["policy"]["current"]),
    "types-next-step-no-member": lambda t: len(_task(t)["policy"]["next"]),
    "types-next-not-array": lambda t: type(_task(t)["policy"]["next"]).__name__,
    "types-annotations-17": lambda t: len(_policy(t)["annotations"]),
    "types-annotation-value-257": lambda t: _policy(t)["annotations"],
    "types-annotation-key-space": lambda t: _policy(t)["annotations"],
    "types-policy-no-baseline": lambda t: sorted(_policy(t)["policySteps"]),
    "types-policy-two-baselines": lambda t: _policy(t)["baselinePolicyId"],
    "types-policy-self-baseline": lambda t: _policy(t)["baselinePolicyId"] == _policy(t)["id"],
    "types-permission-not-boolean": lambda t: t.restart().json()["taskView"]["objectPermissions"],
    "types-expanded-without-type": lambda t: [
        "@type" in item for item in t.restart(body=EXPAND_ALL).json()["expanded"]
    ],
    "types-task-annotation-without-type": lambda t: _task(t)["annotations"],
    "types-list-expanded-without-type": lambda t: ["@type" in item for item in t.page().json()["expanded"]],
    "types-field-two-value-types": lambda t: _task(t)["form"],
    "types-field-two-configs": lambda t: _task(t)["form"],
    "types-string-field-two-views": lambda t: _task(t)["form"],
    "types-relationship-two-kinds": lambda t: _task(t)["form"],
    "errors-body-code-lowercase": lambda t: t.restart(NO_TASK).json()["code"],
    "errors-body-message-missing": lambda t: "message" in t.restart(NO_TASK).json(),
    "errors-body-array": lambda t: type(t.restart(NO_TASK).json()).__name__,
    "errors-body-details-object": lambda t: type(_bad_page_size(t).json()["details"]).__name__,
    "errors-body-detail-without-location": lambda t: "location" in _bad_page_size(t).json()["details"][0],
    "errors-body-problem-json": lambda t: t.restart(NO_TASK).headers["content-type"],
    "errors-body-422-for-400": lambda t: _bad_page_size(t).status_code,
    "errors-body-500-for-bad-page-size": lambda t: _bad_page_size(t).status_code,
    "errors-reqid-not-echoed": lambda t: _request_id(t, "selftest.probe:1"),
    "errors-reqid-invalid-echoed": lambda t: _request_id(t, "has spaces") == "has spaces",
    "errors-reqid-one-char-replaced": lambda t: _request_id(t, "Q") == "Q",
    "errors-reqid-max-64": lambda t: _request_id(t, "a" * 100) == "a" * 100,
    "errors-reqid-no-underscore-colon": lambda t: _request_id(t, "a_b:c") == "a_b:c",
    "errors-reqid-129-echoed": lambda t: _request_id(t, "a" * 129) == "a" * 129,
    "errors-reqid-129-truncated": lambda t: _request_id(t, "a" * 129) == "a" * 128,
    "errors-reqid-empty-echoed": lambda t: _request_id(t, "") == "",
    "errors-reqid-non-ascii-echoed": lambda t: _request_id(t, "ünïcode".encode()) == "ünïcode",
    "errors-reqid-invalid-refused": lambda t: t.page(headers={**ADMIN, "X-Request-Id": "has spaces"}).status_code,
    "errors-reqid-generated-malformed": lambda t: " " in (_request_id(t, "has spaces") or ""),
    "errors-reqid-missing-on-errors": lambda t: "x-request-id" in t.restart(NO_TASK).headers,
    "errors-reqid-missing-on-webhook": lambda t: "x-request-id" in t.webhook().headers,
    "errors-restart-body-unlimited": _oversized_restart,
    "errors-token-body-unlimited": _oversized_token,
    "errors-list-always-401": lambda t: t.page().status_code,
    "errors-webhook-always-403": lambda t: t.webhook().status_code,
}
