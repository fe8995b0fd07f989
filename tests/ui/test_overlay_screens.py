"""Renders the notch's looks to PNGs under artifacts/overlay/ and checks what a person sees.

The PNGs are the notch as it sits on a desktop: the top of the screen with a wallpaper,
the notch window and the side notch composited where they are placed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

from notch_app.runtime.presenter import ConfirmationRequest
from notch_app.ui.card_widget import CardWidget
from notch_app.ui.overlay_presenter import OverlayPresenter
from notch_app.ui.overlay_settings import OverlaySettings

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "overlay"
SETTINGS = OverlaySettings(expand_ms=0, done_ms=60_000, park_after_s=0)


def _is_notch_dark(image: QImage, at: QPoint) -> bool:
    c = image.pixelColor(at)
    return c.lightness() < 60


def _offset(presenter: OverlayPresenter) -> QPoint:
    screen = QApplication.primaryScreen().geometry()
    return QPoint(screen.center().x() - 380, screen.top())


def test_render_idle_card_parked_and_done_looks(
    qtbot: Any, sink: Any, bundled_factory: Any, preview_args: Any, desktop_shot: Any
) -> None:
    presenter = OverlayPresenter(sink, bundled_factory(), SETTINGS)
    qtbot.addWidget(presenter.window)
    qtbot.addWidget(presenter.side_notch)

    idle = desktop_shot(presenter, "notch-idle")
    pill = presenter.window.geometry()
    assert _is_notch_dark(idle, pill.center() - _offset(presenter))
    # Beside the pill is wallpaper, not a black box (the window is translucent).
    assert not _is_notch_dark(
        idle, QPoint(pill.right() + 30, pill.center().y()) - _offset(presenter)
    )

    mail = "dev.notch.examples.mail"
    presenter.present(
        ConfirmationRequest(
            "m1",
            mail,
            "send_email",
            preview_args("mail", "send_email"),
            {"agent": "Mail assistant"},
        )
    )
    presenter.present(
        ConfirmationRequest(
            "m2", "io.elevenlabs", "generate_speech", preview_args("elevenlabs", "generate_speech")
        )
    )
    presenter.present(
        ConfirmationRequest(
            "m3",
            "dev.notch.examples.payments",
            "pay_invoice",
            preview_args("payments", "pay_invoice"),
        )
    )
    card_shot = desktop_shot(presenter, "notch-card-1-of-3")
    assert presenter.window._counter.text() == "1 of 3"
    assert presenter.window.geometry().height() > 120
    assert card_shot.height() > idle.height()

    presenter.park()
    presenter.park()
    presenter.park()
    parked = desktop_shot(presenter, "notch-side-notch-parked")
    side = presenter.side_notch.geometry()
    assert presenter.side_notch.isVisible() and len(presenter.side_notch.parked) == 3
    assert _is_notch_dark(parked, QPoint(side.left() + 6, side.center().y()) - _offset(presenter))
    assert side.left() > presenter.window.geometry().right()

    presenter.restore("m1")
    card = presenter.window.card
    assert isinstance(card, CardWidget)
    assert not card.press("confirm")  # held: just restored
    qtbot.waitUntil(lambda: presenter.armed, timeout=3000)
    assert card.press("confirm")
    assert sink.of("decide")[0][1:3] == ("m1", True)
    done = desktop_shot(presenter, "notch-done")
    assert presenter.window.look == "done"
    assert presenter.window._note.text() == "Approved ✓  Send email"
    assert _is_notch_dark(
        done,
        QPoint(presenter.window.geometry().left() + 12, presenter.window.geometry().center().y())
        - _offset(presenter),
    )
    assert Qt.WindowType.WindowStaysOnTopHint & presenter.window.windowFlags()
