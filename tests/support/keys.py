"""Real signing keys: one per algorithm a JWT listener accepts, plus an RSA key that no JWKS publishes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

from accessgov.webhooks import signing


def private_pem(key: Any) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


def public_pem(key: Any) -> bytes:
    return key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


@dataclass(frozen=True)
class Keys:
    """The key objects and their PEM text. Sign with the objects where speed matters: loading an RSA PEM runs
    cryptography's consistency check (~50 ms)."""

    rsa_key: rsa.RSAPrivateKey
    ec_key: ec.EllipticCurvePrivateKey
    ed_key: ed25519.Ed25519PrivateKey
    rogue_key: rsa.RSAPrivateKey  # never published
    rsa: bytes
    ec: bytes
    ed: bytes
    rogue_rsa: bytes
    rsa_public: bytes

    def jwks(self) -> dict[str, Any]:
        """The published keys as a JWKS document: kids `rsa-1`, `ec-1`, `ed-1`."""
        return signing.jwks_document(
            [
                signing.public_jwk(self.rsa, kid="rsa-1"),
                signing.public_jwk(self.ec, kid="ec-1"),
                signing.public_jwk(self.ed, kid="ed-1"),
            ]
        )


def make_keys() -> Keys:
    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    ec_key = ec.generate_private_key(ec.SECP256R1())
    ed_key = ed25519.Ed25519PrivateKey.generate()
    rogue_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return Keys(
        rsa_key=rsa_key,
        ec_key=ec_key,
        ed_key=ed_key,
        rogue_key=rogue_key,
        rsa=private_pem(rsa_key),
        ec=private_pem(ec_key),
        ed=private_pem(ed_key),
        rogue_rsa=private_pem(rogue_key),
        rsa_public=public_pem(rsa_key),
    )
