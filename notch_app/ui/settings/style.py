"""The Settings window's look: the card theme's palette plus opaque window colours."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from notch_app.ui.theme import ICON_DIR, ThemeName, fill_tokens, palette
from notch_app.ui.theme import system_theme as theme_system_theme

_QSS = Path(__file__).with_name("settings.qss")

# The card is translucent glass; a settings window is an ordinary opaque window.
WINDOW_COLOURS: dict[ThemeName, dict[str, str]] = {
    "dark": {
        "window_fill": "#1b1d22",
        "group_fill": "#24262c",
        "group_border": "rgba(255, 255, 255, 20)",
        "row_hover": "rgba(255, 255, 255, 8)",
        "button_fill": "rgba(255, 255, 255, 12)",
        "menu_fill": "#2a2c33",
    },
    "light": {
        "window_fill": "#f3f4f6",
        "group_fill": "#ffffff",
        "group_border": "rgba(0, 0, 0, 22)",
        "row_hover": "rgba(0, 0, 0, 5)",
        "button_fill": "#ffffff",
        "menu_fill": "#ffffff",
    },
}


@cache
def settings_style_sheet(theme: ThemeName) -> str:
    """settings.qss with the theme's tokens filled in. Raises ThemeError for a missing token."""
    tokens = dict(palette(theme))
    tokens.update(WINDOW_COLOURS[theme])
    tokens["icons"] = ICON_DIR.as_posix()
    return fill_tokens(_QSS.read_text(encoding="utf-8"), tokens, _QSS)


system_theme = theme_system_theme
"""Dark or light, following the desktop's colour scheme (the overlay's own, theme.py)."""
