"""Each mutant of the self-test really breaks its rule: on one probe request it answers differently from the
unchanged reference server (so a mutant the kit lets survive is a gap in the kit, never a no-op mutant).

One server serves every mutant on its own port (`tests/conformance/selftest/target.py`); each probe is a plain HTTP
call.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from tests.conformance.selftest import mutants, probes
from tests.conformance.selftest.probes.probing import Probe, Target
from tests.conformance.selftest.target import CIDR_LISTENER_ID, SECOND_LISTENER_ID, serve_variants

# One worker runs the module, so that the servers of every mutant (`targets`) start once, not once per worker.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("mutant-targets")]


def _replay(t: Target, second: Callable[[Target, str], httpx.Response]) -> int:
    event_id = str(uuid.uuid4())
    assert t.webhook(event_id=event_id).status_code == 200
    return second(t, event_id).status_code


def _second_page(t: Target) -> dict[str, Any]:
    first = t.page(page_size=10).json()
    return t.page(page_size=10, page_token=first["nextPageToken"]).json()


def _numeric(t: Target) -> str:
    return str(t.restart().json()["taskView"]["task"]["numericId"])


PROBES: dict[str, Probe] = {
    "webhook-missing-timestamp-accepted": lambda t: t.webhook(drop=("Webhook-Timestamp",)).status_code,
    "webhook-missing-event-id-accepted": lambda t: t.webhook(drop=("Webhook-Event-Id",)).status_code,
    "webhook-missing-auth-accepted": lambda t: t.webhook(drop=("Webhook-Signature",)).status_code,
    "webhook-content-type-ignored": lambda t: t.webhook(content_type="text/plain").status_code,
    "webhook-stale-timestamp-accepted": lambda t: t.webhook(skew=-400).status_code,
    "webhook-future-timestamp-accepted": lambda t: t.webhook(skew=400).status_code,
    "webhook-timestamp-window-narrow": lambda t: t.webhook(skew=-200).status_code,
    "webhook-non-v4-event-id-accepted": lambda t: t.webhook(event_id=str(uuid.uuid1())).status_code,
    "webhook-invalid-json-accepted": lambda t: t.webhook(body=b"{not json").status_code,
    "webhook-oversized-body-accepted": lambda t: t.webhook(body=json.dumps({"x": "a" * 70_000}).encode()).status_code,
    "webhook-body-limit-64000": lambda t: t.webhook(body=json.dumps({"x": "a" * 65_000}).encode()).status_code,
    "webhook-hmac-mismatch-accepted": lambda t: t.webhook(signature="A" * 43).status_code,
    "webhook-hmac-key-decoded": lambda t: t.webhook().status_code,
    "webhook-duplicate-answered-200": lambda t: _replay(t, lambda t, e: t.webhook(event_id=e)),
    "webhook-duplicate-across-listeners": lambda t: _replay(t, lambda t, e: t.webhook(SECOND_LISTENER_ID, event_id=e)),
    "webhook-duplicate-before-auth": lambda t: _replay(t, lambda t, e: t.webhook(event_id=e, signature="A" * 43)),
    "webhook-auth-before-shape": lambda t: t.webhook(skew=-400, signature="A" * 43).status_code,
    "webhook-cidr-ignored": lambda t: t.webhook(CIDR_LISTENER_ID).status_code,
    "paging-small-size-not-clamped": lambda t: len(t.page(page_size=5).json()["list"]),
    "paging-small-size-rejected": lambda t: t.page(page_size=5).status_code,
    "paging-large-size-not-clamped": lambda t: len(t.page(page_size=150).json()["list"]),
    "paging-large-size-rejected": lambda t: t.page(page_size=150).status_code,
    "paging-wrong-default": lambda t: len(t.page().json()["list"]),
    "paging-last-token-not-empty": lambda t: t.page("app-okta", page_size=100).json()["nextPageToken"] == "",
    "paging-last-token-missing": lambda t: "nextPageToken" in t.page("app-okta", page_size=100).json(),
    "paging-empty-token-before-end": lambda t: _second_page(t)["nextPageToken"] == "",
    "paging-repeats-items": lambda t: _second_page(t)["list"][0]["appEntitlement"]["id"],
    "paging-skips-items": lambda t: _second_page(t)["list"][0]["appEntitlement"]["id"],
    "paging-token-not-bound": lambda t: t.page("app-okta", page_token=t.page().json()["nextPageToken"]).status_code,
    "paging-tampered-token-accepted": lambda t: t.page(page_token=t.page().json()["nextPageToken"][:-2]).status_code,
    "restart-closed-task-restarted": lambda t: t.restart(t.fx.closed_task_ids[0]).status_code,
    "restart-numeric-id-refused": lambda t: t.restart(_numeric(t)).status_code,
    "restart-ticket-missing": lambda t: "ticketActionId" in t.restart().json(),
    "restart-ticket-wrong-type": lambda t: type(t.restart().json()["ticketActionId"]).__name__,
    "restart-undocumented-status": lambda t: t.restart().status_code,
    "restart-ticket-reused": lambda t: t.restart().json()["ticketActionId"] == t.restart().json()["ticketActionId"],
    "restart-workflow-not-reset": lambda t: len(t.restart().json()["taskView"]["task"]["policy"]["next"]),
    "restart-expanded-missing": lambda t: "expanded" in t.restart(body={"expandMask": {"paths": ["*"]}}).json(),
    "restart-paths-dangling": lambda t: t.restart(body={"expandMask": {"paths": ["*"]}}).json()["taskView"]["userPath"],
    "restart-without-credentials": lambda t: t.restart(headers={}).status_code,
    "restart-permission-ignored": lambda t: (
        t.restart(headers={"Authorization": "Bearer demo-viewer-token"}).status_code
    ),
    "restart-unknown-task-409": lambda t: t.restart("no-such-task").status_code,
    "restart-closed-task-404": lambda t: t.restart(t.fx.closed_task_ids[0]).status_code,
    "restart-401-without-www-authenticate": lambda t: "www-authenticate" in t.restart(headers={}).headers,
    "errors-without-code": lambda t: "code" in t.restart("no-such-task").json(),
    "errors-detail-without-reason": lambda t: "reason" in t.page(page_size="x").json()["details"][0],
    "errors-not-json": lambda t: t.restart("no-such-task").headers["content-type"],
    "auth-list-without-credentials": lambda t: t.page(headers={}).status_code,
    "auth-any-token-accepted": lambda t: t.page(headers={"Authorization": "Bearer made-up"}).status_code,
    "auth-token-empty-secret": lambda t: (
        t.client.post(
            "/auth/v1/token", data={"grant_type": "client_credentials", "client_id": "demo-client", "client_secret": ""}
        ).status_code
    ),
    "evidence-tenant-api-throttled": lambda t: t.page().status_code,
    "evidence-webhook-always-401": lambda t: t.webhook().status_code,
}


def _area_probes() -> dict[str, Probe]:
    """The probes of each area's own module, `probes_<area>.py` beside this one (`PROBES`)."""
    found: dict[str, Probe] = {}
    for info in pkgutil.iter_modules(probes.__path__):
        if info.name.startswith("probes_"):
            module = importlib.import_module(f"{probes.__name__}.{info.name}")
            clash = set(found) & set(module.PROBES)
            assert not clash, f"probes defined twice: {sorted(clash)}"
            found.update(module.PROBES)
    return found


AREA_PROBES = _area_probes()
assert not set(PROBES) & set(AREA_PROBES), "a mutant's probe is defined twice"
PROBES.update(AREA_PROBES)


@pytest.fixture(scope="module")
def targets() -> Iterator[dict[str, Target]]:
    with serve_variants({m.id: m.build for m in mutants.ALL}) as (urls, fixtures):
        yield {name: Target(url, fixtures) for name, url in urls.items()}


@pytest.fixture(scope="module")
def unchanged(targets: dict[str, Target]) -> Callable[[str], Any]:
    """The answer of the unchanged reference server to each probe, asked once (probes are deterministic: a
    mutant's test compares with it, and every control's test with each of them)."""
    answers: dict[str, Any] = {}

    def answer(mutant_id: str) -> Any:
        if mutant_id not in answers:
            answers[mutant_id] = PROBES[mutant_id](targets["control-unchanged"])
        return answers[mutant_id]

    return answer


def test_every_mutant_has_a_probe() -> None:
    assert [m.id for m in mutants.MUTANTS if m.id not in PROBES] == []
    assert sorted(set(PROBES) - {m.id for m in mutants.MUTANTS}) == [], "probes of no mutant"


@pytest.mark.slow
@pytest.mark.parametrize("mutant_id", sorted(PROBES))
def test_mutant_breaks_its_rule(mutant_id: str, targets: dict[str, Target], unchanged: Callable[[str], Any]) -> None:
    assert PROBES[mutant_id](targets[mutant_id]) != unchanged(mutant_id)


@pytest.mark.slow
@pytest.mark.parametrize("control_id", [m.id for m in mutants.CONTROLS])
def test_control_keeps_every_probe_status(
    control_id: str, targets: dict[str, Target], unchanged: Callable[[str], Any]
) -> None:
    """A control changes no status code: the probes that observe one give the same answer as the server."""
    for mutant_id, probe in PROBES.items():
        before = unchanged(mutant_id)
        if isinstance(before, int) and before >= 200:
            assert probe(targets[control_id]) == before, mutant_id
