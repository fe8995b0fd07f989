"""Answering the card on screen with Ctrl+Alt+Enter / Ctrl+Alt+Esc from any application
(issue 13 §5), in the real notch window with real cards from the bundled integrations,
offscreen. The X11 grab itself is driven in tests/e2e/test_keyboard_answer.py; here a
stand-in for the chord source presses the chords, so what the notch does with them is
tested alone: the chords are taken only while a card is on screen, approve is held until
the card is armed and closed while it is gated, decline is never held, both are decided
by "key", and a card without inputs still never takes focus."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from notch_app.runtime.presenter import ConfirmationRequest, ResultGlance
from notch_app.ui.card_view import CardView
from notch_app.ui.keys import AnswerKeys, answer_keys_for_platform
from notch_app.ui.keys.chords import AnswerRole
from notch_app.ui.keys.x11_grab import X11AnswerKeys
from notch_app.ui.notch_window import NotchWindow
from notch_app.ui.overlay_presenter import ARMING_DELAY_MS, OverlayPresenter
from notch_app.ui.overlay_settings import OverlaySettings

SETTINGS = OverlaySettings(expand_ms=40, done_ms=60_000, park_after_s=0)
FILES = "dev.notch.examples.files"
HINT = "Ctrl+Alt+↵ approve · Ctrl+Alt+Esc decline"


class ChordsOnDesk(AnswerKeys):
    """Chords a test presses by hand; `taken` says whether the notch holds them now."""

    def __init__(self, refused: frozenset[AnswerRole] = frozenset()) -> None:
        super().__init__()
        self.taken = False
        self.refused = refused

    def grab(self) -> None:
        self.taken = True

    def release(self) -> None:
        self.taken = False

    @property
    def grabbed(self) -> frozenset[AnswerRole]:
        every: frozenset[AnswerRole] = frozenset({"approve", "decline"})
        return every - self.refused if self.taken else frozenset()

    def press(self, role: AnswerRole) -> None:
        """The person presses the chord; it reaches Notch only while Notch holds it."""
        if self.taken and role in self.grabbed:
            (self.approvePressed if role == "approve" else self.declinePressed).emit()


def _overlay(
    qtbot: Any, sink: Any, bundled_factory: Any, keys: AnswerKeys, **kw: Any
) -> OverlayPresenter:
    settings = kw.pop("settings", SETTINGS)
    window = NotchWindow(settings, answer_keys=keys)
    presenter = OverlayPresenter(sink, bundled_factory(), settings, window=window, **kw)
    qtbot.addWidget(presenter.window)
    qtbot.addWidget(presenter.side_notch)
    return presenter


@pytest.fixture
def keys() -> ChordsOnDesk:
    return ChordsOnDesk()


@pytest.fixture
def overlay(qtbot: Any, sink: Any, bundled_factory: Any, keys: ChordsOnDesk) -> OverlayPresenter:
    return _overlay(qtbot, sink, bundled_factory, keys)


@pytest.fixture
def delete_files(preview_args: Any) -> Any:
    """`delete_files(call_id)`: the bundled files integration's delete card (no inputs)."""

    def request(call_id: str, **changes: Any) -> ConfirmationRequest:
        args = preview_args("files", "delete_files") | changes
        return ConfirmationRequest(call_id, FILES, "delete_files", args)

    return request


def _shown(qtbot: Any, presenter: OverlayPresenter) -> CardView:
    qtbot.waitUntil(lambda: isinstance(presenter.window.card, CardView), timeout=3000)
    card = presenter.window.card
    assert isinstance(card, CardView)
    return card


def test_a_card_without_inputs_is_approved_by_the_chord_once_armed_and_never_takes_focus(
    qtbot: Any, overlay: OverlayPresenter, keys: ChordsOnDesk, sink: Any, delete_files: Any
) -> None:
    assert not keys.taken, "the idle notch holds no chord"
    overlay.present(delete_files("d1"))
    card = _shown(qtbot, overlay)
    assert keys.taken, "the chords are taken as soon as the card is shown"
    assert overlay.window.keys_hint == HINT
    handle = overlay.window.windowHandle()
    assert handle is not None
    assert handle.flags() & Qt.WindowType.WindowDoesNotAcceptFocus, "it never takes focus"

    keys.press("approve")  # before the card armed: nothing
    assert sink.of("decide") == [] and card.decision is None
    qtbot.waitUntil(lambda: overlay.armed, timeout=ARMING_DELAY_MS + 3000)
    keys.press("approve")
    qtbot.waitUntil(lambda: bool(sink.of("decide")), timeout=2000)
    [(_, call_id, approved, final, edited, by)] = sink.of("decide")
    assert (call_id, approved, edited, by) == ("d1", True, [], "key")
    assert final == card.state().final_arguments()
    assert not keys.taken and overlay.window.keys_hint == "", "the done note holds no chord"


def test_the_decline_chord_is_never_held_and_says_key(
    qtbot: Any, overlay: OverlayPresenter, keys: ChordsOnDesk, sink: Any, delete_files: Any
) -> None:
    overlay.present(delete_files("d2"))
    _shown(qtbot, overlay)
    assert not overlay.armed
    keys.press("decline")
    assert sink.of("decide") == [("decide", "d2", False, None, [], "key")]


def test_a_chord_pressed_twice_decides_once(
    qtbot: Any, overlay: OverlayPresenter, keys: ChordsOnDesk, sink: Any, delete_files: Any
) -> None:
    overlay.present(delete_files("d3"))
    _shown(qtbot, overlay)
    qtbot.waitUntil(lambda: overlay.armed, timeout=ARMING_DELAY_MS + 3000)
    keys.press("approve")
    keys.press("approve")  # released with the card: it reaches nothing
    keys.press("decline")
    assert [c[1:3] for c in sink.of("decide")] == [("d3", True)]


def test_the_chord_goes_nowhere_while_the_notch_is_idle_parked_or_shows_a_glance(
    qtbot: Any, sink: Any, bundled_factory: Any, keys: ChordsOnDesk, delete_files: Any
) -> None:
    def glance_view(result: ResultGlance, parent: Any) -> Any:
        from PySide6.QtWidgets import QLabel

        from notch_app.ui.overlay_presenter import BuiltCard

        return BuiltCard(QLabel("3 events", parent), title="Calendar", action="List events")

    presenter = _overlay(
        qtbot,
        sink,
        bundled_factory,
        keys,
        settings=OverlaySettings(expand_ms=0, done_ms=0, park_after_s=0, glance_ms=60_000),
        glance_factory=glance_view,
    )
    assert not keys.taken and presenter.window.look == "idle"
    presenter.present(delete_files("p1"))
    _shown(qtbot, presenter)
    assert keys.taken
    presenter.park()
    assert presenter.window.look == "idle" and not keys.taken, "a parked card holds no chord"
    keys.press("decline")
    assert sink.of("decide") == []

    from notch_app.manifest.glance import read_glance

    blocks = read_glance({"blocks": [{"type": "header", "title": "Today"}]}).blocks
    presenter.show_result(ResultGlance("com.example.calendar", "list_events", "Today", blocks))
    qtbot.waitUntil(lambda: presenter.window.look == "glance", timeout=3000)
    assert not keys.taken and presenter.window.keys_hint == ""
    presenter.restore("p1")  # the glance steps aside for the card
    _shown(qtbot, presenter)
    assert keys.taken and presenter.window.keys_hint == HINT


def test_a_card_swapped_in_under_the_chord_is_held_and_a_gated_card_is_not_approved(
    qtbot: Any,
    overlay: OverlayPresenter,
    keys: ChordsOnDesk,
    sink: Any,
    delete_files: Any,
    preview_args: Any,
) -> None:
    # The agent replaces the armed card with another just as the person presses the chord.
    overlay.present(delete_files("a"))
    _shown(qtbot, overlay)
    qtbot.waitUntil(lambda: overlay.armed, timeout=ARMING_DELAY_MS + 3000)
    swapped = delete_files("b", paths=["/home/maya/thesis.tex"], count=1)
    overlay.replace("a", swapped)
    keys.press("approve")
    assert sink.of("decide") == [], "a card swapped in does not take the chord aimed at the last"

    # A card whose confirm is closed (its arguments break the schema) never takes the yes.
    broken = ConfirmationRequest(
        "g", FILES, "delete_files", preview_args("files", "delete_files") | {"count": 0}
    )
    overlay.replace("b", broken)
    card = _shown(qtbot, overlay)
    qtbot.waitUntil(lambda: card is overlay.window.card and overlay.armed, timeout=5000)
    assert not card.state().confirm_enabled
    keys.press("approve")
    assert sink.of("decide") == [] and card.decision is None
    keys.press("decline")  # cancel is never gated
    assert [c[1:3] for c in sink.of("decide")] == [("g", False)]


def test_a_chord_another_program_holds_is_not_offered(
    qtbot: Any, sink: Any, bundled_factory: Any, delete_files: Any
) -> None:
    keys = ChordsOnDesk(refused=frozenset({"decline"}))
    presenter = _overlay(qtbot, sink, bundled_factory, keys)
    presenter.present(delete_files("h"))
    _shown(qtbot, presenter)
    assert presenter.window.keys_hint == "Ctrl+Alt+↵ approve"


def test_offscreen_nothing_is_grabbed_no_hint_is_shown_and_the_card_still_works(
    qtbot: Any, sink: Any, bundled_factory: Any, delete_files: Any
) -> None:
    keys = answer_keys_for_platform()
    assert type(keys) is AnswerKeys, "offscreen Qt has no global keys"
    keys.grab()
    assert keys.grabbed == frozenset() and keys.hint == ""
    presenter = OverlayPresenter(sink, bundled_factory(), SETTINGS)  # its own, as notch run
    qtbot.addWidget(presenter.window)
    qtbot.addWidget(presenter.side_notch)
    presenter.present(delete_files("o"))
    card = _shown(qtbot, presenter)
    assert presenter.window.keys_hint == ""
    card.press("cancel")
    assert [c[1:3] for c in sink.of("decide")] == [("o", False)]


def test_x11_keys_without_an_x_server_give_up_quietly_and_grab_nothing(
    capfd: Any,
) -> None:
    keys = X11AnswerKeys(display=":198")  # no X server there
    keys.grab()
    keys.grab()  # asked again at the next card: still nothing, said once
    assert keys.grabbed == frozenset() and keys.hint == ""
    keys.release()
    keys.close()
    said = capfd.readouterr().err
    assert said.count("cannot take the answer keys on X11") == 1
    assert "answer cards by click" in said


def test_the_hint_reads_quietly_in_the_header(
    qtbot: Any, overlay: OverlayPresenter, delete_files: Any, desktop_shot: Any
) -> None:
    overlay.present(delete_files("look"))
    _shown(qtbot, overlay)
    qtbot.waitUntil(lambda: not overlay.window.is_animating(), timeout=3000)
    hint = overlay.window.findChild(QLabel, "notchKeysHint")
    assert hint is not None and hint.isVisible()
    title = overlay.window._title
    # Beside the title, inside the header, never over the × or the counter.
    assert hint.geometry().left() >= title.geometry().right()
    assert hint.geometry().right() < overlay.window._close.geometry().left()
    desktop_shot(overlay, "card-keys-hint")


def test_beside_approve_all_the_hint_is_short_and_whole(
    qtbot: Any, overlay: OverlayPresenter, preview_args: Any, desktop_shot: Any
) -> None:
    for n in range(3):
        args = preview_args("files", "delete_files")
        overlay.present(ConfirmationRequest(f"t{n}", FILES, "delete_files", args, batch_id="turn"))
    _shown(qtbot, overlay)
    qtbot.waitUntil(lambda: not overlay.window.is_animating(), timeout=3000)
    hint = overlay.window.findChild(QLabel, "notchKeysHint")
    assert overlay.window.keys_hint == "Ctrl+Alt+↵ / Esc"
    assert hint is not None and hint.toolTip() == HINT
    assert hint.width() >= hint.fontMetrics().horizontalAdvance(hint.text()), "never cut"
    desktop_shot(overlay, "card-keys-hint-batch")


def test_over_the_batch_summary_the_chords_are_not_offered_and_decline_goes_back(
    qtbot: Any, overlay: OverlayPresenter, keys: ChordsOnDesk, sink: Any, preview_args: Any
) -> None:
    """The approve chord does nothing while Approve all's summary is up (its own button
    decides), so the header does not offer it; the decline chord goes back to the cards
    and declines nothing the person cannot see."""
    for n in range(3):
        args = preview_args("files", "delete_files")
        overlay.present(ConfirmationRequest(f"s{n}", FILES, "delete_files", args, batch_id="turn"))
    _shown(qtbot, overlay)
    qtbot.waitUntil(lambda: overlay.armed, timeout=ARMING_DELAY_MS + 3000)
    assert overlay.window.keys_hint == "Ctrl+Alt+↵ / Esc"
    approve_all, _ = overlay.window.batch_actions
    qtbot.mouseClick(approve_all, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not isinstance(overlay.window.card, CardView), timeout=3000)
    assert overlay.window.keys_hint == "", "no chord answers the summary"

    keys.press("approve")
    keys.press("decline")
    card = _shown(qtbot, overlay)
    assert sink.of("decide") == [], "the decline chord only closed the summary"
    assert overlay.window.keys_hint == "Ctrl+Alt+↵ / Esc"
    assert card.decision is None
