"""A decision that can't be stored isn't lost, on screen (issue 9, finding 5).

The real service and store behind the real notch, with the bundled mail card: when the
person's Send (or Cancel) cannot be written, the card never leaves, says why in Notch's
own notice under the footer, and takes a retry only through the same gates as the first
press (its required fields and the arming delay); the agent hears nothing until then.
The last test fills a real (tmpfs) disk instead of injecting the fault.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import sqlite3
import subprocess
import tempfile
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt, SignalInstance
from PySide6.QtWidgets import QAbstractButton, QLineEdit, QScrollArea

from notch_app.app import BUNDLED_MANIFESTS
from notch_app.runtime.catalog import Catalog
from notch_app.runtime.decision import Decision
from notch_app.runtime.presenter import ConfirmationRequest
from notch_app.runtime.service import ConfirmationService, ToolCall
from notch_app.runtime.store import DecisionStore, NewDecision, StoreError, WriteOp
from notch_app.runtime.write_behind import why_not_stored
from notch_app.ui.card_view import BODY_SCROLL_REASON, CardView
from notch_app.ui.overlay_cards import ManifestCardFactory
from notch_app.ui.overlay_presenter import OverlayPresenter
from notch_app.ui.overlay_settings import OverlaySettings
from notch_app.ui.theme import ThemeName

MAIL = "dev.notch.examples.mail"
# The done note stays up: the test reads it (a short one would end on a deleted window).
SETTINGS = OverlaySettings(expand_ms=60, done_ms=60_000, park_after_s=0)
FULL = "Couldn't save your decision: the disk is full."


class FullDisk:
    """The store's `before_commit` seam: while `full`, a batch holding a decision fails
    as SQLite fails on a full disk."""

    def __init__(self) -> None:
        self.full = False
        self.refused: list[str] = []

    def __call__(self, ops: Sequence[WriteOp]) -> None:
        decisions = [op.decision for op in ops if isinstance(op, NewDecision)]
        if self.full and decisions:
            self.refused.extend(f"{d.call_id} {d.outcome}" for d in decisions)
            raise sqlite3.OperationalError("database or disk is full")


@contextlib.asynccontextmanager
async def notch_on(
    qtbot: Any, store: DecisionStore, theme: ThemeName = "dark"
) -> AsyncIterator[tuple[ConfirmationService, OverlayPresenter]]:
    catalog, problems = Catalog.load([BUNDLED_MANIFESTS])
    assert not problems, problems
    service = ConfirmationService(catalog, store)
    presenter = OverlayPresenter(service, ManifestCardFactory(catalog, theme=theme), SETTINGS)
    qtbot.addWidget(presenter.window)
    qtbot.addWidget(presenter.side_notch)
    service.set_presenter(presenter)
    await service.start()
    try:
        yield service, presenter
    finally:
        service.close()


async def signalled(signal: SignalInstance, check: Callable[..., bool], timeout: float = 5) -> None:
    """Wait (the loop running) until `signal` fires with arguments `check` accepts."""
    got = asyncio.Event()

    def heard(*args: Any) -> None:
        if check(*args):
            got.set()

    signal.connect(heard)
    try:
        await asyncio.wait_for(got.wait(), timeout)
    finally:
        signal.disconnect(heard)


async def armed(presenter: OverlayPresenter, call_id: str) -> None:
    """Wait until the card for `call_id` is on screen and takes a yes."""
    on = presenter.on_screen
    if not (presenter.armed and on is not None and on.call_id == call_id):
        await signalled(presenter.armedChanged, lambda cid, yes: yes and cid == call_id)
    assert presenter.armed


def _look(presenter: OverlayPresenter) -> str:
    """The notch's look now: read through a call, as the loop changes it (mypy would keep
    an earlier comparison's narrowing of the property across the awaits)."""
    return presenter.window.look


def card_on_screen(presenter: OverlayPresenter) -> CardView:
    shown = presenter.window.card
    assert isinstance(shown, CardView)
    return shown


def scroll_through(view: CardView) -> None:
    """Page the card's body down to its end, as a person reading it would."""
    body = view.findChild(QScrollArea)
    assert body is not None
    bar = body.verticalScrollBar()
    while bar.value() < bar.maximum():
        bar.setValue(bar.value() + bar.pageStep())


def button(view: CardView, role: str) -> QAbstractButton:
    return next(
        b
        for b in view.findChildren(QAbstractButton)
        if b.property("role") == role and b.isVisibleTo(view)
    )


async def ask(
    service: ConfirmationService, presenter: OverlayPresenter, args: dict[str, Any], call_id: str
) -> tuple[asyncio.Future[Decision], list[str]]:
    events: list[str] = []
    future = service.submit(
        ToolCall(call_id, MAIL, "send_email", args),
        lambda _cid, event, _data: events.append(event),
    )
    await service.drain()  # the request row is stored; the disk fails from here on
    await armed(presenter, call_id)
    return future, events


@pytest.fixture
def data_dir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="notch-sf") as name:
        yield Path(name)


@pytest.mark.asyncio
async def test_a_send_the_disk_refuses_keeps_the_card_says_why_and_a_retry_after_arming_sends_once(
    qtbot: Any, data_dir: Path, preview_args: Any, desktop_shot: Any
) -> None:
    disk = FullDisk()
    store = DecisionStore(data_dir, before_commit=disk)
    async with notch_on(qtbot, store) as (service, presenter):
        future, events = await ask(service, presenter, preview_args("mail", "send_email"), "m1")
        view = card_on_screen(presenter)
        looks: list[str] = []
        presenter.window.lookChanged.connect(looks.append)
        disk.full = True
        qtbot.mouseClick(button(view, "confirm"), Qt.MouseButton.LeftButton)
        # While it is written the card stays as it is: no done note that might be false.
        assert presenter.window.card is view and presenter.window.look == "card"
        await service.drain()

        assert disk.refused == ["m1 approved"]
        assert presenter.window.card is view and presenter.window.look == "card"
        assert looks == [], "the card left the screen and came back (a flicker)"
        assert view.save_failure == FULL
        assert not future.done() and "decided" not in events
        assert [r.call_id for r in service.open_requests] == ["m1"]
        assert not presenter.armed, "confirm must re-arm after the card changed"

        # A press right away (a double click, a held Enter) is not a retry.
        disk.full = False
        qtbot.mouseClick(button(view, "confirm"), Qt.MouseButton.LeftButton)
        qtbot.keyClick(view, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
        await service.drain()
        assert not future.done() and disk.refused == ["m1 approved"]
        await armed(presenter, "m1")  # the notch has grown to show the notice, and settled
        desktop_shot(presenter, "save-failure-dark")

        # The card's own gate still holds: an emptied required field blocks the retry.
        subject = view.input_widget("subject")
        assert isinstance(subject, QLineEdit)
        subject.selectAll()
        qtbot.keyClick(subject, Qt.Key.Key_Backspace)
        await armed(presenter, "m1")
        assert not button(view, "confirm").isEnabled()
        assert not view.press("confirm")
        qtbot.keyClicks(subject, "Re: Q3 report, again")

        # The notice took room, so on a short screen the card may now scroll: the person
        # looks through what moved below the fold, as the card asks, before the retry.
        if BODY_SCROLL_REASON in view.state().blockers():
            scroll_through(view)
        qtbot.waitUntil(lambda: button(view, "confirm").isEnabled(), timeout=5000)
        await armed(presenter, "m1")
        qtbot.mouseClick(button(view, "confirm"), Qt.MouseButton.LeftButton)
        decision = await asyncio.wait_for(future, 5)
        assert decision.outcome == "approved"
        assert decision.arguments is not None
        assert decision.arguments["subject"] == "Re: Q3 report, again"
        assert events.count("decided") == 1
        assert _look(presenter) == "done" and presenter.on_screen is None
        assert [(e.call_id, e.outcome) for e in store.log()] == [("m1", "approved")]


@pytest.mark.asyncio
async def test_a_decline_the_disk_refuses_says_so_too_and_the_card_never_vanishes(
    qtbot: Any, data_dir: Path, preview_args: Any
) -> None:
    disk = FullDisk()
    store = DecisionStore(data_dir, before_commit=disk)
    async with notch_on(qtbot, store) as (service, presenter):
        future, events = await ask(service, presenter, preview_args("mail", "send_email"), "m2")
        view = card_on_screen(presenter)
        disk.full = True
        qtbot.mouseClick(button(view, "confirm"), Qt.MouseButton.LeftButton)
        await service.drain()
        assert view.save_failure == FULL
        # Decline is never held, not even right after the notice appeared.
        qtbot.keyClick(view, Qt.Key.Key_Escape)
        await service.drain()
        assert disk.refused == ["m2 approved", "m2 declined"]
        assert presenter.window.card is view and view.save_failure == FULL
        assert not future.done() and "decided" not in events

        disk.full = False
        qtbot.mouseClick(button(view, "cancel"), Qt.MouseButton.LeftButton)
        decision = await asyncio.wait_for(future, 5)
        assert decision.outcome == "declined"
        assert presenter.window.look == "done" and events.count("decided") == 1
        assert [(e.call_id, e.outcome) for e in store.log()] == [("m2", "declined")]


@pytest.mark.asyncio
async def test_the_notice_reads_in_the_light_theme_too(
    qtbot: Any, data_dir: Path, preview_args: Any, desktop_shot: Any
) -> None:
    disk = FullDisk()
    store = DecisionStore(data_dir, before_commit=disk)
    async with notch_on(qtbot, store, theme="light") as (service, presenter):
        await ask(service, presenter, preview_args("mail", "send_email"), "m3")
        view = card_on_screen(presenter)
        disk.full = True
        qtbot.mouseClick(button(view, "confirm"), Qt.MouseButton.LeftButton)
        await service.drain()
        assert view.save_failure == FULL
        await armed(presenter, "m3")
        shot = desktop_shot(presenter, "save-failure-light")
        assert not shot.isNull()


# --- a real full disk ---------------------------------------------------------------------


@pytest.fixture
def small_disk() -> Iterator[Path]:
    """A 2 MiB tmpfs mounted for this test (needs root and a kernel that allows it)."""
    where = Path(tempfile.mkdtemp(prefix="notch-full-"))
    try:
        mounted = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=2m,mode=0700", "tmpfs", str(where)],
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError as exc:
        where.rmdir()
        pytest.skip(f"cannot run mount to make a small disk: {exc}")
    if mounted.returncode != 0:
        where.rmdir()
        pytest.skip(f"mount -t tmpfs is not allowed here: {mounted.stderr.strip()}")
    try:
        yield where
    finally:
        # Lazy: a store a failed test left open must not keep the mount (or the folder).
        subprocess.run(["umount", "--lazy", str(where)], check=False)
        where.rmdir()


def fill(disk: Path) -> Path:
    """Write a file on `disk` until the disk is full, to the last byte; returns it."""
    filler = disk / "filler"
    with filler.open("wb", buffering=0) as out:
        for chunk in (1 << 16, 1 << 12, 1):
            while True:
                try:
                    out.write(b"\0" * chunk)
                except OSError as exc:
                    assert exc.errno == errno.ENOSPC, exc
                    break
    return filler


@pytest.mark.asyncio
async def test_on_a_really_full_disk_the_card_says_so_and_the_retry_after_freeing_space_is_stored(
    qtbot: Any, small_disk: Path, preview_args: Any
) -> None:
    store = DecisionStore(small_disk / "data")
    async with notch_on(qtbot, store) as (service, presenter):
        future, events = await ask(service, presenter, preview_args("mail", "send_email"), "t1")
        view = card_on_screen(presenter)
        filler = fill(small_disk)
        assert os.statvfs(small_disk).f_bavail == 0

        qtbot.mouseClick(button(view, "confirm"), Qt.MouseButton.LeftButton)
        await service.drain()
        assert view.save_failure == FULL
        assert presenter.window.card is view and not future.done()
        assert "decided" not in events and store.decision("t1") is None

        filler.unlink()  # the person frees some space
        await armed(presenter, "t1")
        qtbot.mouseClick(button(view, "confirm"), Qt.MouseButton.LeftButton)
        decision = await asyncio.wait_for(future, 5)
        assert decision.outcome == "approved" and events.count("decided") == 1
        assert presenter.window.look == "done"
        assert [(e.call_id, e.outcome) for e in store.log()] == [("t1", "approved")]


def test_an_unknown_failure_is_said_in_its_own_words_bounded_on_the_card(
    qtbot: Any, sink: Any, bundled_factory: Any, preview_args: Any
) -> None:
    presenter = OverlayPresenter(sink, bundled_factory(), SETTINGS)
    qtbot.addWidget(presenter.window)
    qtbot.addWidget(presenter.side_notch)
    args = preview_args("mail", "send_email")
    presenter.present(ConfirmationRequest("u1", MAIL, "send_email", args))
    error = StoreError("/x/notch.sqlite3: cannot write")
    error.__cause__ = RuntimeError("unexpected failure in the VFS layer\nwriting page 4711 " * 9)
    presenter.decision_not_saved("u1", why_not_stored(error))
    said = card_on_screen(presenter).save_failure
    assert said.startswith("Couldn't save your decision: unexpected failure in the VFS layer")
    assert said.endswith("writing page 47…")  # cut at 160 characters, no full stop after
    assert "\n" not in said and len(said) < 240
