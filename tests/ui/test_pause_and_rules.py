"""Issue 22, the resting notch and the person's rules, through a real Notch (service,
socket, overlay, the tray's menu as `notch run` builds it) and a real socket agent:

- the tray pauses Notch: "Ask for everything" suspends Always-allow and "this session"
  rules, "Hold all cards" keeps cards parked and notes waiting; Resume lifts either; the
  state shows on the tray and the resting notch's hover; nothing on the socket lifts it;
- a call that runs unasked under the person's scope rule says which rule, with an Undo
  that removes the rule and says the call itself already ran.
"""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Literal

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from notch_app.app import NotchApp, NotchConfig
from notch_app.ipc.client import AsyncNotchClient, NotchRequestError
from notch_app.runtime.catalog import bundled_manifests_dir
from notch_app.runtime.pause import PAUSED_REASON
from notch_app.ui import overlay_presenter
from notch_app.ui.card_view import CardView
from notch_app.ui.overlay import decisions
from notch_app.ui.overlay_presenter import OverlayPresenter
from notch_app.ui.overlay_settings import OverlaySettings
from notch_app.ui.tray import NotchTray

MUSIC = "dev.notch.examples.music"
MAIL = "dev.notch.examples.mail"


@contextlib.asynccontextmanager
async def notch_in_process(tmp_path: Path, done_ms: int = 200) -> AsyncIterator[NotchApp]:
    """A real NotchApp (service, socket, overlay) on the test's qasync loop; the tray is
    built as `notch run` builds it but not shown (no system tray offscreen)."""
    socket_dir = Path(tempfile.mkdtemp(prefix="notch-p-", dir="/tmp"))  # sockets: ~100 bytes
    config = NotchConfig(
        socket_dir / "s.sock",
        tmp_path / "data",
        # Animated, as in use: the hover line follows the notch's settled look.
        settings=OverlaySettings(expand_ms=30, done_ms=done_ms, park_after_s=0),
        tray=False,
    )
    notch = NotchApp(config, err=io.StringIO())
    await notch.start()
    try:
        yield notch
    finally:
        await notch.stop()


def quick_undo_notes(monkeypatch: pytest.MonkeyPatch, approval_ms: int, auto_run_ms: int) -> None:
    """Shorter "click to undo" notes than their 6 s, which these tests would wait out: the
    approval's scope note (ui/overlay/decisions.py) and an auto-run's rule note
    (overlay_presenter.py), each module's own constant."""
    monkeypatch.setattr(decisions, "UNDO_NOTE_MS", approval_ms)
    monkeypatch.setattr(overlay_presenter, "UNDO_NOTE_MS", auto_run_ms)


def preview(folder: str, tool: str) -> dict[str, Any]:
    fixture = json.loads((bundled_manifests_dir() / folder / "preview.json").read_text())
    args: dict[str, Any] = fixture["tools"][tool]["args"]
    return args


def parts(notch: NotchApp) -> tuple[OverlayPresenter, NotchTray]:
    presenter = notch.presenter
    assert isinstance(presenter, OverlayPresenter)
    return presenter, notch.make_tray()


async def approve_on_card(
    presenter: OverlayPresenter,
    qtbot: QtBot,
    scope: Literal["session", "always"],
    until: Any,
) -> None:
    """The person approves the card on screen with one of its scope buttons."""
    await until(lambda: presenter.armed, "the card to arm")
    view = presenter.window.card
    assert isinstance(view, CardView) and view.scope_choices is not None
    qtbot.mouseClick(view.scope_choices.buttons[scope], Qt.MouseButton.LeftButton)


def _pill_dot(presenter: OverlayPresenter) -> str:
    """The colour of the idle pill's dot, as drawn."""
    window = presenter.window
    image = window.grab().toImage()
    ratio = image.devicePixelRatio()
    x = window.width() - 16 - 1  # the dot sits 16 px in from the right end
    y = window.height() // 2
    return str(image.pixelColor(int(x * ratio), int(y * ratio)).name())


async def idle(presenter: OverlayPresenter, until: Any) -> None:
    window = presenter.window
    await until(lambda: window.look == "idle" and not window.is_animating(), "the resting pill")


# Socket methods an agent might guess at to lift a pause, and context it might send.
LIFTING_METHODS = ("pause.resume", "notch.resume", "pause.set", "settings.set", "tray.resume")
LIFTING_CONTEXT = {"pause": "resume", "resume": True, "askForEverything": False}


@pytest.mark.asyncio
async def test_ask_for_everything_suspends_always_allow_until_the_person_resumes(
    tmp_path: Path, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch, until: Any
) -> None:
    quick_undo_notes(monkeypatch, 1000, 1000)  # the notes need no reading
    async with notch_in_process(tmp_path) as notch:
        presenter, tray = parts(notch)
        assert notch.server is not None
        args = preview("music", "publish_playlist")
        async with AsyncNotchClient(notch.server.path) as agent:
            # The person says "Always allow" on the first card.
            first, _ = await agent.submit(MUSIC, "publish_playlist", args)
            await approve_on_card(presenter, qtbot, "always", until)
            assert (await agent.await_decision(first, timeout=10)).outcome == "approved"
            ran = await agent.confirm(MUSIC, "publish_playlist", args, timeout=10)
            assert ran.outcome == "autoApproved"

            # Tray → Ask for everything: the same call now gets a card, saying why.
            assert tray.pause_menu is not None
            tray.pause_menu.ask_action.trigger()
            assert tray.tooltip == "Notch — Paused: every action asks; your allow rules wait."
            assert tray.pause_menu.ask_action.isChecked()
            await idle(presenter, until)
            assert presenter.window.toolTip().startswith("Paused: every action asks")
            assert _pill_dot(presenter) == "#f5a524"  # amber, as the tray's dot
            asked, decided = await agent.submit(MUSIC, "publish_playlist", args)
            assert decided is None
            await until(lambda: presenter.on_screen is not None, "the card")
            assert presenter.on_screen is not None and presenter.on_screen.reason == PAUSED_REASON

            # The agent cannot lift the pause: no socket method does, context is ignored.
            for method in LIFTING_METHODS:
                with pytest.raises(NotchRequestError) as refused:
                    await agent.call(method, {"token": agent.token})
                assert refused.value.code == -32601, method  # method not found
            again, decided = await agent.submit(
                MUSIC, "publish_playlist", args, context=LIFTING_CONTEXT
            )
            assert decided is None and notch.service is not None
            assert notch.service.pause.asks_for_everything
            assert await agent.status(again) == "pending"
            await agent.withdraw(again)
            await agent.withdraw(asked)
            await idle(presenter, until)

            # Resume (tray): the rule applies again.
            assert tray.pause_menu.resume_action.isVisible()
            tray.pause_menu.resume_action.trigger()
            assert not tray.pause_menu.resume_action.isVisible()
            assert tray.tooltip == "Notch — asks before your agent acts"
            assert not presenter.window.toolTip().startswith("Paused")
            assert _pill_dot(presenter) == "#30a46c"
            ran = await agent.confirm(MUSIC, "publish_playlist", args, timeout=10)
            assert ran.outcome == "autoApproved"


@pytest.mark.asyncio
async def test_hold_all_cards_keeps_every_card_parked_until_resume(
    tmp_path: Path, qtbot: QtBot, until: Any
) -> None:
    async with notch_in_process(tmp_path) as notch:
        presenter, tray = parts(notch)
        assert notch.server is not None and tray.pause_menu is not None
        mail = preview("mail", "send_email")
        async with AsyncNotchClient(notch.server.path) as agent:
            first, _ = await agent.submit(MAIL, "send_email", mail)
            await until(lambda: presenter.on_screen is not None, "the first card")

            # Hold: the card on screen steps aside; later cards never drop.
            tray.pause_menu.hold_action.trigger()
            await idle(presenter, until)
            assert [r.call_id for r in presenter.parked_requests] == [first]
            second, _ = await agent.submit(MAIL, "send_email", {**mail, "subject": "Second"})
            await until(lambda: len(presenter.parked_requests) == 2, "the second card, parked")
            assert presenter.window.look == "idle" and presenter.on_screen is None
            assert "holding all cards (2 held)" in presenter.window.toolTip()
            assert "holding all cards" in tray.tooltip

            # The agent cannot lift the hold either.
            for method in LIFTING_METHODS:
                with pytest.raises(NotchRequestError):
                    await agent.call(method, {"token": agent.token})
            third, _ = await agent.submit(
                MAIL, "send_email", {**mail, "subject": "Third"}, context=LIFTING_CONTEXT
            )
            await until(lambda: len(presenter.parked_requests) == 3, "the third card, parked")
            assert presenter.window.look == "idle"

            # Resume: the oldest card is on screen, the others wait behind it in order.
            tray.pause_menu.resume_action.trigger()
            await until(lambda: presenter.on_screen is not None, "the held cards back")
            assert presenter.on_screen is not None and presenter.on_screen.call_id == first
            assert [r.call_id for r in presenter.waiting] == [first, second, third]
            assert presenter.parked_requests == ()
            for call_id in (first, second, third):
                await agent.withdraw(call_id)


@pytest.mark.asyncio
async def test_a_note_held_during_the_hold_shows_after_resume(
    tmp_path: Path, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch, until: Any
) -> None:
    quick_undo_notes(monkeypatch, 1000, 1000)  # the approval's note is waited out
    async with notch_in_process(tmp_path) as notch:
        presenter, tray = parts(notch)
        assert notch.server is not None and tray.pause_menu is not None
        args = preview("music", "publish_playlist")
        async with AsyncNotchClient(notch.server.path) as agent:
            first, _ = await agent.submit(MUSIC, "publish_playlist", args)
            await approve_on_card(presenter, qtbot, "always", until)
            await agent.await_decision(first, timeout=10)
            await until(lambda: presenter.window.look == "idle", "the note to end", 15)
            tray.pause_menu.hold_action.trigger()
            ran = await agent.confirm(MUSIC, "publish_playlist", args, timeout=10)
            assert ran.outcome == "autoApproved"  # rules still run
            said = len(presenter.recent)
            # The note reached the notch, which keeps it for the resume instead of showing it.
            await until(lambda: len(presenter._glances) == 1, "the auto-run's note, held")
            assert (presenter.window.look, len(presenter.recent)) == ("idle", said)
            tray.pause_menu.resume_action.trigger()
            await until(lambda: presenter.window.look == "done", "the held note")
            assert presenter.recent[-1][1].startswith("Ran without asking: your 'Always allow'")


@pytest.mark.asyncio
async def test_a_call_run_under_a_session_rule_says_so_and_undo_removes_the_rule(
    tmp_path: Path, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch, until: Any
) -> None:
    # The approval's own "click to undo" note ends sooner than its 6 s: the test need
    # not wait it out (the auto-run's note below is clicked as soon as it shows).
    quick_undo_notes(monkeypatch, 1000, 2500)
    async with notch_in_process(tmp_path) as notch:
        presenter, _ = parts(notch)
        assert notch.server is not None
        args = preview("music", "publish_playlist")
        async with AsyncNotchClient(notch.server.path) as agent:
            first, _ = await agent.submit(MUSIC, "publish_playlist", args)
            await approve_on_card(presenter, qtbot, "session", until)
            decided = await agent.await_decision(first, timeout=10)
            assert decided.outcome == "approved"
            await until(lambda: presenter.window.look == "idle", "the approval's note to end")

            ran = await agent.confirm(MUSIC, "publish_playlist", args, timeout=10)
            assert ran.outcome == "autoApproved"
            await until(lambda: presenter.window.look == "done", "the auto-run's note")
            note = presenter.recent[-1][1]
            assert note == (
                "Ran without asking: your 'this session' rule for Publish playlist · Undo"
            )
            # On the one-line note the action and its Undo both show, whole.
            line = presenter.window.findChild(QLabel, "notchNote")
            assert line is not None
            assert line.text() == "Ran unasked (session rule): Publish playlist · Undo"
            # The person clicks the note: the rule goes; the call itself already ran.
            middle = presenter.window.rect().center()
            qtbot.mouseClick(presenter.window.windowHandle(), Qt.MouseButton.LeftButton, pos=middle)
            await until(lambda: presenter.recent[-1][1].startswith("Asks again"), "the undo")
            assert presenter.recent[-1][1] == ("Asks again: Publish playlist · it already ran ✓")
            kept = await agent.get(ran.call_id)  # it ran: nothing took it back
            assert kept is not None and kept.outcome == "autoApproved"
            asked, decided_now = await agent.submit(MUSIC, "publish_playlist", args)
            assert decided_now is None  # a card again
            await agent.withdraw(asked)


@pytest.mark.asyncio
async def test_an_always_allow_run_says_so_and_undo_turns_asks_first_back_on(
    tmp_path: Path, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch, until: Any
) -> None:
    quick_undo_notes(monkeypatch, 1000, 2500)
    async with notch_in_process(tmp_path) as notch:
        presenter, _ = parts(notch)
        assert notch.server is not None and notch.policy_book is not None
        args = preview("music", "publish_playlist")
        async with AsyncNotchClient(notch.server.path) as agent:
            first, _ = await agent.submit(MUSIC, "publish_playlist", args)
            await approve_on_card(presenter, qtbot, "always", until)
            await agent.await_decision(first, timeout=10)
            await until(lambda: presenter.window.look == "idle", "the approval's note to end")
            ran = await agent.confirm(MUSIC, "publish_playlist", args, timeout=10)
            assert ran.outcome == "autoApproved"
            await until(lambda: presenter.window.look == "done", "the auto-run's note")
            assert presenter.recent[-1][1] == (
                "Ran without asking: your 'Always allow' rule for Publish playlist · Undo"
            )
            middle = presenter.window.rect().center()
            qtbot.mouseClick(presenter.window.windowHandle(), Qt.MouseButton.LeftButton, pos=middle)
            await until(lambda: "Asks first again" in presenter.recent[-1][1], "the undo")
            assert (
                presenter.recent[-1][1] == "Asks first again: Publish playlist · it already ran ✓"
            )
            asked, decided_now = await agent.submit(MUSIC, "publish_playlist", args)
            assert decided_now is None
            await agent.withdraw(asked)


@pytest.mark.asyncio
async def test_the_look_chosen_in_settings_applies_to_the_next_card_without_a_restart(
    tmp_path: Path, qtbot: QtBot, until: Any
) -> None:
    from notch_app.runtime.policy_book import PolicyBook
    from notch_app.ui.settings import SettingsWindow

    async with notch_in_process(tmp_path) as notch:
        presenter, _ = parts(notch)
        assert notch.server is not None
        notch.open_settings()
        settings = notch.settings_window
        assert isinstance(settings, SettingsWindow)
        mail = preview("mail", "send_email")
        async with AsyncNotchClient(notch.server.path) as agent:
            for look in ("light", "dark", "light"):
                buttons = settings.in_the_notch.theme_buttons  # the page as drawn now
                qtbot.mouseClick(buttons[look], Qt.MouseButton.LeftButton)

                # The Settings window takes it too, with its page redrawn.
                def in_the_new_look(chosen: str = look) -> bool:
                    return (
                        settings.theme == chosen
                        and settings.in_the_notch.theme_buttons[chosen].isChecked()
                    )

                await until(in_the_new_look, "the Settings window in the new look")
                asked, _ = await agent.submit(MAIL, "send_email", mail)
                await until(lambda: isinstance(presenter.window.card, CardView), "the card")
                view = presenter.window.card
                assert isinstance(view, CardView) and view.look.name == look
                await agent.withdraw(asked)
                await idle(presenter, until)
        # Kept: the next start reads it from the file.
        assert PolicyBook.in_data_dir(tmp_path / "data").overlay.theme == "light"


def test_a_card_that_asks_only_because_of_the_pause_opens_compact(qtbot: QtBot) -> None:
    """The pause's notice names no field: the card the person knows opens as usual (a
    guard's notice, which is about a value, still opens the form)."""
    from notch_app.runtime.catalog import Catalog

    catalog, _ = Catalog.load([bundled_manifests_dir()])
    tool = catalog.tool(MUSIC, "publish_playlist")
    assert tool is not None
    args = preview("music", "publish_playlist")
    paused = CardView(tool, args, notice=PAUSED_REASON, screen_height=1080)
    guarded = CardView(
        tool, args, notice="Asks anyway: Name is not one of Focus", screen_height=1080
    )
    for view in (paused, guarded):
        qtbot.addWidget(view)
        view.show()
    assert paused.notice == PAUSED_REASON  # said on the card
    assert paused.height() < guarded.height()  # compact, not the whole form


def test_a_card_waiting_behind_a_note_is_held_too(
    qtbot: QtBot, sink: Any, simple_factory: Any, card_request: Any
) -> None:
    from notch_app.runtime.pause import Pause
    from notch_app.ui.tray_pause import PauseControl

    presenter = OverlayPresenter(sink, simple_factory, OverlaySettings(expand_ms=30, done_ms=400))
    qtbot.addWidget(presenter.window)
    qtbot.addWidget(presenter.side_notch)
    pause = Pause()
    control = PauseControl(pause, presenter)
    presenter.glance(card_request("g"), "Publish playlist")  # a note is on the notch
    qtbot.waitUntil(lambda: presenter.window.look == "done", timeout=3000)
    presenter.present(card_request("w"))  # waits for the note to end
    assert presenter.on_screen is None
    control.hold_all_cards()
    qtbot.waitUntil(lambda: [r.call_id for r in presenter.parked_requests] == ["w"], timeout=3000)
    assert presenter.on_screen is None and pause.held == ["w"]
    control.resume()
    qtbot.waitUntil(lambda: presenter.on_screen is not None, timeout=3000)
    assert presenter.on_screen is not None and presenter.on_screen.call_id == "w"


@pytest.mark.asyncio
async def test_a_note_on_screen_when_notch_stops_never_brings_the_notch_back(
    tmp_path: Path, qtbot: QtBot, until: Any
) -> None:
    """`NotchApp.stop` closed the notch while a note's timer still ran; the note's end
    then showed the idle pill again (in the widget tests, stopped notches came back and
    took later tests' pointer and focus)."""
    async with notch_in_process(tmp_path, done_ms=60_000) as notch:
        presenter, _tray = parts(notch)
        assert notch.server is not None
        args = preview("music", "publish_playlist")
        async with AsyncNotchClient(notch.server.path) as agent:
            call_id, _ = await agent.submit(MUSIC, "publish_playlist", args)
            await approve_on_card(presenter, qtbot, "session", until)
            await agent.await_decision(call_id, timeout=10)
            await until(lambda: presenter.window.look == "done", "the approval's note")
            assert any(t.isActive() for t in presenter.findChildren(QTimer)), "the note's timer"
    assert not presenter.window.isVisible() and not presenter.side_notch.isVisible()
    still = [repr(t) for t in presenter.findChildren(QTimer) if t.isActive()]
    assert still == [], f"timers left running after stop, each would reopen the notch: {still}"
