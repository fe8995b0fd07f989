"""The notch's own chrome names whose card it is with the integration's icon as installed:
before the header's title while a card is on screen, on the idle pill for the parked card
a click brings back, and in the side notch (and its menu) for every parked card.

The icon comes from the catalog's entry for the request's integration, never from the
request: an agent cannot make one integration's card wear another's icon, and a missing
or broken icon file draws the monogram instead of failing.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QApplication, QMenu, QWidget

from notch_app.manifest.integration import load_integration
from notch_app.runtime.catalog import Catalog, bundled_manifests_dir
from notch_app.runtime.presenter import ConfirmationRequest
from notch_app.ui.notch_window import CARD_FILL, ICON_SIZE, NOTCH_FILL, NotchWindow
from notch_app.ui.overlay_cards import ManifestCardFactory
from notch_app.ui.overlay_presenter import OverlayPresenter
from notch_app.ui.overlay_settings import OverlaySettings
from notch_app.ui.widgets.integration_icon import InstalledIcon, integration_icon

SETTINGS = OverlaySettings(expand_ms=0, done_ms=60_000, park_after_s=0)
MAIL = "dev.notch.examples.mail"
PAYMENTS = "dev.notch.examples.payments"


def _installed(folder: str) -> InstalledIcon:
    loaded, problems = load_integration(bundled_manifests_dir() / folder)
    assert loaded is not None, problems
    return InstalledIcon.of(loaded.manifest, loaded.folder)


def _over_glass(icon: QImage, glass: QColor = CARD_FILL) -> QImage:
    """`icon` as the notch shows it: over its dark glass (a card's, or the pill's)."""
    image = QImage(icon.size(), QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(glass)
    painter = QPainter(image)
    painter.drawImage(0, 0, icon)
    painter.end()
    return image


def _drawn_at(window: QImage, at: QPoint) -> QImage:
    return window.copy(QRect(at, QSize(ICON_SIZE, ICON_SIZE)))


def _distance(a: QImage, b: QImage) -> float:
    """Mean difference per channel (0–255) of two same-sized images."""
    assert a.size() == b.size()
    total = 0
    for y in range(a.height()):
        for x in range(a.width()):
            ca, cb = a.pixelColor(x, y), b.pixelColor(x, y)
            total += abs(ca.red() - cb.red()) + abs(ca.green() - cb.green())
            total += abs(ca.blue() - cb.blue())
    return total / (3 * a.width() * a.height())


def _presenter(qtbot: Any, sink: Any, factory: Any) -> OverlayPresenter:
    presenter = OverlayPresenter(sink, factory, SETTINGS)
    qtbot.addWidget(presenter.window)
    qtbot.addWidget(presenter.side_notch)
    return presenter


def _header_icon_image(window: NotchWindow) -> QImage:
    shot = window.grab().toImage()
    mark = window.findChild(QWidget, "notchIcon")
    assert mark is not None and mark.isVisible()
    return _drawn_at(shot, mark.mapTo(window, QPoint(0, 0)))


def test_the_header_shows_the_installed_icon_of_the_card_on_screen(
    qtbot: Any, sink: Any, bundled_factory: Any, preview_args: Any
) -> None:
    presenter = _presenter(qtbot, sink, bundled_factory())
    presenter.present(
        ConfirmationRequest("m1", MAIL, "send_email", preview_args("mail", "send_email"))
    )
    window = presenter.window
    assert window.look == "card"
    mail = _installed("mail")
    assert window.header_icon == mail
    # What the person sees left of the title is the mail folder's own icon.svg, not the
    # monogram and not another integration's icon.
    seen = _header_icon_image(window)
    own = _over_glass(mail.pixmap(ICON_SIZE).toImage())
    monogram = _over_glass(integration_icon(_manifest("mail"), None, ICON_SIZE).toImage())
    payments = _over_glass(_installed("payments").pixmap(ICON_SIZE).toImage())
    assert _distance(seen, own) < 12
    assert _distance(seen, monogram) > 30 and _distance(seen, payments) > 30
    # The next card wears its own integration's icon.
    presenter.present(
        ConfirmationRequest("p1", PAYMENTS, "pay_invoice", preview_args("payments", "pay_invoice"))
    )
    presenter.park()  # the mail card steps aside: the payments card comes in front
    assert presenter.on_screen is not None and presenter.on_screen.call_id == "p1"
    assert window.header_icon == _installed("payments")


def _manifest(folder: str) -> Any:
    loaded, _ = load_integration(bundled_manifests_dir() / folder)
    assert loaded is not None
    return loaded.manifest


def test_a_request_cannot_choose_the_icon_the_header_shows(
    qtbot: Any, sink: Any, bundled_factory: Any, preview_args: Any
) -> None:
    presenter = _presenter(qtbot, sink, bundled_factory())
    payments_icon = str(bundled_manifests_dir() / "payments" / "icon.svg")
    # Integration B (payments) named with integration A's (mail) tool: no such tool, so
    # no card at all, and nothing wears either icon.
    presenter.present(
        ConfirmationRequest("x1", PAYMENTS, "send_email", preview_args("mail", "send_email"))
    )
    assert sink.of("decide") == [("decide", "x1", False, None, [], "service")]
    assert presenter.window.look == "idle" and presenter.window.header_icon is None
    # A mail request that names payments' icon and name wherever it can: arguments,
    # context, the agent's name. The header still shows mail's icon as installed.
    arguments = dict(preview_args("mail", "send_email"), icon=payments_icon)
    presenter.present(
        ConfirmationRequest(
            "m1",
            MAIL,
            "send_email",
            arguments,
            {"agent": "Payments", "icon": payments_icon, "integration": PAYMENTS},
        )
    )
    window = presenter.window
    assert window.header_icon == _installed("mail")
    seen = _header_icon_image(window)
    assert _distance(seen, _over_glass(_installed("mail").pixmap(ICON_SIZE).toImage())) < 12
    assert _distance(seen, _over_glass(_installed("payments").pixmap(ICON_SIZE).toImage())) > 30


@pytest.fixture
def mail_copy(tmp_path: Path) -> Callable[[], tuple[ManifestCardFactory, Path]]:
    """`mail_copy()`: a factory over a copy of the bundled mail integration, and its folder."""

    def make() -> tuple[ManifestCardFactory, Path]:
        folder = tmp_path / "added" / "mail"
        shutil.copytree(bundled_manifests_dir() / "mail", folder)
        catalog, problems = Catalog.load([folder.parent])
        assert problems == []
        return ManifestCardFactory(catalog), folder

    return make


@pytest.mark.parametrize("damage", ["deleted", "not an image", "a folder"])
def test_an_icon_file_gone_or_broken_after_install_draws_the_monogram(
    qtbot: Any,
    sink: Any,
    preview_args: Any,
    mail_copy: Callable[[], tuple[ManifestCardFactory, Path]],
    damage: str,
) -> None:
    factory, folder = mail_copy()
    icon_file = folder / "icon.svg"
    icon_file.unlink()
    if damage == "not an image":
        icon_file.write_bytes(b"\x89PNG\r\n\x1a\n this is not an image")
    elif damage == "a folder":
        icon_file.mkdir()
    presenter = _presenter(qtbot, sink, factory)
    presenter.present(
        ConfirmationRequest("m1", MAIL, "send_email", preview_args("mail", "send_email"))
    )
    window = presenter.window
    assert window.look == "card" and window.header_icon is not None
    seen = _header_icon_image(window)
    monogram = _over_glass(integration_icon(_manifest("mail"), None, ICON_SIZE).toImage())
    assert _distance(seen, monogram) < 12
    # The monogram is a filled tile with a letter, not a blank square.
    assert _distance(seen, _over_glass(QImage(seen.size(), QImage.Format.Format_ARGB32))) > 0
    assert seen.pixelColor(3, ICON_SIZE // 2).lightness() > 60


def test_parked_cards_show_their_icons_in_the_side_notch_its_menu_and_the_pill(
    qtbot: Any, sink: Any, bundled_factory: Any, preview_args: Any, desktop_shot: Any
) -> None:
    presenter = _presenter(qtbot, sink, bundled_factory())
    mail, payments = _installed("mail"), _installed("payments")
    presenter.present(
        ConfirmationRequest("m1", MAIL, "send_email", preview_args("mail", "send_email"))
    )
    presenter.present(
        ConfirmationRequest("p1", PAYMENTS, "pay_invoice", preview_args("payments", "pay_invoice"))
    )
    presenter.present(
        ConfirmationRequest("m2", MAIL, "send_email", preview_args("mail", "send_email"))
    )
    desktop_shot(presenter, "notch-header-icon")
    presenter.park()
    presenter.park()
    presenter.park()
    side = presenter.side_notch
    # Newest first, one per integration; the pill shows the card a click brings back.
    assert side.icons == (mail, payments)
    assert presenter.window.parked_icon == mail
    qtbot.mouseClick(side, Qt.MouseButton.LeftButton)  # several parked: a menu of them
    menu = side.findChild(QMenu, "sideNotchMenu")
    assert menu is not None and len(menu.actions()) == 3
    drawn = [a.icon().pixmap(ICON_SIZE).toImage() for a in menu.actions()]
    assert drawn == [i.pixmap(ICON_SIZE).toImage() for i in (mail, payments, mail)]
    menu.close()
    shot = desktop_shot(presenter, "notch-parked-icons")
    screen = QApplication.primaryScreen().geometry()
    origin = QPoint(screen.center().x() - 380, screen.top())  # where desktop_shot starts
    pill = presenter.window.geometry()
    # The pill's icon (left end) and the side notch's first icon are drawn, over the glass.
    at_pill = _drawn_at(shot, QPoint(pill.left() + 8, pill.center().y() - 7) - origin)
    assert _distance(at_pill, _over_glass(mail.pixmap(ICON_SIZE).toImage(), NOTCH_FILL)) < 16
    first = _drawn_at(shot, QPoint(side.x() + 28, side.y() + 5) - origin)
    assert _distance(first, _over_glass(mail.pixmap(ICON_SIZE).toImage(), NOTCH_FILL)) < 16
    # Restoring the newest parked mail card: the pill now offers the payments card.
    presenter.restore("m2")
    assert presenter.window.header_icon == mail
    assert presenter.window.parked_icon == payments
    assert side.icons == (payments, mail)
    presenter.restore("p1")
    presenter.restore("m1")
    assert presenter.window.parked_icon is None and side.icons == ()


def test_icons_are_drawn_once_per_size_and_sharp_on_hidpi_screens() -> None:
    mail = _installed("mail")
    sharp = mail.pixmap(ICON_SIZE, 2.0)
    assert sharp.devicePixelRatio() == 2.0 and sharp.width() == 2 * ICON_SIZE
    assert mail.pixmap(ICON_SIZE, 2.0).cacheKey() == sharp.cacheKey()  # not decoded again
    assert mail.pixmap(ICON_SIZE, 1.0).width() == ICON_SIZE
    monogram = InstalledIcon("x.y", "Yarn", "", None).pixmap(ICON_SIZE, 2.0)
    assert monogram.devicePixelRatio() == 2.0 and monogram.width() == 2 * ICON_SIZE
    # Drawn, not blank: the tile's colour at its centre-left at full resolution.
    assert QColor(monogram.toImage().pixelColor(4, 2 * ICON_SIZE // 2)).alpha() == 255


def test_an_icon_reinstalled_into_the_same_folder_is_drawn_anew(
    mail_copy: Callable[[], tuple[ManifestCardFactory, Path]],
) -> None:
    _, folder = mail_copy()
    loaded, _ = load_integration(folder)
    assert loaded is not None
    before = InstalledIcon.of(loaded.manifest, folder)
    first = before.pixmap(ICON_SIZE).toImage()
    shutil.copy(bundled_manifests_dir() / "payments" / "icon.svg", folder / "icon.svg")
    after = InstalledIcon.of(loaded.manifest, folder)
    assert after != before
    assert after.pixmap(ICON_SIZE).toImage() != first


def test_an_icon_outside_the_integrations_own_folder_is_never_read(
    mail_copy: Callable[[], tuple[ManifestCardFactory, Path]],
) -> None:
    _, folder = mail_copy()
    mail_icon = (bundled_manifests_dir() / "mail" / "icon.svg").resolve()
    (folder / "linked.svg").symlink_to(mail_icon)  # a link out of the folder
    monogram = InstalledIcon("x.y", "Mail", "", folder).pixmap(ICON_SIZE).toImage()
    own = _installed("mail").pixmap(ICON_SIZE).toImage()
    climbing = os.path.relpath(mail_icon, folder)  # "../../…/manifests/mail/icon.svg"
    assert (folder / climbing).resolve() == mail_icon
    for source in (climbing, str(mail_icon), "linked.svg"):
        drawn = InstalledIcon("x.y", "Mail", source, folder).pixmap(ICON_SIZE).toImage()
        assert drawn == monogram != own, source
