"""A listener whose secret is sealed under a key the server cannot get: 503 `KEY_UNAVAILABLE`, for a right and a
wrong signature alike, never a 500; other listeners are unaffected."""

from __future__ import annotations

from pathlib import Path

import pytest

from accessgov.demo.seed import DEMO_HMAC_LISTENER_ID, DEMO_HMAC_SECRET
from accessgov.keys import Keyring
from accessgov.storage import listeners
from accessgov.webhooks.signing import hmac_headers
from tests.support import loopback
from tests.support.harness import seeded_server

BODY = b'{"orderId":"A-1"}'


@pytest.mark.slow
def test_a_secret_sealed_under_a_missing_key_answers_503(tmp_path: Path) -> None:
    with seeded_server(tmp_path) as (base_url, _config, sessions), loopback.client(base_url=base_url) as client:
        with sessions.begin() as session:
            listeners.create_listener(
                session, listener_id="wh_foreign_key", auth_method="HMAC", hmac_secret="whsec_foreign",
                automation_name="a", automation_steps=[], keyring=Keyring.generate(),
            )  # fmt: skip
        for secret in ("whsec_foreign", "whsec_wrong"):
            response = client.post(
                "/api/v1/webhooks/incoming/wh_foreign_key", content=BODY, headers=hmac_headers(secret, BODY)
            )
            assert response.status_code == 503, response.text
            assert response.json()["code"] == "KEY_UNAVAILABLE"
            assert "whsec" not in response.text
        good = client.post(
            f"/api/v1/webhooks/incoming/{DEMO_HMAC_LISTENER_ID}",
            content=BODY,
            headers=hmac_headers(DEMO_HMAC_SECRET, BODY),
        )
        assert good.status_code == 200, good.text
