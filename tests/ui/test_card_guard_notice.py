"""When a guard trips, the card says so: "Asks anyway: amount is over 500" at its top.

The service sets `ConfirmationRequest.reason` when a card shows although the person
turned Asks first off; the notch shows it as a quiet tinted line with a shield, reads it
out as the card's accessible description, and renders it in both themes (PNGs under
artifacts/overlay/, looked at by a person).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from PySide6.QtCore import QPoint, QRect
from PySide6.QtGui import QColor, QImage, QLinearGradient, QPainter, QPixmap
from PySide6.QtWidgets import QApplication, QLabel

from notch_app.app import BUNDLED_MANIFESTS
from notch_app.runtime.catalog import Catalog
from notch_app.runtime.presenter import ConfirmationRequest
from notch_app.ui.card_driver import CardDriver
from notch_app.ui.card_view import CardView
from notch_app.ui.overlay_cards import ManifestCardFactory
from notch_app.ui.overlay_presenter import OverlayPresenter
from notch_app.ui.overlay_settings import OverlaySettings
from notch_app.ui.widgets.guard_notice import MAX_NOTICE_CHARS, GuardNotice

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "overlay"
PAYMENTS = "dev.notch.examples.payments"
GUARD = "Asks anyway: amount is over 500"


def _catalog() -> Catalog:
    catalog, problems = Catalog.load([BUNDLED_MANIFESTS])
    assert not problems, problems
    return catalog


def _pay_invoice(
    call_id: str, reason: str | None, agent: str = "Bookkeeper"
) -> ConfirmationRequest:
    preview = json.loads((BUNDLED_MANIFESTS / "payments" / "preview.json").read_text())
    return ConfirmationRequest(
        call_id,
        PAYMENTS,
        "pay_invoice",
        dict(preview["tools"]["pay_invoice"]["args"]),
        {"agent": agent},
        reason=reason,
    )


def _card(reason: str | None, theme: Literal["dark", "light"] = "dark") -> CardView:
    card = ManifestCardFactory(_catalog(), theme=theme)(_pay_invoice("p", reason)).widget
    assert isinstance(card, CardView)
    return card


def test_a_tripped_guard_is_said_first_on_the_card(qtbot: Any) -> None:
    card = _card(GUARD)
    qtbot.addWidget(card)
    card.show()
    assert card.notice == GUARD
    lines = CardDriver(card).visible_text().splitlines()
    assert lines[0] == "Payments · Bundled with Notch"  # Notch's own strip: who asks
    assert lines[1] == GUARD  # read before the card's title
    assert "Pay invoice" in lines[2:4] or any("Pay" in line for line in lines[2:4])
    assert card.accessibleDescription() == GUARD
    notice = card.findChild(GuardNotice)
    assert notice is not None and notice.isVisibleTo(card)
    assert notice.accessibleDescription() == GUARD
    # It sits above everything else on the card, inside the glass, full width.
    title = next(w for w in card.findChildren(QLabel) if w.text() == lines[1])
    assert notice.mapTo(card, QPoint(0, 0)).y() < title.mapTo(card, QPoint(0, 0)).y()
    assert notice.width() >= card.width() - 60


def test_a_card_without_a_reason_has_no_notice(qtbot: Any) -> None:
    card = _card(None)
    qtbot.addWidget(card)
    card.show()
    assert card.notice == ""
    assert card.findChild(GuardNotice) is None
    assert GUARD not in CardDriver(card).visible_text()
    assert card.accessibleDescription() == ""
    blank = _card("   ")
    qtbot.addWidget(blank)
    assert blank.findChild(GuardNotice) is None


def test_a_long_or_multiline_reason_is_one_bounded_paragraph(qtbot: Any) -> None:
    allowed = ", ".join(f"person{i}@example.com" for i in range(60))
    card = _card(f"Asks anyway: to is not one of\n{allowed}\n<b>bold</b>")
    qtbot.addWidget(card)
    card.show()
    assert "\n" not in card.notice
    assert len(card.notice) <= MAX_NOTICE_CHARS and card.notice.endswith("…")
    assert card.notice.startswith("Asks anyway: to is not one of person0@example.com")
    notice = card.findChild(GuardNotice)
    assert notice is not None
    label = notice.findChild(QLabel)
    assert label is not None and label.textFormat().name == "PlainText"
    assert card.width() == 440  # wrapped inside the card, never widening it


def test_the_notch_shows_the_reason_and_drops_it_when_superseded(qtbot: Any, sink: Any) -> None:
    settings = OverlaySettings(expand_ms=0, done_ms=60_000, park_after_s=0)
    presenter = OverlayPresenter(sink, ManifestCardFactory(_catalog()), settings)
    qtbot.addWidget(presenter.window)
    qtbot.addWidget(presenter.side_notch)
    presenter.present(_pay_invoice("p1", GUARD))
    card = presenter.window.card
    assert isinstance(card, CardView) and card.notice == GUARD
    assert CardDriver(card).visible_text().splitlines()[1] == GUARD  # after who asks
    # A newer request that no guard stopped replaces it: its card has no notice.
    presenter.replace("p1", _pay_invoice("p2", None))
    card = presenter.window.card
    assert isinstance(card, CardView) and card.notice == ""
    assert GUARD not in CardDriver(card).visible_text()


def _shot(presenter: OverlayPresenter, name: str) -> QImage:
    """The top of the screen around the notch, on a wallpaper (as tests/ui/test_overlay_screens)."""
    QApplication.processEvents()
    screen = QApplication.primaryScreen().geometry()
    notch = presenter.window.geometry()
    area = QRect(screen.center().x() - 300, screen.top(), 600, max(140, notch.bottom() + 30))
    shot = QPixmap(area.size())
    painter = QPainter(shot)
    wallpaper = QLinearGradient(0, 0, area.width(), area.height())
    wallpaper.setColorAt(0.0, QColor("#3a4a6b"))
    wallpaper.setColorAt(1.0, QColor("#7b5a7e"))
    painter.fillRect(shot.rect(), wallpaper)
    painter.drawPixmap(notch.topLeft() - area.topLeft(), presenter.window.grab())
    painter.end()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot.save(str(ARTIFACTS / f"{name}.png"))
    return presenter.window.grab().toImage()


def _render(qtbot: Any, sink: Any, theme: Literal["dark", "light"]) -> None:
    settings = OverlaySettings(expand_ms=0, done_ms=60_000, park_after_s=0, theme=theme)
    presenter = OverlayPresenter(sink, ManifestCardFactory(_catalog(), theme=theme), settings)
    qtbot.addWidget(presenter.window)
    qtbot.addWidget(presenter.side_notch)
    presenter.present(_pay_invoice("p1", GUARD))
    card = presenter.window.card
    assert isinstance(card, CardView)
    notch = _shot(presenter, f"notch-card-guard-notice-{theme}")
    notice = card.findChild(GuardNotice)
    assert notice is not None
    # The notice is tinted: its middle differs from the card's glass right beside it.
    at = notice.mapTo(presenter.window, QPoint(notice.width() - 6, notice.height() // 2))
    beside = notice.mapTo(presenter.window, QPoint(notice.width() - 6, -5))
    tint, glass = notch.pixelColor(at), notch.pixelColor(beside)
    assert abs(tint.blue() - glass.blue()) + abs(tint.red() - glass.red()) > 12, (tint, glass)
    # Its text is painted, and reads against the tint in this theme.
    label = notice.findChild(QLabel)
    assert label is not None
    text_colour = label.palette().windowText().color()
    assert _contrast(text_colour, tint) >= 4.5, (theme, text_colour.name(), tint.name())


def _luminance(c: QColor) -> float:
    def channel(v: float) -> float:
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF())


def _contrast(a: QColor, b: QColor) -> float:
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def test_render_the_notice_in_the_dark_notch(qtbot: Any, sink: Any) -> None:
    _render(qtbot, sink, "dark")


def test_render_the_notice_in_the_light_notch(qtbot: Any, sink: Any) -> None:
    _render(qtbot, sink, "light")
