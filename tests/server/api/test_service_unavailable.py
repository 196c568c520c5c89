"""The 503s each operation declares are the ones the server answers: with its database gone, the token endpoint
and a webhook delivery (besides a page read and a restart, tests/server/observability/test_operations.py) answer 503
`SERVICE_UNAVAILABLE` with the `Error` body their declared 503 response describes, never a 500 (PostgreSQL behind a
forwarder that is cut)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlalchemy as sa
from jsonschema import Draft202012Validator
from sqlalchemy.engine import Engine

from accessgov.app import create_app
from accessgov.config import Settings
from accessgov.demo.seed import DEMO_HMAC_LISTENER_ID, DEMO_HMAC_SECRET, seed_demo
from accessgov.storage.backends import create_engine
from accessgov.storage.engine import migrate, session_factory
from accessgov.webhooks.signing import hmac_headers
from tests.server._tcp_forwarder import Forwarder
from tests.support import loopback
from tests.support.harness import NO_FAILURE_LIMITS, serve
from tests.support.postgres import fresh_schema, postgres_url

pytestmark = pytest.mark.slow  # a server
BUNDLE = json.loads((Path(__file__).resolve().parents[3] / "generated" / "openapi.json").read_text(encoding="utf-8"))
ERROR = Draft202012Validator({"$ref": "#/components/schemas/Error", "components": BUNDLE["components"]})
WEBHOOK = f"/api/v1/webhooks/incoming/{DEMO_HMAC_LISTENER_ID}"
TOKEN = "/auth/v1/token"


def declared_503_codes(path: str, method: str) -> set[str]:
    response = BUNDLE["paths"][path][method]["responses"]["503"]
    if "$ref" in response:
        response = BUNDLE["components"]["responses"][response["$ref"].rsplit("/", 1)[1]]
    return {example["value"]["code"] for example in response["content"]["application/json"]["examples"].values()}


def test_the_token_endpoint_and_a_delivery_answer_their_declared_503_while_the_database_is_down(
    postgres_admin: Engine,
) -> None:
    target = sa.make_url(postgres_url())
    forwarder = Forwarder((target.host or "127.0.0.1", target.port or 5432))
    through_forwarder = target.set(host="127.0.0.1", port=forwarder.port).render_as_string(False)
    body = b'{"orderId":"A-503"}'
    try:
        with fresh_schema(postgres_admin, through_forwarder, prefix="t_503") as url:
            engine = create_engine(url)
            migrate(engine)
            with session_factory(engine).begin() as session:
                seed_demo(session)
            engine.dispose()
            app = create_app(Settings.load(database_url=url, **NO_FAILURE_LIMITS))
            with serve(app) as base_url, loopback.client(base_url=base_url, timeout=10) as client:
                signed = hmac_headers(DEMO_HMAC_SECRET, body)
                assert client.post(WEBHOOK, content=body, headers=signed).status_code == 200
                forwarder.stop()  # the database is gone
                answers = {
                    ("/auth/v1/token", "post"): client.post(
                        TOKEN, data={"grant_type": "client_credentials", "client_id": "c", "client_secret": "s"}
                    ),
                    ("/api/v1/webhooks/incoming/{listener_id}", "post"): client.post(
                        WEBHOOK, content=body, headers=hmac_headers(DEMO_HMAC_SECRET, body)
                    ),
                }
                for (path, method), answer in answers.items():
                    assert answer.status_code == 503, (path, answer.text)
                    error = answer.json()
                    assert not list(ERROR.iter_errors(error)), error
                    assert error["code"] == "SERVICE_UNAVAILABLE" in declared_503_codes(path, method)
    finally:
        forwarder.stop()
