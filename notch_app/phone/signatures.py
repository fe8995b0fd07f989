"""Checking what a phone signed: ECDSA P-256 with SHA-256, as WebCrypto makes it (the
signature is r‖s, 64 bytes; the public key SPKI DER), with `cryptography`."""

from __future__ import annotations

import base64
import binascii

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.serialization import load_der_public_key

MAX_KEY_CHARS = 400


def public_key_ok(spki_b64: object) -> bool:
    """True for an ECDSA P-256 public key in base64 SPKI DER (what a phone sends at pairing)."""
    return _key(spki_b64) is not None


def signed_by(spki_b64: str, message: bytes, signature_b64: object) -> bool:
    """True when `signature_b64` (base64 of r‖s) signs `message` with the key `spki_b64`.
    False for anything malformed: never raises."""
    key = _key(spki_b64)
    if key is None or not isinstance(signature_b64, str) or len(signature_b64) > 200:
        return False
    try:
        raw = base64.b64decode(signature_b64, validate=True)
    except (binascii.Error, ValueError):
        return False
    if len(raw) != 64:
        return False
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    try:
        key.verify(der, message, ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        return False
    return True


def _key(spki_b64: object) -> ec.EllipticCurvePublicKey | None:
    if not isinstance(spki_b64, str) or len(spki_b64) > MAX_KEY_CHARS:
        return None
    try:
        key = load_der_public_key(base64.b64decode(spki_b64, validate=True))
    except (binascii.Error, ValueError, TypeError):
        return None
    if not isinstance(key, ec.EllipticCurvePublicKey) or not isinstance(key.curve, ec.SECP256R1):
        return None
    return key
