"""The notch's first frame of a card: the card at its final size, painted once, nothing
painted outside the notch's shape while it grows; and the startup warm-up."""

from __future__ import annotations

import json
from typing import Any

import pytest
from PySide6.QtCore import QEvent, QObject, QRect, QSize
from PySide6.QtGui import QPaintEvent
from PySide6.QtWidgets import QWidget

from notch_app.app import BUNDLED_MANIFESTS
from notch_app.runtime.catalog import Catalog
from notch_app.runtime.presenter import ConfirmationRequest
from notch_app.ui.overlay_cards import ManifestCardFactory
from notch_app.ui.overlay_presenter import OverlayPresenter
from notch_app.ui.overlay_settings import OverlaySettings

# A slow expansion, so the frames in the middle of it can be looked at.
SLOW = OverlaySettings(expand_ms=400, done_ms=60, park_after_s=0)


def _factory() -> ManifestCardFactory:
    catalog, problems = Catalog.load([BUNDLED_MANIFESTS])
    assert not problems
    return ManifestCardFactory(catalog)


def _request(call_id: str, folder: str, integration: str, tool: str) -> ConfirmationRequest:
    preview = json.loads((BUNDLED_MANIFESTS / folder / "preview.json").read_text())
    return ConfirmationRequest(call_id, integration, tool, preview["tools"][tool]["args"])


class _Paints(QObject):
    """Records the card's paint events (the region each one painted)."""

    def __init__(self) -> None:
        super().__init__()
        self.regions: list[QRect] = []

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and isinstance(event, QPaintEvent):
            self.regions.append(event.region().boundingRect())
        return False


def test_a_card_whose_fields_size_themselves_is_final_in_its_first_frame(
    qtbot: Any, sink: Any
) -> None:
    # The mail card has a text area and markdown: both know their height only once they
    # know their width. Before, the card was painted too short, then grew and the notch
    # was resized and painted again.
    presenter = OverlayPresenter(sink, _factory(), SLOW)
    qtbot.addWidget(presenter.window)
    qtbot.addWidget(presenter.side_notch)
    presenter.present(_request("m", "mail", "dev.notch.examples.mail", "send_email"))
    card = presenter.window.card
    assert card is not None
    size_at_present = QSize(card.size())
    target_at_present = presenter.window.target_geometry()
    paints = _Paints()
    card.installEventFilter(paints)
    qtbot.waitUntil(lambda: ("shown", "m") in sink.calls, timeout=3000)
    assert paints.regions, "the card was painted before `shown`"
    # While the notch grows, only the part of the card inside its shape is painted.
    first = paints.regions[0]
    assert first.height() < size_at_present.height() / 2
    qtbot.waitUntil(lambda: not presenter.window.is_animating(), timeout=3000)
    assert card.size() == size_at_present
    assert presenter.window.geometry() == target_at_present
    assert card.sizeHint() == size_at_present  # nothing left to grow into


def test_without_animation_the_first_frame_paints_the_whole_card(qtbot: Any, sink: Any) -> None:
    settings = OverlaySettings(expand_ms=0, done_ms=60, park_after_s=0)
    presenter = OverlayPresenter(sink, _factory(), settings)
    qtbot.addWidget(presenter.window)
    qtbot.addWidget(presenter.side_notch)
    presenter.present(_request("p", "payments", "dev.notch.examples.payments", "pay_invoice"))
    card = presenter.window.card
    assert card is not None
    paints = _Paints()
    card.installEventFilter(paints)
    qtbot.waitUntil(lambda: ("shown", "p") in sink.calls, timeout=3000)
    assert paints.regions[0] == QRect(0, 0, card.width(), card.height())


def test_warm_up_builds_and_discards_cards_off_screen(qtbot: Any, sink: Any) -> None:
    presenter = OverlayPresenter(sink, _factory(), SLOW)
    qtbot.addWidget(presenter.window)
    qtbot.addWidget(presenter.side_notch)
    look = presenter.window.look
    presenter.warm_up()
    qtbot.waitUntil(lambda: not presenter.window.card_parent.findChildren(QObject), timeout=2000)
    assert presenter.window.look == look and presenter.window.card is None
    assert sink.calls == []  # nothing reported to the service
    assert _factory().warm_up(presenter.window.card_parent) >= 3


def test_the_first_card_on_screen_builds_one_glance_off_screen(
    qtbot: Any, sink: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The person's first result should not pay for the glance code's first use, and an
    idle notch should not carry it: one glance is built while the first card is read."""
    factory = _factory()
    glances: list[str] = []
    real = factory.warm_glance

    def counted(parent: QWidget) -> bool:
        built = real(parent)
        glances.append("built" if built else "failed")
        return built

    monkeypatch.setattr(factory, "warm_glance", counted)
    presenter = OverlayPresenter(sink, factory, SLOW)
    qtbot.addWidget(presenter.window)
    qtbot.addWidget(presenter.side_notch)
    presenter.warm_up()
    assert glances == [], "not at start: the idle process stays small"
    presenter.present(_request("m", "mail", "dev.notch.examples.mail", "send_email"))
    qtbot.waitUntil(lambda: glances == ["built"], timeout=3000)
    qtbot.waitUntil(lambda: presenter.armed, timeout=3000)
    presenter.present(_request("p", "payments", "dev.notch.examples.payments", "pay_invoice"))
    presenter.dismiss("m", "withdrawn")
    qtbot.waitUntil(lambda: ("shown", "p") in sink.calls, timeout=5000)
    qtbot.waitUntil(lambda: presenter.armed, timeout=5000)
    assert glances == ["built"], "once per process"


def test_a_gateway_attaching_readies_the_glance_before_any_card(
    qtbot: Any, sink: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reads through `notch mcp` show glances with no card before them: the attach is the
    sign, and the glance code is readied then, once."""
    factory = _factory()
    built: list[bool] = []
    real = factory.warm_glance

    def counted(parent: QWidget) -> bool:
        built.append(real(parent))
        return built[-1]

    monkeypatch.setattr(factory, "warm_glance", counted)
    presenter = OverlayPresenter(sink, factory, SLOW)
    qtbot.addWidget(presenter.window)
    qtbot.addWidget(presenter.side_notch)
    presenter.results_may_follow()
    qtbot.waitUntil(lambda: built == [True], timeout=3000)
    presenter.results_may_follow()  # a second gateway
    presenter.present(_request("m", "mail", "dev.notch.examples.mail", "send_email"))
    qtbot.waitUntil(lambda: presenter.armed, timeout=5000)
    assert built == [True], "once per process"
    assert presenter.window.look == "card" and presenter.result_on_screen is None


def test_a_gateway_attaching_readies_the_cards_too_and_only_once(
    qtbot: Any, sink: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An idle `notch run` builds no card off screen (it would hold ~20 MiB that no agent
    may ever need); a gateway attaching is the sign that cards may follow, so the cards
    are warmed then, once, and a card that came first makes the warm-up pointless."""
    factory = _factory()
    warmed: list[int] = []
    real = factory.warm_up

    def counted(parent: QWidget, budget_s: float = 0.5) -> int:
        # Room to build every card: the warm-up's 0.5 s budget measures the machine's
        # load (two of them in it once, on a loaded run), not whether the cards are warmed.
        warmed.append(real(parent, 30.0))
        return warmed[-1]

    monkeypatch.setattr(factory, "warm_up", counted)
    presenter = OverlayPresenter(sink, factory, SLOW)
    qtbot.addWidget(presenter.window)
    qtbot.addWidget(presenter.side_notch)
    presenter.results_may_follow()
    presenter.results_may_follow()  # a second gateway before the first warm-up ran
    qtbot.waitUntil(lambda: len(warmed) == 1 and presenter._glance_warmed, timeout=5000)
    assert warmed[0] >= 3
    qtbot.waitUntil(lambda: not presenter.window.card_parent.findChildren(QObject), timeout=2000)
    presenter.results_may_follow()
    presenter.present(_request("m", "mail", "dev.notch.examples.mail", "send_email"))
    qtbot.waitUntil(lambda: presenter.armed, timeout=5000)
    assert len(warmed) == 1, "once per process"
    assert ("shown", "m") in sink.calls
