"""An integration's icon, for Settings and the card's "who is asking" strip: a file in its
folder, a data: URI, an emoji, or (when none of those works) a monogram drawn in code."""

from __future__ import annotations

import base64
import binascii
import hashlib
from pathlib import Path

from PySide6.QtCore import QByteArray, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QIcon, QPainter, QPainterPath, QPixmap

from notch_app.manifest.model import Manifest

_MAX_ICON_BYTES = 512 * 1024
_MONOGRAM_COLOURS = ("#4c8dff", "#30a46c", "#e5484d", "#f5a524", "#8e4ec6", "#12a594", "#d6409f")


def integration_icon(manifest: Manifest, folder: Path | None, size: int) -> QPixmap:
    """The icon at `size`×`size` device-independent pixels. Never raises."""
    pixmap = _from_manifest(manifest, folder, size)
    return pixmap if pixmap is not None else _monogram(manifest, size)


def _from_manifest(manifest: Manifest, folder: Path | None, size: int) -> QPixmap | None:
    source = (manifest.icon or "").strip()
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
        pixmap = QPixmap()
        if not pixmap.loadFromData(QByteArray(data)):
            return None
        return _fit(pixmap, size)
    if folder is not None and len(source) <= 1024:
        path = (folder / source).resolve()
        try:
            path.relative_to(folder.resolve())  # only files inside the integration's folder
        except ValueError:
            return None
        if path.is_file() and path.stat().st_size <= _MAX_ICON_BYTES:
            icon = QIcon(str(path))
            if not icon.isNull():
                return icon.pixmap(size, size)
    if len(source) <= 8 and not any(c.isascii() and c.isalnum() for c in source):
        return _emoji(source, size)
    return None


def _fit(pixmap: QPixmap, size: int) -> QPixmap:
    return pixmap.scaled(
        size,
        size,
        Qt.AspectRatioMode.KeepAspectRatio,
        Qt.TransformationMode.SmoothTransformation,
    )


def _canvas(size: int) -> tuple[QPixmap, QPainter]:
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
    return pixmap, painter


def _emoji(text: str, size: int) -> QPixmap:
    pixmap, painter = _canvas(size)
    font = QFont()
    font.setPixelSize(int(size * 0.75))
    painter.setFont(font)
    painter.drawText(QRectF(0, 0, size, size), Qt.AlignmentFlag.AlignCenter, text)
    painter.end()
    return pixmap


def _monogram(manifest: Manifest, size: int) -> QPixmap:
    pixmap, painter = _canvas(size)
    digest = hashlib.sha256(manifest.id.encode()).digest()
    colour = QColor(_MONOGRAM_COLOURS[digest[0] % len(_MONOGRAM_COLOURS)])
    path = QPainterPath()
    path.addRoundedRect(QRectF(0, 0, size, size), size * 0.22, size * 0.22)
    painter.fillPath(path, colour)
    font = QFont()
    font.setPixelSize(int(size * 0.5))
    font.setWeight(QFont.Weight.DemiBold)
    painter.setFont(font)
    painter.setPen(QColor("#ffffff"))
    letter = next((c for c in manifest.name if c.isalnum()), "?").upper()
    painter.drawText(QRectF(0, 0, size, size), Qt.AlignmentFlag.AlignCenter, letter)
    painter.end()
    return pixmap
