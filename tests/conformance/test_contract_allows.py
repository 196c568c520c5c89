"""The kit's own judgement (`Context.expect`/`conforms`, the evidence of a run, the preflight) never fails on
what the contract allows: a `charset` parameter or another letter case in the content type, extra headers,
unknown values of an open enumeration, extra fields where the schema allows them; and it takes a 503 or 429
as "not served" only where the operation documents that status."""

from __future__ import annotations

import copy
import importlib
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from accessgov_conformance import spec
from accessgov_conformance.config import parse
from accessgov_conformance.context import Context, Exchange
from accessgov_conformance.schema_part import read_statuses
from accessgov_conformance.verdicts import Fail, NoEvidence

from tests.support import loopback

EVENT = "0b6cf9a4-1f7e-4a5c-9d55-0c2b1f1e8a11"
WEBHOOK = ("POST", spec.WEBHOOK)


def ctx() -> Context:
    config = parse({"target": {"base_url": "http://x.test"}, "auth": {"token": "t"}})
    return Context(config, loopback.client(), "T-1", 1, 0, {})


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


@pytest.mark.slow  # imports Schemathesis (the hooks module): seconds
def test_the_schema_part_counts_only_conforming_2xx_answers_as_evidence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Schemathesis' answers, as the hooks log them: an HTML page, a truncated body or a schema-breaking 2xx
    is no evidence; one conforming 2xx of the operation is, whatever else it answered."""
    config = tmp_path / "kit.toml"
    config.write_text('[target]\nbase_url = "http://x.test"\n[auth]\ntoken = "t"\n', encoding="utf-8")
    monkeypatch.setenv("ACCESSGOV_CONFORMANCE_CONFIG", str(config))
    hooks = importlib.import_module("accessgov_conformance.schema_hooks")

    def response(status: int, content: bytes, content_type: str = "application/json; charset=utf-8") -> Any:
        return SimpleNamespace(status_code=status, headers={"content-type": [content_type]}, content=content)

    good = json.dumps(ACCEPTED).encode()
    assert hooks.evidence_problem("POST", spec.WEBHOOK, response(200, good)) == ""
    assert "Content-Type text/html" in hooks.evidence_problem("POST", spec.WEBHOOK, response(200, b"<h1>", "text/html"))
    assert hooks.evidence_problem("POST", spec.WEBHOOK, response(200, good[:20])) == "the body is not JSON"
    assert "breaks the schema" in hooks.evidence_problem("POST", spec.WEBHOOK, response(200, b'{"eventId": 1}'))
    log = tmp_path / "statuses.txt"
    log.write_text(
        "POST /w 200 Content-Type text/html\nPOST /w 401\nGET /e 200 the body is not JSON\nGET /e 200\n",
        encoding="utf-8",
    )
    statuses, evidence = read_statuses(log)
    assert statuses == {("POST", "/w"): [200, 401], ("GET", "/e"): [200, 200]}
    assert evidence == {("POST", "/w"): "Content-Type text/html", ("GET", "/e"): None}
