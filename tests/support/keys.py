"""Real signing keys: one per algorithm a JWT listener accepts, plus an RSA key that no JWKS publishes; X.509
certificates for keys."""

from __future__ import annotations

import datetime
import ipaddress
from dataclasses import dataclass
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed448, ed25519, rsa
from cryptography.x509.oid import NameOID

from accessgov.webhooks import signing


def private_pem(key: Any) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


def public_pem(key: Any) -> bytes:
    return key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


def certificate(
    subject: str, key: Any, *, issuer: tuple[x509.Name, Any] | None = None, ca: bool = False, ip: str | None = None
) -> x509.Certificate:
    """A certificate of `key`'s public half named `subject`, valid from a day ago to a day ahead: self-signed, or
    signed by `issuer` (its name and private key); an authority's when `ca`; for the address `ip` when given."""
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)])
    issuer_name, signer = issuer or (name, key)
    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(issuer_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
    )
    if ca:
        builder = builder.add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
    if ip:
        builder = builder.add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address(ip))]), False)
    # Ed25519 and Ed448 sign the whole message: they take no hash.
    algorithm = None if isinstance(signer, ed25519.Ed25519PrivateKey | ed448.Ed448PrivateKey) else hashes.SHA256()
    return builder.sign(signer, algorithm)


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
