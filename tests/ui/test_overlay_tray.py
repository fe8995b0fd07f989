"""The tray icon's menu: Settings calls the settings hook, Quit stops Notch."""

from __future__ import annotations

from typing import Any

from notch_app.ui.tray import NotchTray, notch_icon


def test_tray_menu_settings_hook_and_quit(qtbot: Any) -> None:
    quits: list[bool] = []
    opened: list[NotchTray] = []
    tray = NotchTray(quit=lambda: quits.append(True), open_settings=opened.append)
    assert [a.text() for a in tray._menu.actions() if not a.isSeparator()] == [
        "Settings…",
        "Quit Notch",
    ]
    tray.settings_action.trigger()
    assert opened == [tray] and not quits
    tray.quit_action.trigger()
    assert quits == [True]


def test_tray_icon_is_drawn_not_loaded() -> None:
    icon = notch_icon()
    assert not icon.isNull()
    image = icon.pixmap(64, 64).toImage()
    assert image.pixelColor(32, 32).alpha() > 200  # the pill's body
    assert image.pixelColor(2, 2).alpha() == 0  # transparent around it
