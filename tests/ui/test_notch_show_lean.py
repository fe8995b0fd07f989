"""The notch's way from a request to its card's first frame does each thing once, and
what it stopped repeating still holds:

- a card's footer is laid out once, before its first frame (a push button's polish
  request, posted at its birth, laid it out again in that frame), and a button polished
  only as the card is shown is still laid out at its polished size;
- the window is masked once per shape as it opens (it was masked to the whole card
  before the opening started, then to the first shape twice);
- the card check asks the protocol's own questions, member by member, of every card,
  and still refuses a card that lacks (or blocks) a member, by name;
- the header's icon is read once per loaded integration, and an icon replaced on disk
  shows once the integrations are loaded again.
"""

from __future__ import annotations

import itertools
import shutil
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent, QObject, QRect, Qt, Signal
from PySide6.QtGui import QImage, QRegion
from PySide6.QtWidgets import QApplication, QLabel, QPushButton, QVBoxLayout, QWidget

from notch_app.runtime.catalog import Catalog, bundled_manifests_dir
from notch_app.runtime.presenter import ConfirmationRequest, ResultGlance
from notch_app.ui.card_view import CardView
from notch_app.ui.card_widget import CARD_MEMBERS, CardWidget, checked_card
from notch_app.ui.notch_window import HEADER_HEIGHT, ICON_SIZE, NotchWindow
from notch_app.ui.overlay_cards import ManifestCardFactory
from notch_app.ui.overlay_presenter import BuiltCard, OverlayPresenter
from notch_app.ui.overlay_settings import OverlaySettings
from notch_app.ui.widgets.integration_icon import InstalledIcon

SETTLED = OverlaySettings(expand_ms=0, done_ms=30, park_after_s=0)
OPENING = OverlaySettings(expand_ms=120, done_ms=30, park_after_s=0)
MAIL = "dev.notch.examples.mail"
FILES = "dev.notch.examples.files"


def _presenter(qtbot: Any, sink: Any, factory: Any, settings: OverlaySettings) -> Any:
    presenter = OverlayPresenter(sink, factory, settings)
    qtbot.addWidget(presenter.window)
    qtbot.addWidget(presenter.side_notch)
    return presenter


class _FirstFrame(QObject):
    """What reaches the card's widgets after `show_card`, until the card is painted."""

    def __init__(self, card: QWidget) -> None:
        super().__init__()
        self.card = card
        self.painted = False
        self.polish_asked: list[QWidget] = []
        self.laid_out: list[QWidget] = []

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if self.painted or not isinstance(watched, QWidget):
            return False
        if watched is not self.card and not self.card.isAncestorOf(watched):
            return False
        kind = event.type()
        if kind == QEvent.Type.Paint and watched is self.card:
            self.painted = True
        elif kind == QEvent.Type.PolishRequest:
            self.polish_asked.append(watched)
        elif kind == QEvent.Type.LayoutRequest:
            self.laid_out.append(watched)
        return False


def _until_first_frame(qtbot: Any, card: QWidget) -> _FirstFrame:
    frame = _FirstFrame(card)
    app = QApplication.instance()
    assert app is not None
    app.installEventFilter(frame)
    try:
        qtbot.waitUntil(lambda: frame.painted)
    finally:
        app.removeEventFilter(frame)
    return frame


@pytest.mark.parametrize(
    ("integration", "folder", "tool"),
    [(MAIL, "mail", "send_email"), (FILES, "files", "delete_files")],
)
def test_a_cards_footer_is_laid_out_once_before_its_first_frame(
    qtbot: Any,
    sink: Any,
    bundled_factory: Any,
    preview_args: Any,
    integration: str,
    folder: str,
    tool: str,
) -> None:
    presenter = _presenter(qtbot, sink, bundled_factory(), OPENING)
    window = presenter.window
    presenter.present(ConfirmationRequest("c1", integration, tool, preview_args(folder, tool)))
    card = window.card
    assert isinstance(card, CardView)
    size = card.size()
    confirm = card.confirm_button()
    choices = card.scope_choices
    assert confirm is not None and confirm.isVisible() and choices is not None
    footer = {confirm.parentWidget(), choices, *choices.findChildren(QWidget)}
    frame = _until_first_frame(qtbot, card)
    # The buttons' polish requests (each would lay its row out again) were dropped: they
    # had been polished as the card was built and shown.
    assert [w for w in frame.polish_asked if isinstance(w, QPushButton)] == []
    assert [type(w).__name__ for w in frame.laid_out if w in footer] == []
    assert card.size() == size
    assert confirm.mapTo(card, confirm.rect().bottomRight()).y() < card.height()
    assert confirm.width() >= confirm.sizeHint().width()


def test_a_button_polished_as_its_card_is_shown_is_laid_out_at_its_polished_size(
    qtbot: Any,
) -> None:
    window = NotchWindow(SETTLED)
    qtbot.addWidget(window)
    card = QWidget(window.card_parent)
    column = QVBoxLayout(card)
    column.addWidget(QLabel("Send the report"))
    button = QPushButton("Send")
    # Its style sheet makes it much taller once polished; it is not polished before the
    # notch shows the card (no size was asked of it).
    button.setStyleSheet("QPushButton { padding: 30px 40px; font-size: 30px; }")
    column.addWidget(button)
    assert not button.testAttribute(Qt.WidgetAttribute.WA_WState_Polished)
    window.show_card(card, title="Test", position=1, total=1)
    _until_first_frame(qtbot, card)
    assert button.height() >= button.sizeHint().height() >= 80
    assert button.mapTo(card, button.rect().bottomLeft()).y() < card.height()
    assert window.height() >= card.height()


class _MaskedNotch(NotchWindow):
    """The notch, telling which shapes it was masked to."""

    def __init__(self, settings: OverlaySettings) -> None:
        super().__init__(settings)
        self.masks: list[QRect] = []

    def setMask(self, region: QRegion) -> None:  # type: ignore[override]
        self.masks.append(region.boundingRect())
        super().setMask(region)


def test_the_notch_is_masked_once_per_shape_as_it_opens(
    qtbot: Any, sink: Any, bundled_factory: Any, preview_args: Any
) -> None:
    window = _MaskedNotch(OPENING)
    presenter = OverlayPresenter(sink, bundled_factory(), OPENING, window=window)
    qtbot.addWidget(window)
    qtbot.addWidget(presenter.side_notch)
    args = preview_args("mail", "send_email")
    for call_id in ("m1", "m2"):  # the second opens after an animation has finished
        qtbot.waitUntil(lambda: window.look == "idle" and not window.is_animating())
        window.masks.clear()
        presenter.present(ConfirmationRequest(call_id, MAIL, "send_email", args))
        assert window.is_animating()
        # Masked first to where the opening starts (the header and the card's top), not
        # to the whole card, and once to it.
        assert [m.height() for m in window.masks] == [HEADER_HEIGHT + 16]
        qtbot.waitUntil(lambda: not window.is_animating())
        shapes = window.masks
        assert all(a != b for a, b in itertools.pairwise(shapes))
        assert all(b.height() >= a.height() for a, b in itertools.pairwise(shapes))
        # Settled: unmasked, the whole card shown.
        assert window.mask().isEmpty()
        card = window.card
        assert card is not None and window.height() >= card.height() + HEADER_HEIGHT
        assert isinstance(presenter.on_screen, ConfirmationRequest)
        presenter.dismiss(call_id, "withdrawn")


class _BlockedCard(QWidget):
    """Every member of a card, with `press` blocked (set to None) on one of them."""

    decided = Signal(bool, dict, list)
    revised = Signal(str)
    changedByPage = Signal()

    def __init__(self, *, blocked: bool = False, strip: bool = True) -> None:
        super().__init__()
        if strip:
            self.asker_strip = None  # as a card without a strip carries it
        self.scope_choices = None
        self.approval_scope = "once"
        self.reply_words = None
        self.voice_words = None
        self.look = None
        if blocked:
            self.press = None  # type: ignore[assignment]

    def state(self) -> Any: ...
    def set_armed(self, armed: bool) -> None: ...
    def press(self, role: str) -> bool:
        return False

    def read_back(self) -> str:
        return ""

    def show_voice_words(self, words: str | None) -> None: ...
    def show_voice_note(self, text: str | None) -> None: ...
    def show_heard(self, text: str | None) -> None: ...
    def show_save_failure(self, text: str) -> None: ...


def test_the_card_check_is_the_protocols_own_on_every_card(
    qtbot: Any, bundled_factory: Any, preview_args: Any
) -> None:
    made = bundled_factory()(
        ConfirmationRequest("m", MAIL, "send_email", preview_args("mail", "send_email")), None
    )
    qtbot.addWidget(made.widget)
    whole, blocked, stripless = (
        _BlockedCard(),
        _BlockedCard(blocked=True),
        _BlockedCard(strip=False),
    )
    for widget in (whole, blocked, stripless):
        qtbot.addWidget(widget)
    # The same type accepted once and refused on its next card when that one lacks (or
    # blocks) a member its class does not define: each card is asked, by name.
    for widget, lacks in ((made.widget, None), (whole, None), (blocked, "press"),
                          (stripless, "asker_strip"), (whole, None)):  # fmt: skip
        assert isinstance(widget, CardWidget) is (lacks is None)
        if lacks is None:
            assert checked_card(widget) is widget
            continue
        with pytest.raises(TypeError) as refused:
            checked_card(widget, made_by=_BlockedCard)
        said = str(refused.value)
        assert said.startswith("_BlockedCard (made by _BlockedCard) is not a card")
        assert f"it lacks {lacks}. " in said
    assert set(CARD_MEMBERS) >= {"press", "asker_strip", "decided", "set_armed"}


def _header_icon(presenter: OverlayPresenter) -> QImage:
    icon = presenter.window.header_icon
    assert icon is not None
    return icon.pixmap(ICON_SIZE).toImage()


def test_an_icon_replaced_on_disk_shows_once_the_integrations_are_loaded_again(
    qtbot: Any, sink: Any, tmp_path: Path, preview_args: Any
) -> None:
    folder = tmp_path / "added" / "mail"
    shutil.copytree(bundled_manifests_dir() / "mail", folder)
    catalog, problems = Catalog.load([folder.parent])
    assert problems == []
    factory = ManifestCardFactory(catalog)
    presenter = _presenter(qtbot, sink, factory, SETTLED)
    args = preview_args("mail", "send_email")

    def shown(call_id: str) -> QImage:
        presenter.present(ConfirmationRequest(call_id, MAIL, "send_email", args))
        qtbot.waitUntil(lambda: getattr(presenter.on_screen, "call_id", None) == call_id)
        drawn = _header_icon(presenter)
        presenter.dismiss(call_id, "withdrawn")
        return drawn

    presenter.present(ConfirmationRequest("m1", MAIL, "send_email", args))
    first = presenter.window.header_icon
    mail = _header_icon(presenter)
    presenter.dismiss("m1", "withdrawn")
    # Read once per loaded integration: the next card wears the very same icon.
    presenter.present(ConfirmationRequest("m2", MAIL, "send_email", args))
    qtbot.waitUntil(lambda: getattr(presenter.on_screen, "call_id", None) == "m2")
    assert first is not None and presenter.window.header_icon is first
    presenter.dismiss("m2", "withdrawn")
    shutil.copy(bundled_manifests_dir() / "payments" / "icon.svg", folder / "icon.svg")
    reloaded, problems = Catalog.load([folder.parent])  # Settings → Reload, or a reinstall
    assert problems == []
    factory.use_catalog(reloaded)
    manifest = reloaded.integration(MAIL)
    assert manifest is not None
    payments = InstalledIcon.of(manifest, folder).pixmap(ICON_SIZE)
    now = shown("m3")
    assert now != mail
    assert now == payments.toImage()
    # A glance of the reloaded integration wears the new icon too.
    glance = factory.glance(ResultGlance(MAIL, "send_email", "Send email"), None)
    qtbot.addWidget(glance.widget)
    assert glance.icon is not None and glance.icon.pixmap(ICON_SIZE).toImage() == now


def test_a_plain_widget_built_by_a_factory_is_still_refused_by_the_notch(
    qtbot: Any, sink: Any, card_request: Any, capsys: Any
) -> None:
    def labels(request: ConfirmationRequest, parent: QWidget) -> BuiltCard:
        return BuiltCard(QLabel("Send thing", parent), title="Test", action="Send thing")

    presenter = _presenter(qtbot, sink, labels, SETTLED)
    for call_id in ("a", "b"):  # refused each time, not only the first
        presenter.present(card_request(call_id))
        assert presenter.window.card is None
    assert [c[1:3] for c in sink.of("decide")] == [("a", False), ("b", False)]
    err = capsys.readouterr().err
    assert err.count("QLabel (made by ") == 2
    assert "it lacks " + ", ".join(CARD_MEMBERS) + "." in err
