"""The card's look: palettes and the style sheet live in `resources/theme/`, icons in
`resources/icons/`. This module only reads them, substitutes the palette tokens and
caches the result.

Rendering is made deterministic for tests and `notch render`: one explicit font family
(DejaVu Sans, installed by the setup script; any `.ttf`/`.otf` in `resources/fonts/` is
registered first) and a fixed pixel size.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Literal

from PySide6.QtGui import QFont, QFontDatabase, QIcon

ThemeName = Literal["dark", "light"]
THEMES: tuple[ThemeName, ...] = ("dark", "light")

RESOURCES = Path(__file__).resolve().parents[2] / "resources"
THEME_DIR = RESOURCES / "theme"
ICON_DIR = RESOURCES / "icons"
FONT_DIR = RESOURCES / "fonts"

FONT_FAMILY = "DejaVu Sans"
FONT_PIXEL_SIZE = 13

_TOKEN = re.compile(r"\$\{([a-z_]+)\}")


class ThemeError(RuntimeError):
    """A theme file is missing or names a token its palette does not define."""


@cache
def palette(name: ThemeName) -> dict[str, str]:
    """The colour tokens of one theme (`resources/theme/<name>.json`)."""
    path = THEME_DIR / f"{name}.json"
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ThemeError(f"{path}: cannot read the palette ({exc})") from exc
    return {k: str(v) for k, v in raw.items() if not k.startswith("_")}


@cache
def style_sheet(name: ThemeName) -> str:
    """`card.qss` with the palette's tokens and the icon folder filled in.

    Raises ThemeError for an unknown theme or a token the palette lacks.
    """
    if name not in THEMES:
        raise ThemeError(f"unknown theme {name!r}: use one of {', '.join(THEMES)}")
    tokens = dict(palette(name))
    tokens["icons"] = ICON_DIR.as_posix()
    template = (THEME_DIR / "card.qss").read_text(encoding="utf-8")

    def fill(match: re.Match[str]) -> str:
        key = match.group(1)
        if key not in tokens:
            raise ThemeError(f"{THEME_DIR / 'card.qss'}: ${{{key}}} is not in {name}.json")
        return tokens[key]

    return _TOKEN.sub(fill, template)


@cache
def icon(name: str) -> QIcon:
    """An icon from `resources/icons/<name>.svg` (an empty icon if the file is missing)."""
    return QIcon(str(ICON_DIR / f"{name}.svg"))


def icon_path(name: str) -> Path:
    return ICON_DIR / f"{name}.svg"


_fonts_registered = False


def card_font() -> QFont:
    """The card's base font; registers bundled fonts on first use (needs a QGuiApplication)."""
    global _fonts_registered
    if not _fonts_registered:
        _fonts_registered = True
        if FONT_DIR.is_dir():
            for f in sorted(FONT_DIR.iterdir()):
                if f.suffix.lower() in (".ttf", ".otf"):
                    QFontDatabase.addApplicationFont(str(f))
    font = QFont(FONT_FAMILY)
    font.setPixelSize(FONT_PIXEL_SIZE)
    font.setHintingPreference(QFont.HintingPreference.PreferNoHinting)
    font.setStyleStrategy(QFont.StyleStrategy.PreferAntialias)
    return font
