"""Fixed inputs of the webhook verification/signing tests."""

from __future__ import annotations

from typing import Any

TENANT_BASE_URL = "https://tenant.accessgov.example"
ENDPOINT_URL = "https://tenant.accessgov.example/api/v1/webhooks/incoming/lst_123"
# A fixed "now" far from the wall clock: proves the verifier uses the injected time, not time.time().
NOW = 1_767_225_600
BODY = b'{"orderId":"A-1001","amount":42}'
# The HMAC test vector the spec publishes (`x-hmac-test-vector` on the webhook operation). The secret is the 32
# bytes 0x00..0x1f in base64url; the HMAC key is this 43-character TEXT, UTF-8 encoded. Signature input:
# b"1767225600.7f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b." + body.
HMAC_TEST_VECTOR: dict[str, Any] = {
    "secret": "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8",
    "timestamp": "1767225600",
    "event_id": "7f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b",
    "body": b'{"orderId":"A-1001","amount":42}',
    "signature": "BUi0R7VR8TVjVukL5JugnjgzEc-dNdpd6wjt5h3IhDI",
}
