"""Fixed inputs of the webhook verification/signing tests."""

from __future__ import annotations

TENANT_BASE_URL = "https://tenant.accessgov.example"
ENDPOINT_URL = "https://tenant.accessgov.example/api/v1/webhooks/incoming/lst_123"
# A fixed "now" far from the wall clock: proves the verifier uses the injected time, not time.time().
NOW = 1_767_225_600
BODY = b'{"orderId":"A-1001","amount":42}'
