"""An integration's icon, for Settings, the card's "who is asking" strip, the notch's header
and the side notch: a file in its folder, a data: URI, an emoji, or (when none of those
works) a monogram drawn in code.

The icon always comes from the integration as Notch installed it (its manifest and
folder, looked up by the catalog), never from anything a request carries.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from PySide6.QtCore import QByteArray, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QIcon, QPainter, QPainterPath, QPixmap

from notch_app.manifest.kept import KeptBy
from notch_app.manifest.model import Manifest

if TYPE_CHECKING:
    from notch_app.runtime.catalog import CatalogEntry

_T = TypeVar("_T")
_MAX_ICON_BYTES = 512 * 1024
_MONOGRAM_COLOURS = ("#4c8dff", "#30a46c", "#e5484d", "#f5a524", "#8e4ec6", "#12a594", "#d6409f")


def integration_icon(
    manifest: Manifest, folder: Path | None, size: int, ratio: float = 1.0
) -> QPixmap:
    """The icon at `size`×`size` device-independent pixels, drawn with `ratio` device
    pixels to each (2.0 on a HiDPI screen, so it stays sharp). Never raises."""
    return _draw(manifest.id, manifest.name, manifest.icon or "", folder, size, ratio)


@dataclass(frozen=True, slots=True)
class InstalledIcon:
    """An installed integration's icon, as the notch draws it (header, idle pill, side
    notch). Made with `of()` from the catalog's manifest and folder; `pixmap()` decodes
    the file once per size and pixel ratio, so painting never decodes."""

    integration_id: str
    name: str
    """The integration's name (for tooltips and accessible names)."""
    source: str
    """The manifest's `icon`: a file in `folder`, a data: URI or an emoji."""
    folder: Path | None
    stamp: tuple[int, int] | None = None
    """The icon file's (mtime_ns, size) when the card was built: an icon replaced by a
    reinstall into the same folder is drawn again, not served from the cache."""

    @classmethod
    def of(cls, manifest: Manifest, folder: Path | None) -> InstalledIcon:
        """The icon of `manifest` as installed in `folder`. Never raises."""
        source = (manifest.icon or "").strip()
        stamp = None
        if folder is not None and source and not source.startswith("data:"):
            with contextlib.suppress(OSError, ValueError):
                stat = (folder / source).stat()
                stamp = (stat.st_mtime_ns, stat.st_size)
        name = " ".join(manifest.name.split()) or manifest.id
        return cls(manifest.id, name, source, folder, stamp)

    def pixmap(self, size: int, ratio: float = 1.0) -> QPixmap:
        """The icon at `size` device-independent pixels for `ratio` (see
        `integration_icon`), from the cache after the first call. Never raises."""
        key = (self, size, round(ratio, 3))
        pixmap = _DRAWN.get(key)
        if pixmap is None:
            if len(_DRAWN) > 256:  # a long-running notch meets few integrations; stay bounded
                _DRAWN.clear()
            pixmap = _DRAWN[key] = _draw(
                self.integration_id, self.name, self.source, self.folder, size, ratio
            )
        return pixmap

    def paint(self, painter: QPainter, rect: QRectF) -> None:
        """Draw the icon into `rect` (a square, device-independent pixels), sharp at the
        pixel ratio of the painter's device."""
        device = painter.device()
        ratio = device.devicePixelRatioF() if device is not None else 1.0
        pixmap = self.pixmap(round(rect.width()), ratio)
        painter.drawPixmap(rect, pixmap, QRectF(pixmap.rect()))

    def qicon(self, size: int) -> QIcon:
        """The icon as a QIcon (menus), with sharp pixmaps for 1× and 2× screens."""
        icon = QIcon()
        for ratio in (1.0, 2.0):
            icon.addPixmap(self.pixmap(size, ratio))
        return icon


_DRAWN: dict[tuple[InstalledIcon, int, float], QPixmap] = {}

_ENTRIES: KeptBy[dict[str, Any]] = KeptBy(256)
"""Per loaded catalog entry: what was worked out of it, by name. A catalog reload or a
reinstall makes new entries, which are looked at again."""


def kept_for_entry(entry: CatalogEntry, name: str, make: Callable[[], _T]) -> _T:
    """`make()`, worked out once per loaded catalog entry and kept under `name`: what the
    card shows of where an integration came from and its icon is read from its folder,
    file system calls that would otherwise run on every card."""
    values = _ENTRIES.get(entry, dict)
    if name not in values:
        values[name] = make()
    value: _T = values[name]
    return value


def installed_icon(entry: CatalogEntry) -> InstalledIcon:
    """The icon of a loaded catalog entry as installed (`InstalledIcon.of` its manifest
    and folder), worked out once per entry: `of` looks at the icon file (its stamp) on
    every card. An icon replaced in the folder shows from the next reload, and a
    reinstall into the same folder is drawn anew. Never raises."""
    return kept_for_entry(entry, "icon", lambda: InstalledIcon.of(entry.manifest, entry.folder))


def _draw(
    integration_id: str, name: str, source: str, folder: Path | None, size: int, ratio: float
) -> QPixmap:
    ratio = ratio if 0.5 <= ratio <= 8 else 1.0
    pixmap = _from_source(source.strip(), folder, size, ratio)
    return pixmap if pixmap is not None else _monogram(integration_id, name, size, ratio)


def _from_source(source: str, folder: Path | None, size: int, ratio: float) -> QPixmap | None:
    if not source:
        return None
    if source.startswith("data:"):
        header, _, payload = source.partition(",")
        if ";base64" not in header or len(payload) > _MAX_ICON_BYTES * 4 // 3 + 4:
            return None
        try:
            data = base64.b64decode(payload, validate=True)
        except (binascii.Error, ValueError):
            return None
        decoded = QPixmap()
        if not decoded.loadFromData(QByteArray(data)):
            return None
        return _fit(decoded, size, ratio)
    if folder is not None and len(source) <= 1024:
        from_file = _from_file(folder, source, size, ratio)
        if from_file is not None:
            return from_file
    if len(source) <= 8 and not any(c.isascii() and c.isalnum() for c in source):
        return _emoji(source, size, ratio)
    return None


def _from_file(folder: Path, source: str, size: int, ratio: float) -> QPixmap | None:
    try:
        path = (folder / source).resolve()
        path.relative_to(folder.resolve())  # only files inside the integration's folder
        if not path.is_file() or path.stat().st_size > _MAX_ICON_BYTES:
            return None
    except (OSError, ValueError):
        return None
    icon = QIcon(str(path))
    if icon.isNull():
        return None
    pixmap = icon.pixmap(QSize(size, size), ratio)
    return None if pixmap.isNull() else pixmap  # a file Qt cannot decode: the monogram


def _fit(pixmap: QPixmap, size: int, ratio: float) -> QPixmap:
    side = round(size * ratio)
    fitted = pixmap.scaled(
        side,
        side,
        Qt.AspectRatioMode.KeepAspectRatio,
        Qt.TransformationMode.SmoothTransformation,
    )
    fitted.setDevicePixelRatio(ratio)
    return fitted


def _canvas(size: int, ratio: float) -> tuple[QPixmap, QPainter]:
    side = round(size * ratio)
    pixmap = QPixmap(side, side)
    pixmap.setDevicePixelRatio(ratio)  # the painter below draws in `size` units
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
    return pixmap, painter


def _emoji(text: str, size: int, ratio: float) -> QPixmap:
    pixmap, painter = _canvas(size, ratio)
    font = QFont()
    font.setPixelSize(int(size * 0.75))
    painter.setFont(font)
    painter.drawText(QRectF(0, 0, size, size), Qt.AlignmentFlag.AlignCenter, text)
    painter.end()
    return pixmap


def _monogram(integration_id: str, name: str, size: int, ratio: float) -> QPixmap:
    pixmap, painter = _canvas(size, ratio)
    digest = hashlib.sha256(integration_id.encode()).digest()
    colour = QColor(_MONOGRAM_COLOURS[digest[0] % len(_MONOGRAM_COLOURS)])
    path = QPainterPath()
    path.addRoundedRect(QRectF(0, 0, size, size), size * 0.22, size * 0.22)
    painter.fillPath(path, colour)
    font = QFont()
    font.setPixelSize(int(size * 0.5))
    font.setWeight(QFont.Weight.DemiBold)
    painter.setFont(font)
    painter.setPen(QColor("#ffffff"))
    letter = next((c for c in name if c.isalnum()), "?").upper()
    painter.drawText(QRectF(0, 0, size, size), Qt.AlignmentFlag.AlignCenter, letter)
    painter.end()
    return pixmap
