"""Inbound webhook verification: request shape, HMAC signatures, JWTs against a JWKS, source CIDR ranges."""
