"""Nobody forges a log line: a value holding a newline and a JSON object (and quotes, a backslash, ESC, DEL, a C1
control, U+2028) sent through every field the server logs stays escaped inside one record: the per-credential
warning's `client_id`, the access log's listener id (the path), X-Request-Id, Webhook-Event-Id, X-Forwarded-For,
User-Agent. Every line the server writes parses as one record; none is the forged one."""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path
from urllib.parse import quote

import pytest

from accessgov.observability.log_text import escape
from tests.support import loopback
from tests.support.server_process import Served, accessgov_serve

pytestmark = pytest.mark.slow  # a server
FORGED = '{"ts":"2026-01-01T00:00:00.000+00:00","level":"info","event":"forged","status":200}'
HOSTILE = f'x\n{FORGED}\r\n\x1b[2K"\\\x7f\x85\u2028end'
# What a header can carry at all (h11 refuses control characters there): quotes, a backslash, obs-text.
HOSTILE_HEADER = '"\\' + FORGED.replace('"', "'") + "\x85"
RAW_CONTROLS = ("\x1b", "\x7f", "\x85", "\u2028", "\r")


def records(served: Served) -> list[dict[str, object]]:
    """Every JSON line of the server's output; lines that are not JSON are uvicorn's own start-up text and the
    --demo banner, which hold nothing a client sent."""
    found = []
    for line in served.output().splitlines():
        if line.startswith("{"):
            found.append(json.loads(line))  # raises if a line is not one whole record
        else:
            assert "forged" not in line and "2026-01-01" not in line, line
    return found


def test_every_logged_value_is_escaped_and_no_line_is_forged(tmp_path: Path) -> None:
    env = {
        "ACCESSGOV_AUTH_FAILURE_LIMIT": "off",
        "ACCESSGOV_AUTH_FAILURE_LIMIT_PER_CREDENTIAL": "1/minute",  # the second failure warns
        "ACCESSGOV_TRUSTED_PROXIES": "127.0.0.0/8",
    }
    request_id = "forge-" + uuid.uuid4().hex
    value = HOSTILE_HEADER.encode("latin-1")
    headers = {"X-Request-Id": value, "X-Forwarded-For": value, "User-Agent": value, "Webhook-Event-Id": value}
    with accessgov_serve(tmp_path, env=env) as served, loopback.client(base_url=served.base_url, timeout=30) as client:
        for _ in range(2):  # a client_id that is not a client: invalid_client, counted for that client id
            answer = client.post(
                "/auth/v1/token",
                data={"grant_type": "client_credentials", "client_id": HOSTILE, "client_secret": "wrong"},
                headers={"X-Forwarded-For": "192.0.2.7"},
            )
            assert answer.status_code == 401, answer.text
        webhook = f"/api/v1/webhooks/incoming/{quote(HOSTILE, safe='')}"
        answer = client.post(webhook, content=b"{}", headers={**headers, "Content-Type": b"application/json"})
        assert answer.status_code in (400, 401, 404), answer.text
        answer = client.post(webhook, content=b"{}", headers={"X-Request-Id": request_id})
        deadline = time.monotonic() + 10
        while not any(r.get("request_id") == request_id for r in records(served)) and time.monotonic() < deadline:
            time.sleep(0.1)
        found = records(served)
        output = served.output()

    assert not [r for r in found if r.get("event") == "forged"], "a forged record was written"
    for control in RAW_CONTROLS:
        assert control not in output, f"{control!r} reached the log raw"
    warnings = [r for r in found if r.get("event") == "log" and "failed authentications" in str(r.get("message"))]
    assert len(warnings) == 1, found
    assert f"credential oauth-client:{escape(HOSTILE)}: more than 1" in str(warnings[0]["message"])
    hooks = [r for r in found if r.get("operation") == "svc.api.webhooks.v1.IncomingWebhookService.Receive"]
    assert len(hooks) == 2 and all(r["listener_id"] == escape(HOSTILE) for r in hooks), hooks
    first = hooks[0]
    assert first["request_id"] != HOSTILE_HEADER and first["event_id"] is None  # not echoed: not well-formed
    assert first["client"] == "127.0.0.1"  # a forwarded value that is no address is not taken for one
    assert HOSTILE_HEADER not in output and "User-Agent" not in output
