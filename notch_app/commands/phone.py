"""`notch phone`: answer from your phone.

    notch phone pair [--address IP]    a one-time QR code (and its URL) to scan, in person
    notch phone list                   the paired phones
    notch phone unpair NAME|ID         remove a phone's key at once
    notch phone on [--port N] [--host IP|auto] | off
                                       serve the page while Notch runs (off by default),
                                       on this computer's local-network address (--host
                                       chooses among several; auto: the default again)

Every subcommand takes `--data-dir DIR` (default: $NOTCH_DATA_DIR, else the user data
dir). A running Notch follows `on`/`off` at once; a pairing code works for five minutes
with the Notch that serves that data dir. Exit 0 on success, 2 for bad usage or a phone
not found, 1 when the phone folder cannot be written.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def configure(parser: argparse.ArgumentParser) -> None:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--data-dir", type=Path, metavar="DIR",
        help="Notch's data folder (default: $NOTCH_DATA_DIR, else the user data dir)",
    )  # fmt: skip
    sub = parser.add_subparsers(dest="phone_command", metavar="ACTION", required=True)
    p = sub.add_parser("pair", parents=[common], help="show a one-time QR code to pair a phone")
    p.add_argument(
        "--address", metavar="IP", help="the address the phone reaches this computer at "
        "(default: its first local network address)"
    )  # fmt: skip
    sub.add_parser("list", parents=[common], help="list the paired phones")
    p = sub.add_parser("unpair", parents=[common], help="remove a phone's key at once")
    p.add_argument("phone", metavar="NAME|ID")
    p = sub.add_parser("on", parents=[common], help="serve the phone page while Notch runs")
    p.add_argument("--port", type=int, metavar="N", help="1024 to 65535 (default 47800)")
    p.add_argument(
        "--host", metavar="IP|auto", help="the address to listen on: one of this computer's "
        "local-network addresses (default, or auto: its one local-network address; with "
        "several, the first, and Notch says which); a public or foreign address is refused"
    )  # fmt: skip
    sub.add_parser("off", parents=[common], help="stop serving the phone page")


def run(args: argparse.Namespace) -> int:
    from notch_app.phone.devices import DeviceBook, PhoneError, phone_folder
    from notch_app.runtime.folders import default_data_dir
    from notch_app.runtime.policy_book import PolicyBook, PolicyRefused, PolicyWriteError

    data_dir: Path = (args.data_dir or default_data_dir()).expanduser()
    book = PolicyBook.in_data_dir(data_dir)
    devices = DeviceBook(phone_folder(data_dir))
    command = args.phone_command
    try:
        if command in ("on", "off"):
            from notch_app.phone.addresses import checked_host, listen_host

            host = getattr(args, "host", None)
            if host is not None:
                host = "" if host == "auto" else checked_host(host)
            book.set_phone(command == "on", getattr(args, "port", None), host)
            if command == "on":
                where, why = listen_host(book.phone.host)
                print(
                    f"Answer from your phone: on, at {where} port {book.phone.port}. Pair one "
                    "with `notch phone pair`."
                )
                if why:
                    print(f"notch phone: {why}", file=sys.stderr)
            else:
                print("Answer from your phone: off. Nothing is served.")
            return 0
        if command == "list":
            paired = devices.devices()
            for device in paired:
                print(f"{device.device_id}  {device.name}")
            if not paired:
                print("No phone is paired.", file=sys.stderr)
            return 0
        if command == "unpair":
            gone = devices.remove(args.phone)
            if not gone:
                print(f"notch phone: no paired phone is called {args.phone!r}", file=sys.stderr)
                return 2
            for device in gone:
                print(f"Unpaired {device.name}: its key is gone; it can no longer answer.")
            return 0
        return _pair(book, devices, data_dir, args.address)
    except (PolicyRefused, ValueError) as exc:
        print(f"notch phone: {exc}", file=sys.stderr)
        return 2
    except (PhoneError, PolicyWriteError) as exc:
        print(f"notch phone: {exc}", file=sys.stderr)
        return 1


def _pair(book: object, devices: object, data_dir: Path, address: str | None) -> int:
    import ipaddress

    from notch_app.phone.addresses import listen_host
    from notch_app.phone.devices import DeviceBook, phone_folder
    from notch_app.phone.pairing import invite
    from notch_app.phone.tls import certificate
    from notch_app.runtime.policy_book import PolicyBook

    assert isinstance(book, PolicyBook) and isinstance(devices, DeviceBook)
    if address is not None:
        ipaddress.ip_address(address)  # ValueError: said as a usage error
    host = address or listen_host(book.phone.host)[0]
    made = invite(
        host,
        book.phone.port,
        devices.new_pairing_code(),
        certificate(phone_folder(data_dir)).fingerprint,
    )
    made.qr().terminal(out=sys.stdout, compact=True)
    print(made.url)
    print(
        "Scan it with the phone's camera (works once, for five minutes). The browser warns "
        "about the certificate: it is this computer's own; its SHA-256 begins "
        + ":".join(made.fingerprint[i : i + 2] for i in range(0, 16, 2)).upper()
        + "."
    )
    if not book.phone.enabled:
        print("Answer from your phone is off: turn it on with `notch phone on`.", file=sys.stderr)
    return 0
