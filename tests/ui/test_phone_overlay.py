"""The desktop side of answering from a phone: with the phone page on, as app.py composes
it, a card answered on a paired phone leaves the notch saying where ("Answered on
Pixel 8 · Send email"), and the Settings group pairs (a QR code) and unpairs at once."""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from notch_app.app import BUNDLED_MANIFESTS
from notch_app.headless import start
from notch_app.ipc.client import AsyncNotchClient
from notch_app.phone.answering import PhoneAnswers
from notch_app.runtime.catalog import Catalog
from notch_app.runtime.policy_book import PolicyBook
from notch_app.runtime.presenter import DecisionSink
from notch_app.ui.overlay_cards import ManifestCardFactory
from notch_app.ui.overlay_presenter import OverlayPresenter
from notch_app.ui.overlay_settings import OverlaySettings
from notch_app.ui.settings import SettingsWindow

MAIL = "dev.notch.examples.mail"
SETTINGS = OverlaySettings(expand_ms=0, done_ms=60_000, park_after_s=0)


async def look_reached(presenter: OverlayPresenter, look: str, timeout: float) -> None:
    """Wait, on the running loop (the phone page's server runs on it too), until the
    notch shows `look`."""
    reached = asyncio.Event()

    def changed(now: str) -> None:
        if now == look:
            reached.set()

    presenter.window.lookChanged.connect(changed)
    try:
        if presenter.window.look != look:
            await asyncio.wait_for(reached.wait(), timeout)
    finally:
        presenter.window.lookChanged.disconnect(changed)


@pytest.fixture
def base() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="notch-f") as name:
        yield Path(name)


@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_a_card_answered_on_the_phone_says_so_on_the_notch(
    qtbot: Any, base: Path, preview_args: Any
) -> None:
    catalog, problems = Catalog.load([BUNDLED_MANIFESTS])
    assert not problems, problems

    def overlay(sink: DecisionSink) -> OverlayPresenter:
        presenter = OverlayPresenter(sink, ManifestCardFactory(catalog), SETTINGS)
        qtbot.addWidget(presenter.window)
        qtbot.addWidget(presenter.side_notch)
        return presenter

    notch = await start(
        base / "s" / "notch.sock", base / "data", presenter=overlay, catalog=catalog
    )
    presenter = notch.presenter
    assert isinstance(presenter, OverlayPresenter)
    answers = PhoneAnswers(notch.service, base / "data", host="127.0.0.1")
    try:
        await answers.follow(True, 0)
        assert answers.watch is not None
        async with AsyncNotchClient(notch.server.path) as agent:
            asked = asyncio.ensure_future(
                agent.confirm(MAIL, "send_email", preview_args("mail", "send_email"), call_id="f1")
            )
            await look_reached(presenter, "card", 20)
            # What the page does with a signed, fresh answer (tests/core/test_phone_api.py).
            answers.watch.answered["f1"] = "Pixel 8"
            assert notch.service.decide("f1", True, None, [], "phone", answered_on="Pixel 8")
            decision = await asyncio.wait_for(asked, 10)
            assert decision.decided_by == "phone"
            await look_reached(presenter, "done", 10)
            note = presenter.window._note.toolTip()
            assert note == "Answered on Pixel 8 · Send email", note
            assert presenter.waiting == ()
    finally:
        await answers.stop()
        await notch.close()


def test_settings_pairs_with_a_qr_code_and_unpairs_at_once(
    qtbot: Any, base: Path, tmp_path: Path
) -> None:
    book = PolicyBook.in_data_dir(base / "data")
    catalog, _ = Catalog.load([BUNDLED_MANIFESTS])

    class Service:  # what PhoneAnswers needs of a service when it does not serve
        presenter = None

    answers = PhoneAnswers(Service(), base / "data")  # type: ignore[arg-type]
    window = SettingsWindow(book, lambda: catalog, tmp_path / "i", theme="light", phone=answers)
    qtbot.addWidget(window)
    window.show()
    group = window.phone_group
    assert not group.switch.isChecked() and not group.pair_button.isEnabled()  # opt-in
    group.switch.click()
    assert book.phone.enabled
    qtbot.waitUntil(lambda: window.phone_group.pair_button.isEnabled())
    window.phone_group.pair_button.click()
    group = window.phone_group
    assert group.invitation.isVisibleTo(window)
    assert group.invitation_url.startswith("https://") and "#pair=" in group.invitation_url
    assert group.qr.pixmap() is not None and group.qr.pixmap().width() >= 100
    window.grab().save(str(Path(tempfile.gettempdir()) / "notch-settings-phone.png"))

    device, _ = answers.devices.add("Pixel 8", "key")
    window.redraw()
    button = window.phone_group.unpair_buttons[device.device_id]
    button.click()
    assert answers.paired() == []
