"""Operational signals: Prometheus metrics (`metrics`), the request-id and JSON access-log middleware
(`access_log`), and the internal endpoints `/healthz`, `/readyz` and `/metrics` (`probes`)."""
