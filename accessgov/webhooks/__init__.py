"""The inbound webhook protocol: request shape, HMAC signatures, JWTs against a JWKS, source CIDR ranges, signing."""
