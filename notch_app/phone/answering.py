"""Answer from your phone, as the running Notch has it: the page served while the
person's setting says so, the pairing invitations and the paired phones for Settings.

    answers = PhoneAnswers(service, data_dir)
    await answers.follow(enabled=True, port=47800)   # start (or stop) the page
    answers.invite()                                   # a QR for Settings
    answers.unpair(device_id)                          # its key is gone at once
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from notch_app.phone.devices import Device, DeviceBook, PhoneError, phone_folder
from notch_app.runtime.settings import DEFAULT_PHONE_PORT

# The page's server (starlette, uvicorn), its certificate (cryptography) and the QR code
# (segno) load when the page starts or a phone is invited, not in every idle Notch:
# together ~16 MiB of the idle process (benchmarks/README-overlay.md).
if TYPE_CHECKING:
    from notch_app.phone.pairing import PairingInvite
    from notch_app.phone.server import PhoneServer
    from notch_app.phone.watch import PhoneWatch
    from notch_app.runtime.service import ConfirmationService

log = logging.getLogger("notch.phone")


class PhoneAnswers:
    """The phone page of one running Notch (`service`, its data in `data_dir`)."""

    def __init__(
        self, service: ConfirmationService, data_dir: Path, *, host: str = "0.0.0.0"
    ) -> None:
        self.service = service
        self.folder = phone_folder(data_dir)
        self.devices = DeviceBook(self.folder)
        self.host = host
        self.server: PhoneServer | None = None
        self.watch: PhoneWatch | None = None
        self.wanted_port = DEFAULT_PHONE_PORT
        """The port the person's setting names (what an invitation says before the page
        has started listening)."""
        self.problem: str | None = None
        """Why the page is not served although it is turned on (a port taken), else None."""

    @property
    def serving(self) -> bool:
        return self.server is not None

    @property
    def port(self) -> int | None:
        return self.server.page.port if self.server is not None else None

    async def follow(self, enabled: bool, port: int) -> None:
        """Serve the page on `port` when `enabled`, else stop serving it. A port that
        cannot be used is kept in `problem` (and logged), never raised."""
        self.wanted_port = port or self.wanted_port
        if self.server is not None and (not enabled or port not in (0, self.server.page.port)):
            await self.stop()
        if not enabled or self.server is not None:
            return
        from notch_app.phone.server import PhonePage, PhoneServer
        from notch_app.phone.tls import certificate
        from notch_app.phone.watch import PhoneWatch

        try:
            cert = certificate(self.folder)
            watch = self.watch or PhoneWatch(self.service.presenter.shown)
            page = PhonePage(self.service, self.devices, cert, watch, port)
            server = PhoneServer(page, self.host)
            await server.start()
        except PhoneError as exc:
            self.problem = str(exc)
            log.error("notch: %s", exc)
            return
        self.problem = None
        if self.watch is None:  # between the service and the overlay from now on
            self.watch = watch
            self.service.presenter.shown = watch
        self.server = server

    async def stop(self) -> None:
        server, self.server = self.server, None
        if server is not None:
            await server.stop()

    def invite(self) -> PairingInvite:
        """A new one-time invitation to pair a phone (the page's URL on this machine's
        local address). Raises PhoneError when the phone folder cannot be written."""
        from notch_app.phone.pairing import invite, local_addresses
        from notch_app.phone.tls import certificate

        cert = certificate(self.folder)
        port = self.port or self.wanted_port
        # The address the page listens on (phone/addresses.py), so the QR code reaches it.
        host = local_addresses()[0] if self.host in ("0.0.0.0", "::") else self.host
        return invite(host, port, self.devices.new_pairing_code(), cert.fingerprint)

    def paired(self) -> list[Device]:
        try:
            return self.devices.devices()
        except PhoneError as exc:
            self.problem = str(exc)
            return []

    def unpair(self, device_id: str) -> bool:
        """Remove a phone's key at once: its next answer or poll is refused."""
        gone = self.devices.remove(device_id)
        if self.watch is not None:
            self.watch.bump()  # its open poll answers now, and is refused
        return bool(gone)
