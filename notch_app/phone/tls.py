"""The install's own TLS certificate for the phone page: self-signed, made once per data
dir (ECDSA P-256, ten years), kept owner-only beside the paired phones. Its SHA-256
fingerprint rides in the QR code, so the phone can check it is talking to this Notch and
not to whoever else answers on the network (docs/phone.md)."""

from __future__ import annotations

import base64
import datetime
import hashlib
import ipaddress
import os
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from notch_app.phone.devices import PhoneError


@dataclass(frozen=True, slots=True)
class Certificate:
    cert_path: Path
    key_path: Path
    fingerprint: str
    """SHA-256 of the certificate (DER), hex: what a browser's certificate viewer shows."""
    spki_pin: str
    """SHA-256 of its public key (SPKI), base64: what a pinning browser flag takes."""


def certificate(folder: Path) -> Certificate:
    """The certificate in `folder`, made there first if there is none. Raises PhoneError
    when it cannot be read or written."""
    cert_path, key_path = folder / "tls-cert.pem", folder / "tls-key.pem"
    try:
        if not (cert_path.exists() and key_path.exists()):
            _make(folder, cert_path, key_path)
        cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
    except (OSError, ValueError) as exc:
        raise PhoneError(
            f"{folder}: the phone page's certificate cannot be used ({exc}); remove "
            "tls-cert.pem and tls-key.pem there to make a new one (phones pair again)"
        ) from None
    der = cert.public_bytes(serialization.Encoding.DER)
    spki = cert.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return Certificate(
        cert_path,
        key_path,
        hashlib.sha256(der).hexdigest(),
        base64.b64encode(hashlib.sha256(spki).digest()).decode(),
    )


def _make(folder: Path, cert_path: Path, key_path: Path) -> None:
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Notch on this computer")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=3650))
        .add_extension(
            # The page is reached by address; the pin, not the name, is what is checked.
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .sign(key, hashes.SHA256())
    )
    pem_key = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    for path, data in (
        (key_path, pem_key),
        (cert_path, cert.public_bytes(serialization.Encoding.PEM)),
    ):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(data)
