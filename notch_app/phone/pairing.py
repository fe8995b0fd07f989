"""What a phone scans to pair: the page's URL on this machine's local address, with a
one-time code and the certificate's fingerprint in its fragment (never sent over the
network by the browser: only the page's own script reads it), and its QR code."""

from __future__ import annotations

import ipaddress
import socket
import struct
import sys
from dataclasses import dataclass

import segno


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


def local_addresses() -> list[str]:
    """This machine's IPv4 addresses on its local networks (private ranges first, then
    any other non-loopback one); 127.0.0.1 when there is none. Asks the kernel, sends
    nothing."""
    found: list[str] = []
    if sys.platform.startswith("linux"):
        found = _linux_addresses()
    if not found:
        try:
            infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
            found = [str(info[4][0]) for info in infos]
        except OSError:
            found = []
    usable = []
    for text in dict.fromkeys(found):
        address = ipaddress.ip_address(text)
        if not (address.is_loopback or address.is_link_local or address.is_unspecified):
            usable.append(address)
    usable.sort(key=lambda a: (not a.is_private, int(a)))
    return [str(a) for a in usable] or ["127.0.0.1"]


def _linux_addresses() -> list[str]:
    import fcntl

    out = []
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        for _, name in socket.if_nameindex():
            request = struct.pack("256s", name.encode()[:15])
            try:
                answer = fcntl.ioctl(probe.fileno(), 0x8915, request)  # SIOCGIFADDR
            except OSError:
                continue
            out.append(socket.inet_ntoa(answer[20:24]))
    finally:
        probe.close()
    return out
