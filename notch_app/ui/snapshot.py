"""Rendering a card to an image, the same pixels the person sees (without the desktop
behind the glass). Used by `notch render` and the golden-image tests."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPoint
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QApplication, QWidget


def card_image(widget: QWidget, backdrop: QColor | None = None, *, whole: bool = True) -> QImage:
    """`widget` laid out, polished and painted into an ARGB image at device pixel ratio 1.

    With `backdrop` the translucent glass is composed over that colour; without it the
    corners and the glass keep their transparency. A card is drawn whole (`whole`: its
    body unfolded, however tall), or as the screen crops it ("More below" and all).
    """
    unfold = getattr(widget, "unfold", None)
    if whole and callable(unfold):
        unfold()
    if not widget.isVisible():
        widget.show()
    # Focus on the card itself: no blinking text cursor in the picture.
    widget.setFocus()
    QApplication.processEvents()
    widget.adjustSize()
    QApplication.processEvents()
    image = QImage(widget.size(), QImage.Format.Format_ARGB32_Premultiplied)
    image.setDevicePixelRatio(1.0)
    image.fill(backdrop if backdrop is not None else QColor(0, 0, 0, 0))
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    widget.render(painter, QPoint(0, 0))
    painter.end()
    return image


def save_card_png(
    widget: QWidget, path: Path, backdrop: QColor | None = None, *, whole: bool = True
) -> None:
    """Write `card_image(widget)` to `path` as PNG. Raises OSError when it cannot."""
    image = card_image(widget, backdrop, whole=whole)
    if not image.save(str(path), "PNG"):  # type: ignore[call-overload]  # str works; stubs say bytes
        raise OSError(f"cannot write {path}")
