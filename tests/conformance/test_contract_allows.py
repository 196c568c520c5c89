"""The kit's own judgement (`Context.expect`/`conforms`, the evidence of a run, the preflight) never fails on
what the contract allows: a `charset` parameter or another letter case in the content type, extra headers,
unknown values of an open enumeration, extra fields where the schema allows them; and it takes a 503 or 429
as "not served" only where the operation documents that status."""

from __future__ import annotations

import copy
import json

import httpx
import pytest
from accessgov_conformance import spec
from accessgov_conformance.config import parse
from accessgov_conformance.context import Context, Exchange
from accessgov_conformance.registry import Fail, NoEvidence

EVENT = "0b6cf9a4-1f7e-4a5c-9d55-0c2b1f1e8a11"
WEBHOOK = ("POST", spec.WEBHOOK)


def ctx() -> Context:
    config = parse({"target": {"base_url": "http://x.test"}, "auth": {"token": "t"}})
    return Context(config, httpx.Client(), "T-1", 1, 0, {})


def answer(status: int, body: object, **headers: str) -> Exchange:
    sent = {"content-type": "application/json", "x-request-id": "r-1", **headers}
    return Exchange("POST", "http://x.test/w", {}, b"", status, sent, json.dumps(body).encode(), operation=WEBHOOK)


ACCEPTED = {"eventId": EVENT, "automationRun": {"id": "run-1", "status": "AUTOMATION_RUN_STATUS_QUEUED"}}


@pytest.mark.parametrize(
    ("body", "headers"),
    [
        (ACCEPTED, {"content-type": "application/json; charset=utf-8"}),
        (ACCEPTED, {"content-type": "Application/JSON"}),
        (ACCEPTED, {"x-powered-by": "something", "cache-control": "no-store"}),
        ({**ACCEPTED, "automationRun": {"id": "run-1", "status": "AUTOMATION_RUN_STATUS_PAUSED_LATER"}}, {}),
        ({**ACCEPTED, "receivedAt": "2026-01-01T00:00:00Z"}, {}),
        ({"automationRun": ACCEPTED["automationRun"], "eventId": EVENT}, {}),  # keys in another order
    ],
)
def test_what_the_contract_allows_conforms(body: object, headers: dict[str, str]) -> None:
    assert ctx().expect(answer(200, body, **headers), 200) == body


def test_another_media_type_or_a_body_that_is_not_json_does_not() -> None:
    with pytest.raises(Fail, match="Content-Type 'text/html'"):
        ctx().expect(answer(200, ACCEPTED, **{"content-type": "text/html"}), 200)
    broken = answer(200, ACCEPTED)
    broken.response_body = broken.response_body[:20]
    with pytest.raises(Fail, match="not JSON"):
        ctx().expect(broken, 200)


@pytest.mark.parametrize("documented", [True, False])
def test_a_503_is_not_served_only_where_the_operation_documents_it(
    monkeypatch: pytest.MonkeyPatch, documented: bool
) -> None:
    document = copy.deepcopy(spec.load())
    responses = document["paths"][spec.WEBHOOK]["post"]["responses"]
    if documented:
        responses.setdefault("503", responses["429"])
    else:
        responses.pop("503", None)
    monkeypatch.setattr(spec, "load", lambda path=None: document)
    error = {"code": "UNAVAILABLE", "message": "later"}
    if documented:
        with pytest.raises(NoEvidence, match="answered 503 instead of serving the check"):
            ctx().expect(answer(503, error), 200)
    else:
        with pytest.raises(Fail, match="got 503 UNAVAILABLE \\(not a documented response of the operation\\)"):
            ctx().expect(answer(503, error), 200)
    with pytest.raises(NoEvidence, match="answered 429 instead of serving the check"):
        ctx().expect(answer(429, {"code": "TOO_MANY_FAILED_ATTEMPTS", "message": "later"}), 200)
