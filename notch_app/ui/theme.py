"""The card's look, read from `resources/theme/`: colour tokens (`dark.json`,
`light.json`), typography and shapes (`card.json`) and icons (`resources/icons/`). This
module only reads them and caches the Qt objects made from them (QColor, QFont,
QPalette), so building a card never parses a colour twice. `fill_tokens` fills the
palette into a style sheet for windows that use one (Settings).

Why no style sheet on the card: Qt styles every widget under a style sheet through
QStyleSheetStyle, which costs more than building the widget (about 170 µs each, whatever
the sheet says). The card instead takes its colours from a QPalette, its text from cached
fonts, and draws its few shapes (glass, fields, pills, switches, chips) itself
(`notch_app.ui.widgets.shapes`, `fields`, `buttons`).

Rendering is made deterministic for tests and `notch render`: one explicit font family
(DejaVu Sans, installed by the setup script; any `.ttf`/`.otf` in `resources/fonts/` is
registered first) and fixed pixel sizes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any, Literal, TypeVar

from PySide6.QtCore import Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontDatabase,
    QFontMetrics,
    QGuiApplication,
    QIcon,
    QPalette,
)
from PySide6.QtWidgets import QWidget

from notch_app.bundled import bundled_folder

_T = TypeVar("_T")

ThemeName = Literal["dark", "light"]
THEMES: tuple[ThemeName, ...] = ("dark", "light")

RESOURCES = bundled_folder("resources")
THEME_DIR = RESOURCES / "theme"
ICON_DIR = RESOURCES / "icons"
FONT_DIR = RESOURCES / "fonts"

FONT_FAMILY = "DejaVu Sans"
MONO_FAMILY = "DejaVu Sans Mono"
"""The fixed-width family of text roles marked `mono` (code, shell commands); from the
same Debian package as FONT_FAMILY (fonts-dejavu-core), with the system's monospace
font as the fallback."""
FONT_PIXEL_SIZE = 13

_TOKEN = re.compile(r"\$\{([a-z_]+)\}")
_RGBA = re.compile(r"rgba?\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)")


class ThemeError(RuntimeError):
    """A theme file is missing, unreadable, or names a token its palette does not define."""


def system_theme() -> ThemeName:
    """Dark or light, following the desktop's colour scheme (light when unknown)."""
    app = QGuiApplication.instance()
    if isinstance(app, QGuiApplication):
        scheme = app.styleHints().colorScheme()
        if scheme == Qt.ColorScheme.Dark:
            return "dark"
        if scheme == Qt.ColorScheme.Light:
            return "light"
        if app.palette().window().color().lightness() < 128:
            return "dark"
    return "light"


def desktop_scheme() -> Literal["light", "dark", "unknown"]:
    """The colour scheme the desktop states (Qt's style hints), "unknown" when none."""
    app = QGuiApplication.instance()
    scheme = app.styleHints().colorScheme() if isinstance(app, QGuiApplication) else None
    if scheme == Qt.ColorScheme.Light:
        return "light"
    if scheme == Qt.ColorScheme.Dark:
        return "dark"
    return "unknown"


def resolved_theme(name: str) -> ThemeName:
    """`name` as a ThemeName, "system" read from the desktop now: its colour scheme when
    it states one, else dark (the notch's own look, on a desktop that says nothing)."""
    if name != "system":
        return theme_name(name)
    return "light" if desktop_scheme() == "light" else "dark"


def theme_name(name: str) -> ThemeName:
    """`name` as a ThemeName. Raises ThemeError for anything but "dark" or "light"."""
    if name not in THEMES:
        raise ThemeError(f"unknown theme {name!r}: use one of {', '.join(THEMES)}")
    return name


def _read_json(path: Path) -> dict[str, Any]:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ThemeError(f"{path}: cannot read the theme file ({exc})") from exc
    if not isinstance(raw, dict):
        raise ThemeError(f"{path}: expected a JSON object at the top level")
    return raw


@cache
def palette(name: ThemeName) -> dict[str, str]:
    """The colour tokens of one theme (`resources/theme/<name>.json`)."""
    raw = _read_json(THEME_DIR / f"{theme_name(name)}.json")
    return {k: str(v) for k, v in raw.items() if not k.startswith("_")}


def fill_tokens(template: str, tokens: dict[str, str], source: Path) -> str:
    """`template` (a style sheet read from `source`) with each `${name}` replaced by its
    token. Raises ThemeError naming `source` for a token `tokens` lacks."""

    def fill(match: re.Match[str]) -> str:
        key = match.group(1)
        if key not in tokens:
            raise ThemeError(f"{source}: ${{{key}}} is not a theme token")
        return tokens[key]

    return _TOKEN.sub(fill, template)


def parse_color(text: str) -> QColor:
    """A palette token's colour: `#rrggbb`, `#aarrggbb`, a colour name, or CSS-style
    `rgba(r, g, b, a)` with an alpha of 0–255. Raises ThemeError when it is none of these."""
    m = _RGBA.fullmatch(text.strip())
    if m:
        r, g, b = (int(m.group(i)) for i in (1, 2, 3))
        a = int(m.group(4)) if m.group(4) is not None else 255
        return QColor(r, g, b, a)
    color = QColor(text.strip())
    if not color.isValid():
        raise ThemeError(f"{text!r} is not a colour (use #rrggbb or rgba(r, g, b, a))")
    return color


class Look:
    """One theme as Qt objects: colours by token, fonts and palettes by text role, and
    the shapes' metrics. Made once per theme by `look(name)`; read-only afterwards."""

    def __init__(self, name: ThemeName) -> None:
        self.name = name
        self.tokens = palette(name)
        # Tokens naming files (the switch's images) are not colours.
        self.colors = {k: parse_color(v) for k, v in self.tokens.items() if not v.endswith(".svg")}
        spec = _read_json(THEME_DIR / "card.json")
        self._text: dict[str, dict[str, Any]] = spec["text"]
        self.radius: dict[str, int] = spec["radius"]
        self.metrics: dict[str, dict[str, int]] = {
            k: v for k, v in spec.items() if isinstance(v, dict) and k not in ("text", "radius")
        }
        for role, props in self._text.items():
            if props.get("color", "text") not in self.colors:
                raise ThemeError(
                    f"{THEME_DIR / 'card.json'}: text role {role!r} uses colour "
                    f"{props.get('color')!r}, which {name}.json does not define"
                )
        self._fonts: dict[str, QFont] = {}
        self._palettes: dict[str, QPalette] = {}
        # Apart from the text roles' palettes: a tint keyed "ListMore" (the list's "Show
        # N more") and the text role "ListMore" (the scope line's "or") are not the same
        # palette, and one cache gave whichever a card asked for first to both.
        self._tints: dict[str, QPalette] = {}
        self._metrics: dict[str, QFontMetrics] = {}
        self._kept: dict[str, Any] = {}
        self.base_palette = self._make_base_palette()

    def kept(self, name: str, make: Callable[[], _T]) -> _T:
        """`make()`, made once per look and kept under `name`: what a widget derives from
        the theme alone (a palette, a measured size) is the same on every card."""
        if name not in self._kept:
            self._kept[name] = make()
        value: _T = self._kept[name]
        return value

    def color(self, token: str) -> QColor:
        """The colour of a palette token. KeyError for a token the theme lacks."""
        return self.colors[token]

    def font(self, role: str) -> QFont:
        """The font of a text role from `card.json` (the base font for an unknown role): a
        copy of the cached one (Qt shares its data until written), so a caller that sets
        an underline or a weight on it changes only its own. Handing out the cached font
        itself let the reply line's hover underline every caption drawn after it."""
        return QFont(self._cached_font(role))

    def _cached_font(self, role: str) -> QFont:
        font = self._fonts.get(role)
        if font is None:
            props = self._text.get(role, self._text["base"])
            font = card_font()
            if props.get("mono"):
                font.setFamilies([MONO_FAMILY, "monospace"])
                font.setStyleHint(QFont.StyleHint.Monospace)
                font.setFixedPitch(True)
            font.setPixelSize(int(props.get("size", FONT_PIXEL_SIZE)))
            font.setBold(bool(props.get("bold", False)))
            self._fonts[role] = font
        return font

    def same_font_as_base(self, role: str) -> bool:
        """True when the role's font is the card's base font (nothing to set)."""
        props = self._text.get(role, self._text["base"])
        base = self._text["base"]
        return (
            int(props.get("size", FONT_PIXEL_SIZE)) == int(base.get("size", FONT_PIXEL_SIZE))
            and bool(props.get("bold", False)) == bool(base.get("bold", False))
            and bool(props.get("mono", False)) == bool(base.get("mono", False))
        )

    def own_font(self, role: str) -> QFont | None:
        """The font a widget of text role `role` sets, None when it is the card's base
        font (inherited: nothing to set). Decided once per role; the widget keeps its
        own copy of what it is given, so the kept font is never changed."""
        return self.kept(
            f"own-font:{role}", lambda: None if self.same_font_as_base(role) else self.font(role)
        )

    def font_metrics(self, role: str) -> QFontMetrics:
        fm = self._metrics.get(role)
        if fm is None:
            fm = self._metrics[role] = QFontMetrics(self._cached_font(role))
        return fm

    def text_color(self, role: str) -> QColor:
        return self.colors[str(self._text.get(role, self._text["base"]).get("color", "text"))]

    def text_palette(self, role: str) -> QPalette:
        """The card's palette with the role's colour as the text colour."""
        pal = self._palettes.get(role)
        if pal is None:
            pal = QPalette(self.base_palette)
            color = self.text_color(role)
            for group in (QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive):
                pal.setColor(group, QPalette.ColorRole.WindowText, color)
                pal.setColor(group, QPalette.ColorRole.Text, color)
            self._palettes[role] = pal
        return pal

    def tinted_palette(self, key: str, role: QPalette.ColorRole, token: str) -> QPalette:
        """The card's palette with one colour role replaced by a token's colour (cached)."""
        pal = self._tints.get(key)
        if pal is None:
            pal = QPalette(self.base_palette)
            pal.setColor(role, self.colors[token])
            self._tints[key] = pal
        return pal

    def _make_base_palette(self) -> QPalette:
        c = self.colors
        clear = QColor(0, 0, 0, 0)
        pal = QPalette()
        R = QPalette.ColorRole
        for group in (QPalette.ColorGroup.Active, QPalette.ColorGroup.Inactive):
            for role, color in (
                (R.Window, clear),
                (R.Base, clear),
                (R.AlternateBase, c["section_fill"]),
                (R.Button, c["field_fill"]),
                (R.WindowText, c["text"]),
                (R.Text, c["text"]),
                (R.ButtonText, c["text"]),
                (R.BrightText, c["text"]),
                (R.PlaceholderText, c["text_faint"]),
                (R.Highlight, c["selection"]),
                (R.HighlightedText, c["text"]),
                (R.Link, c["link"]),
                (R.LinkVisited, c["link"]),
                (R.ToolTipBase, _opaque(c["glass_fill"])),
                (R.ToolTipText, c["text"]),
                (R.Light, c["glass_border"]),
                (R.Midlight, c["field_border"]),
                (R.Mid, c["divider"]),
                (R.Dark, c["glass_border"]),
                (R.Shadow, clear),
            ):
                pal.setColor(group, role, color)
        disabled = QPalette.ColorGroup.Disabled
        for role in (R.WindowText, R.Text, R.ButtonText, R.PlaceholderText):
            pal.setColor(disabled, role, c["disabled_text"])
        for role in (R.Window, R.Base):
            pal.setColor(disabled, role, clear)
        pal.setColor(disabled, R.Highlight, c["selection"])
        return pal

    def popup_palette(self) -> QPalette:
        """For a combo box's list: a popup is its own window, so it gets an opaque glass."""
        pal = self._palettes.get("_popup")
        if pal is None:
            pal = QPalette(self.base_palette)
            glass = _opaque(self.colors["glass_fill"])
            pal.setColor(QPalette.ColorRole.Base, glass)
            pal.setColor(QPalette.ColorRole.Window, glass)
            self._palettes["_popup"] = pal
        return pal


def _opaque(color: QColor) -> QColor:
    out = QColor(color)
    out.setAlpha(255)
    return out


@cache
def look(name: ThemeName) -> Look:
    """The cached Look of a theme (needs a QGuiApplication). ThemeError for an unknown
    theme or an unreadable theme file."""
    return Look(theme_name(name))


def style_text(widget: QWidget, role: str, look: Look) -> None:
    """Give `widget` the font and text colour of a text role (skipped for the base role,
    which every widget of the card inherits). What a role sets is decided once per look:
    a card styles a dozen labels, each asking the same."""
    font, palette = look.kept(f"text-style:{role}", lambda: _text_style(role, look))
    if font is not None:
        widget.setFont(font)  # the widget keeps its own copy: the kept one is never changed
    if palette is not None:
        widget.setPalette(palette)


def _text_style(role: str, look: Look) -> tuple[QFont | None, QPalette | None]:
    """What `style_text` sets for `role`: only what differs from the card's own font and
    colour (each set costs ~25 µs), nothing for the base role."""
    if role == "base":
        return None, None
    same_colour = look.text_color(role) == look.text_color("base")
    return look.own_font(role), None if same_colour else look.text_palette(role)


@cache
def icon(name: str) -> QIcon:
    """An icon from `resources/icons/<name>.svg` (an empty icon if the file is missing)."""
    return QIcon(str(ICON_DIR / f"{name}.svg"))


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
