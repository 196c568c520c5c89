"""The deterministic demo tenant and its public demo credentials."""
