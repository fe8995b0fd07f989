"""Where the phone page listens: one of this computer's addresses on its local network.

The page answers only paired phones, over TLS, but nothing on it is for the internet: it
listens on one local-network address, never on every address (0.0.0.0 would also open it
on a public interface, a VPN's or a container bridge's). By default that is the machine's
one local-network address; with several, the first private one, and the person is told
which and how to choose another (`notch phone on --host IP`). An address the person names
must be this computer's own and local (a private range, or loopback for this computer
alone): anything else is refused with the addresses that would do. Qt-free; sends nothing.
"""

from __future__ import annotations

import ipaddress
import socket
import struct
import sys

LOOPBACK = "127.0.0.1"


class HostRefused(ValueError):
    """An address the phone page may not listen on; the message names the ones that do."""


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


def local_network() -> list[str]:
    """This computer's addresses in private ranges (its local networks), the first the
    one to use: `local_addresses` without the public ones and loopback."""
    return [a for a in local_addresses() if a != LOOPBACK and ipaddress.ip_address(a).is_private]


def checked_host(text: str) -> str:
    """`text` as an address the phone page may listen on: one of this computer's own
    addresses, in a private range (or loopback). Raises HostRefused saying why not and
    which addresses would do."""
    usable = ", ".join(local_network() or [LOOPBACK])
    try:
        address = ipaddress.ip_address(text.strip())
    except ValueError:
        raise HostRefused(
            f"{text!r} is not an IP address; use one of this computer's local-network "
            f"addresses: {usable}"
        ) from None
    if address.is_unspecified:
        raise HostRefused(
            f"{address} would serve the phone page on every network this computer is on, "
            f"the internet included where it is reachable; choose one: {usable}"
        )
    if address.is_loopback:
        return str(address)
    if not address.is_private:
        raise HostRefused(
            f"{address} is a public address: the phone page is for your local network only "
            f"(docs/phone.md says how a relay would reach further); choose one of: {usable}"
        )
    if str(address) not in local_addresses():
        raise HostRefused(f"{address} is not an address of this computer; its local-network "
                          f"addresses: {usable}")  # fmt: skip
    return str(address)


def listen_host(chosen: str | None) -> tuple[str, str | None]:
    """The address the page listens on and, when the person should hear it, a sentence
    saying why that one: `chosen` (the person's `--host`, checked again: the machine's
    addresses may have changed), else the machine's local-network address. Raises
    HostRefused for a chosen address that no longer does."""
    if chosen:
        return checked_host(chosen), None
    found = local_network()
    if not found:
        return LOOPBACK, (
            "this computer has no local-network address, so the phone page listens on "
            f"{LOOPBACK} (this computer only) until it has one"
        )
    if len(found) > 1:
        return found[0], (
            f"the phone page listens on {found[0]}, one of this computer's addresses "
            f"({', '.join(found)}); choose another with `notch phone on --host IP`"
        )
    return found[0], None
