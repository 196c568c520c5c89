"""A deterministic demo tenant: users, apps, entitlements, policies and tasks of every kind.

Everything derives from one seeded `random.Random`, so two runs produce identical data (ids included);
timestamps are offsets from a fixed epoch, not from the wall clock.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

EPOCH = datetime(2026, 1, 1, tzinfo=UTC)
PAGING_APP_ID = "app-github"
PAGING_APP_ENTITLEMENTS = 2500
TASK_KINDS = ("grant", "revoke", "certify", "offboarding", "action", "finding")
# Each kind's outcome enum and the value of a closed task (an open one has `<enum>_UNSPECIFIED`).
OUTCOMES = {
    "grant": ("GRANT_OUTCOME", "GRANTED"),
    "revoke": ("REVOKE_OUTCOME", "REVOKED"),
    "certify": ("CERTIFY_OUTCOME", "CERTIFIED"),
    "offboarding": ("OFFBOARDING_OUTCOME", "DONE"),
    "action": ("ACTION_OUTCOME", "SUCCESS"),
    "finding": ("FINDING_TASK_OUTCOME", "REMEDIATED"),
}
POLICY_FOR_KIND = {
    "grant": "policy-grant",
    "revoke": "policy-revoke",
    "certify": "policy-certify",
    "offboarding": "policy-provision",
    "action": "policy-access-request",
    "finding": "policy-revoke",
}


def ts(minutes: int) -> str:
    """An RFC 3339 timestamp `minutes` after the demo epoch."""
    return (EPOCH + timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class DemoTenant:
    """All demo documents, in API (camelCase) shape."""

    users: list[dict[str, Any]] = field(default_factory=list)
    apps: list[dict[str, Any]] = field(default_factory=list)
    policies: list[dict[str, Any]] = field(default_factory=list)
    tasks: list[dict[str, Any]] = field(default_factory=list)

    def entitlements(self, app_id: str) -> Iterator[dict[str, Any]]:
        """The entitlements of `app_id` (generated lazily: the paging app has thousands)."""
        count = PAGING_APP_ENTITLEMENTS if app_id == PAGING_APP_ID else 12
        for n in range(1, count + 1):
            yield entitlement(app_id, n)


def entitlement_id(app_id: str, n: int) -> str:
    """The `n`th entitlement's id, unique across apps: `ent-0000042` in the paging app, `ent-slack-0000042` in
    app-slack (one id never names two entitlements, in a listing or in a restart's `expanded`)."""
    return f"ent-{n:07d}" if app_id == PAGING_APP_ID else f"ent-{app_id.removeprefix('app-')}-{n:07d}"


def entitlement(app_id: str, n: int) -> dict[str, Any]:
    slug = ("admin", "maintainer", "write", "triage", "read")[n % 5]
    return {
        "id": entitlement_id(app_id, n),
        "appId": app_id,
        "displayName": f"{slug.title()} #{n}",
        "description": f"{slug} access, entitlement {n} of {app_id}",
        "slug": f"{slug}-{n}",
        "createdAt": ts(n % 1440),
    }


def _steps(*members: str) -> dict[str, Any]:
    definitions: dict[str, dict[str, Any]] = {
        "approval": {"approverIds": ["user-0002"], "requireDistinctApprovers": False},
        "provision": {"mode": "automatic"},
        "accept": {"acceptMessage": "Accepted by policy"},
        "reject": {"rejectMessage": "Rejected by policy"},
        "wait": {"duration": "PT1H"},
        "form": {"formId": "form-justification"},
        "action": {"actionId": "action-notify"},
    }
    return {"steps": [{member: dict(definitions[member])} for member in members]}


FORM_FIRST = "3d6f1a52-9b0e-4c7d-8e21-5a4b6c7d8e9f"


def policies() -> list[dict[str, Any]]:
    elevated = "8f2c1c2e-7a55-4a3e-9f0e-2b7d5c1a9e40"
    base: dict[str, Any] = {
        "rules": [],
        "baselinePolicyId": "",
        "postActions": [],
        "annotations": {"managed_by": "demo"},
        "scope": None,
        "reassignTasksToDelegates": False,
        "systemBuiltin": False,
        "createdAt": ts(0),
        "updatedAt": ts(0),
        "deletedAt": None,
    }
    return [
        {
            **base,
            "id": "policy-grant",
            "displayName": "Grant: manager approval, then provisioning",
            "description": "Emergency requests need a second approval.",
            "policyType": "POLICY_TYPE_GRANT",
            "policySteps": {
                "grant": _steps("approval", "provision"),
                elevated: _steps("approval", "approval", "provision"),
            },
            "rules": [{"condition": "task.emergencyAccess == true", "policyKey": elevated}],
        },
        {
            **base,
            "id": "policy-revoke",
            "displayName": "Revoke: provision directly",
            "description": "",
            "policyType": "POLICY_TYPE_REVOKE",
            "policySteps": {"revoke": _steps("provision")},
        },
        {
            **base,
            "id": "policy-certify",
            "displayName": "Certify: reviewer approval",
            "description": "",
            "policyType": "POLICY_TYPE_CERTIFY",
            "policySteps": {"certify": _steps("approval", "accept")},
        },
        {
            **base,
            "id": "policy-provision",
            "displayName": "Provision: wait, then provision",
            "description": "",
            "policyType": "POLICY_TYPE_PROVISION",
            "policySteps": {"provision": _steps("wait", "provision")},
        },
        {
            **base,
            "id": "policy-access-request",
            "displayName": "Access request: defers to the grant policy",
            "description": "Uses the grant policy's steps when no rule matches.",
            "policyType": "POLICY_TYPE_ACCESS_REQUEST",
            # A non-baseline entry has an opaque UUID key (Policy.policySteps).
            "policySteps": {FORM_FIRST: _steps("form", "action")},
            "rules": [{"condition": "task.commentCount > 100", "policyKey": FORM_FIRST}],
            "baselinePolicyId": "policy-grant-for-requests",
        },
        {
            **base,
            "id": "policy-grant-for-requests",
            "displayName": "Access request baseline",
            "description": "",
            "policyType": "POLICY_TYPE_ACCESS_REQUEST",
            "policySteps": {"access_request": _steps("form", "approval", "action")},
            "systemBuiltin": True,
        },
    ]


def _task_type(kind: str, rng: random.Random, users: list[str], closed: bool, n: int) -> dict[str, Any]:
    app_id = PAGING_APP_ID if n % 3 == 0 else f"app-{('okta', 'aws', 'slack', 'jira', 'salesforce')[n % 5]}"
    user = rng.choice(users)
    enum, closed_value = OUTCOMES[kind]
    outcome = f"{enum}_{closed_value if closed else 'UNSPECIFIED'}"
    outcome_time = ts(n + 600) if closed else None
    common = {
        "appEntitlementId": entitlement_id(app_id, rng.randint(1, 12)),
        "appId": app_id,
        "appUserId": f"appuser-{user}-{app_id}",
        "identityUserId": user,
        "outcome": outcome,
        "outcomeTime": outcome_time,
    }
    member: dict[str, Any]
    if kind == "grant":
        member = {**common, "grantDuration": rng.choice(["PT4H", "P1D", None]), "source": None}
    elif kind == "revoke":
        member = {**common, "resource": None, "source": {"kind": "non-usage"}}
    elif kind == "certify":
        member = {
            **common,
            "accessReviewId": f"review-{n % 4 + 1:03d}",
            "accessReviewSelection": f"selection-{n:05d}",
            "resource": {"appId": app_id, "resourceTypeId": "repository", "resourceId": f"repo-{n % 9}"},
        }
    elif kind == "offboarding":
        member = {"subjectUserId": user, "outcome": outcome, "outcomeTime": outcome_time}
    elif kind == "finding":
        member = {
            "findingId": f"finding-{n:05d}",
            "findingType": rng.choice(["UNUSED_ACCESS", "TOXIC_COMBINATION"]),
            "outcome": outcome,
            "outcomeTime": outcome_time,
        }
    else:
        member = {
            "actionId": "action-rotate-key",
            "actionInstance": None,
            "createdAppEntitlementIds": [],
            "createdAppResourceId": "",
            "createdAppResourceTypeId": "",
            "displayName": "Rotate deploy key",
            "formValues": {"reason": "scheduled"},
            "outcome": outcome,
            "outcomeTime": outcome_time,
            "type": "TYPE_WORKFLOW",
            "scopeRole": {"scopeId": f"scope-{n % 3}", "roleId": "role-admin"} if n % 2 else None,
            "toolCall": None,
            "finding": None,
            "credentialIssue": None,
        }
    return {kind: member}


def _task(n: int, kind: str, rng: random.Random, users: list[str], policy: dict[str, Any]) -> dict[str, Any]:
    closed = n % 7 == 0
    deleted = n % 31 == 0
    created = n * 13
    first_steps = next(iter(policy["policySteps"].values()))["steps"] if policy["policySteps"] else []
    current = None
    if not closed and first_steps:
        member, definition = next(iter(first_steps[0].items()))
        current = {
            "id": f"step-{n:05d}-1",
            "policyGenerationId": "gen-1",
            "state": "POLICY_STEP_STATE_ACTIVE",
            member: dict(definition),
        }
    user = rng.choice(users)
    approvers = rng.sample(users, 2) if n % 4 == 0 else []
    return {
        "id": str(uuid.UUID(int=rng.getrandbits(128), version=4)).replace("-", "")[:27],
        "numericId": str(1000 + n),
        "displayName": f"{kind.title()} task #{1000 + n}",
        "description": f"Demo {kind} task {n}",
        "state": "TASK_STATE_CLOSED" if closed else "TASK_STATE_OPEN",
        "processing": "TASK_PROCESSING_TYPE_DONE"
        if closed
        else rng.choice(["TASK_PROCESSING_TYPE_PROCESSING", "TASK_PROCESSING_TYPE_WAITING"]),
        "origin": rng.choice(
            ["TASK_ORIGIN_WEBAPP", "TASK_ORIGIN_API", "TASK_ORIGIN_SLACK", "TASK_ORIGIN_ACCESS_REVIEW"]
        ),
        "type": _task_type(kind, rng, users, closed, n),
        "policy": {
            "current": current,
            "history": [],
            "next": [dict(step) for step in first_steps[1:]] if current else [],
            "policy": policy,
        },
        "policyGenerationId": "gen-1",
        "form": None,
        "actions": [],
        "analysisId": "",
        "annotations": [],
        "approverIds": approvers,
        "stepApproverIds": ["user-0002"] if current and "approval" in current else [],
        "commentCount": n % 3,
        "createdAt": ts(created),
        "updatedAt": ts(created + 5),
        "deletedAt": ts(created + 10) if deleted else None,
        "createdByUserId": rng.choice(users),
        "userId": user,
        "data": {},
        "emergencyAccess": kind == "grant" and n % 5 == 0,
        "externalRefs": [],
        "insightIds": [f"insight-{n % 11}"] if n % 2 == 0 else [],
        "recommendation": "INSIGHT_RECOMMENDATION_UNSPECIFIED",
        "revocationTargets": [],
    }


def build(seed: int = 42, tasks_per_kind: int = 50) -> DemoTenant:
    """The demo tenant for `seed`: identical output for identical arguments."""
    rng = random.Random(seed)
    tenant = DemoTenant()
    tenant.users = [
        {"id": f"user-{i:04d}", "displayName": f"Demo User {i}", "email": f"user{i}@example.com"} for i in range(1, 41)
    ]
    user_ids = [u["id"] for u in tenant.users]
    app_names = {
        "github": "GitHub",
        "okta": "Okta",
        "aws": "AWS",
        "slack": "Slack",
        "jira": "Jira",
        "salesforce": "Salesforce",
    }
    tenant.apps = [{"id": f"app-{key}", "displayName": name} for key, name in app_names.items()]
    tenant.policies = policies()
    by_id = {p["id"]: p for p in tenant.policies}
    n = 0
    for _ in range(tasks_per_kind):
        for kind in TASK_KINDS:
            n += 1
            tenant.tasks.append(_task(n, kind, rng, user_ids, by_id[POLICY_FOR_KIND[kind]]))
    return tenant


def related_objects(tenant: DemoTenant) -> dict[str, list[dict[str, Any]]]:
    """The objects tasks point at (app users, reviews, insights, usage, bindings, resources), by kind."""
    found: dict[str, dict[str, dict[str, Any]]] = {}

    def add(kind: str, document: dict[str, Any]) -> None:
        found.setdefault(kind, {})[document["id"]] = document

    for task in tenant.tasks:
        member = next(iter(task["type"].values()))
        app_user = member.get("appUserId")
        if app_user:
            add(
                "app_user",
                {
                    "id": app_user,
                    "appId": member["appId"],
                    "identityUserId": member.get("identityUserId", ""),
                    "displayName": f"{member.get('identityUserId', '')} in {member['appId']}",
                },
            )
            add("app_user_last_usage", {"id": app_user, "appUserId": app_user, "lastUsedAt": task["createdAt"]})
        if member.get("accessReviewId"):
            add("access_review", {"id": member["accessReviewId"], "displayName": f"Review {member['accessReviewId']}"})
        if member.get("appEntitlementId"):
            binding = {"id": member["appEntitlementId"], "appId": member.get("appId"), "scopes": ["org:demo"]}
            add("scope_binding", binding)
        resource = member.get("resource") or {}
        if resource.get("resourceId"):
            add("resource", {"id": resource["resourceId"], "resourceTypeId": resource.get("resourceTypeId", "")})
        scope_role = member.get("scopeRole") or {}
        for part, type_id in (("scopeId", "scope"), ("roleId", "role")):
            if scope_role.get(part):
                add("resource", {"id": scope_role[part], "resourceTypeId": type_id})
        for insight in task.get("insightIds") or []:
            add("insight", {"id": insight, "kind": "UNUSED_ACCESS", "summary": f"Insight {insight}"})
    return {kind: [documents[key] for key in sorted(documents)] for kind, documents in sorted(found.items())}
