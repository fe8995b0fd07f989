"""Rendering a card or a glance to an image, the same pixels the person sees (without the
desktop behind the glass). Used by `notch render` and the golden-image tests."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from PySide6.QtCore import QPoint, QSize
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QApplication, QWidget

if TYPE_CHECKING:
    from notch_app.ui.widgets.integration_icon import InstalledIcon


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
    # As the notch sizes a card: until its layout stops changing (a code panel counts
    # its rows again once it has its real width, and the card follows).
    from notch_app.ui.notch_window import settle_layout  # the notch's own way

    settle_layout(widget)
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


def glance_image(
    blocks: Sequence[Any],
    *,
    theme: Literal["dark", "light"] = "dark",
    width: int = 440,
    app_icon: InstalledIcon | None = None,
    clock: Callable[[], float] | None = None,
    backdrop: QColor | None = None,
) -> QImage:
    """A glance (blocks as `read_glance` kept them) drawn in its glass, as the notch shows
    it, into an ARGB image at device pixel ratio 1. `clock` fixes the time a clock or
    countdown shows. Raises ThemeError for an unknown theme."""
    from notch_app.ui.glance import GlanceView

    view = GlanceView(
        blocks,
        theme=theme,
        width=width,
        app_icon=app_icon,
        clock=clock or time.time,
    )
    try:
        return card_image(view, backdrop)
    finally:
        view.close()  # an in-process caller keeps its screen free of a stray glance
        view.deleteLater()


def save_glance_png(path: Path, blocks: Sequence[Any], **options: Any) -> QSize:
    """Write `glance_image(blocks, **options)` to `path` as PNG and return its size.
    Raises OSError when it cannot."""
    image = glance_image(blocks, **options)
    if not image.save(str(path), "PNG"):  # type: ignore[call-overload]  # str works; stubs say bytes
        raise OSError(f"cannot write {path}")
    return image.size()
