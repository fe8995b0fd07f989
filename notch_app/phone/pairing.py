"""What a phone scans to pair: the page's URL on this machine's local address, with a
one-time code and the certificate's fingerprint in its fragment (never sent over the
network by the browser: only the page's own script reads it), and its QR code."""

from __future__ import annotations

from dataclasses import dataclass

import segno

from notch_app.phone.addresses import local_addresses

__all__ = ["PairingInvite", "invite", "local_addresses"]


@dataclass(frozen=True, slots=True)
class PairingInvite:
    """One invitation to pair, as shown in Settings or by `notch phone pair`."""

    url: str
    code: str
    fingerprint: str

    def qr(self) -> segno.QRCode:
        """The URL as a QR code (medium error correction: a phone camera reads it off a
        screen at arm's length)."""
        return segno.make(self.url, error="m", micro=False)

    def qr_rows(self) -> list[list[bool]]:
        """The QR code's modules, row by row (True: dark), with the quiet zone: what a
        painter draws."""
        return [[bool(v) for v in row] for row in self.qr().matrix_iter(scale=1, border=4)]


def invite(host: str, port: int, code: str, fingerprint: str) -> PairingInvite:
    """The invitation for the page at `host`:`port`."""
    shown = f"[{host}]" if ":" in host else host
    url = f"https://{shown}:{port}/#pair={code}&fp={fingerprint}"
    return PairingInvite(url, code, fingerprint)
