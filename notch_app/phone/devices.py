"""The phones paired with this Notch, and the one-time codes that pair them.

Both live in `<data dir>/phone/` (owner-only): `devices.json` holds each phone's name,
its public key (SPKI, base64) and the hash of its session cookie; `pairing.json` holds
the hashes of the pairing codes not yet used, with their expiry. Only the hashes: a copy
of the folder can neither pair a phone nor act as one. Written by Notch (the page, the
Settings window) and by `notch phone` in another process, so every read goes back to the
file (a small one) and every write replaces it whole, under a lock.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import secrets
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Final

PAIRING_TTL_S: Final = 300.0
"""A pairing code works once, within five minutes of being shown."""
MAX_DEVICES: Final = 8
MAX_NAME_CHARS: Final = 40
MAX_PENDING_CODES: Final = 4
"""Codes shown and not yet used; an older one is dropped for a new one."""


class PhoneError(Exception):
    """A phone folder that cannot be read or written (the message names it and the fix)."""


@dataclass(frozen=True, slots=True)
class Device:
    """One paired phone."""

    device_id: str
    name: str
    """What the person called it ("Pixel 8"): on the desktop card and in `notch log`."""
    public_key: str
    """Its ECDSA P-256 public key, SPKI DER in base64: checks every answer it signs."""
    cookie_hash: str
    """SHA-256 of its session cookie (the cookie itself only the phone holds)."""
    paired_at: float


def phone_folder(data_dir: Path) -> Path:
    """Where the phone's files live for the data dir `data_dir`."""
    return Path(data_dir) / "phone"


def clean_name(name: object) -> str:
    """A phone's name as shown: one line of printable characters, bounded; "Phone" when
    none is left."""
    text = " ".join("".join(c for c in str(name) if c.isprintable()).split())
    return text[:MAX_NAME_CHARS] or "Phone"


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


class DeviceBook:
    """The paired phones and pairing codes in `folder` (created owner-only on first write)."""

    def __init__(self, folder: Path, clock: Any = time.time) -> None:
        self.folder = Path(folder)
        self._clock = clock

    # --- pairing codes -----------------------------------------------------------------

    def new_pairing_code(self) -> str:
        """A fresh one-time code (128 bits, URL-safe) for the QR; valid PAIRING_TTL_S."""
        code = secrets.token_urlsafe(16)
        now = self._clock()
        with self._locked():
            codes = [c for c in self._read("pairing.json", []) if c.get("expires", 0) > now]
            codes.append({"hash": _hash(code), "expires": now + PAIRING_TTL_S})
            self._write("pairing.json", codes[-MAX_PENDING_CODES:])
        return code

    def take_pairing_code(self, code: str) -> bool:
        """True once for a code shown and not expired (it is used up); else False."""
        if not isinstance(code, str) or not 8 <= len(code) <= 64:
            return False
        wanted = _hash(code)
        now = self._clock()
        with self._locked():
            codes = [c for c in self._read("pairing.json", []) if c.get("expires", 0) > now]
            kept = [c for c in codes if not secrets.compare_digest(c.get("hash", ""), wanted)]
            self._write("pairing.json", kept)
        return len(kept) < len(codes)

    # --- devices -----------------------------------------------------------------------

    def devices(self) -> list[Device]:
        """The paired phones, oldest first."""
        out = []
        for raw in self._read("devices.json", []):
            with contextlib.suppress(TypeError, KeyError):
                out.append(Device(**raw))
        return out

    def add(self, name: str, public_key: str) -> tuple[Device, str]:
        """Pair a phone: returns it and its session cookie (shown to the phone only).
        Raises PhoneError when MAX_DEVICES are already paired."""
        cookie = secrets.token_urlsafe(32)
        device = Device(
            device_id=secrets.token_hex(8),
            name=clean_name(name),
            public_key=public_key,
            cookie_hash=_hash(cookie),
            paired_at=self._clock(),
        )
        with self._locked():
            known = self._read("devices.json", [])
            if len(known) >= MAX_DEVICES:
                raise PhoneError(
                    f"{MAX_DEVICES} phones are paired already; unpair one in Settings first"
                )
            self._write("devices.json", [*known, asdict(device)])
        return device, cookie

    def by_cookie(self, cookie: str | None) -> Device | None:
        """The phone whose session cookie this is, else None (never paired, or unpaired)."""
        if not cookie or len(cookie) > 128:
            return None
        wanted = _hash(cookie)
        for device in self.devices():
            if secrets.compare_digest(device.cookie_hash, wanted):
                return device
        return None

    def remove(self, which: str) -> list[Device]:
        """Unpair the phones whose id or name is `which` (names compared without case):
        their keys are gone at once, and so is every answer they could still sign.
        Returns the phones removed (none: nothing matched)."""
        with self._locked():
            known = self.devices()
            gone = [d for d in known if which in (d.device_id,) or d.name.lower() == which.lower()]
            if gone:
                self._write("devices.json", [asdict(d) for d in known if d not in gone])
        return gone

    # --- files -------------------------------------------------------------------------

    def _read(self, name: str, default: Any) -> Any:
        path = self.folder / name
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return default
        except (OSError, ValueError) as exc:
            raise PhoneError(
                f"{path}: cannot be read ({exc}); move it away to unpair every phone"
            ) from None
        return data if isinstance(data, type(default)) else default

    def _write(self, name: str, data: Any) -> None:
        path = self.folder / name
        temporary = path.with_suffix(".tmp")
        try:
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(data, out, indent=1)
            os.replace(temporary, path)
        except OSError as exc:
            raise PhoneError(f"{path}: cannot be written ({exc.strerror or exc})") from None

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        try:
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            if self.folder.is_symlink():
                raise PhoneError(
                    f"{self.folder} is a symlink; Notch keeps phone keys only in a real folder"
                )
            fd = os.open(self.folder / ".lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        except OSError as exc:
            raise PhoneError(
                f"{self.folder}: cannot be used ({exc.strerror or exc}); check that the data "
                "dir is writable, or pass --data-dir"
            ) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)
