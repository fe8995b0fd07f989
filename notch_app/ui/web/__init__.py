"""Sandboxed HTML widgets (VoiceOS `widget` blocks) on QtWebEngine.

This face imports no part of the web engine: the engine (PySide6-Addons, the `web` extra)
is imported and started by the first widget only, so a Notch that never shows one neither
loads Chromium nor grows in memory. Later widgets reuse the warm engine.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from notch_app.ui.theme import look
from notch_app.ui.web.frame import GLANCE_CAPTION, PageFrame
from notch_app.ui.web.protocol import (
    MAX_WIDGET_HEIGHT,
    STOPPED_TEXT,
    ThemeMode,
    WidgetDataError,
    clamp_height,
)

if TYPE_CHECKING:
    from notch_app.ui.web.widget import HtmlWidget

__all__ = [
    "MAX_WIDGET_HEIGHT",
    "STOPPED_TEXT",
    "WidgetBlockFields",
    "WidgetDataError",
    "glance_widget_factory",
    "make_html_widget",
    "web_engine_available",
]

NO_ENGINE_TEXT = "This widget needs the web engine: pip install 'notch[web]'"


class WidgetBlockFields(Protocol):
    """What a `widget` block carries (the glance model's WidgetBlock has these fields)."""

    @property
    def html(self) -> str: ...
    @property
    def height(self) -> int: ...
    @property
    def label(self) -> str: ...
    @property
    def data(self) -> Mapping[str, Any] | None: ...


def web_engine_available() -> bool:
    """True when QtWebEngine is installed (looked up, not imported)."""
    try:
        return (
            importlib.util.find_spec("PySide6.QtWebEngineWidgets") is not None
            and importlib.util.find_spec("PySide6.QtWebChannel") is not None
        )
    except (ImportError, ValueError):
        return False


def make_html_widget(
    html: str,
    *,
    data: Mapping[str, Any],
    theme: ThemeMode,
    height: int,
    label: str,
    accepts_arguments: bool = False,
    display_only: bool = False,
    parent: QWidget | None = None,
) -> HtmlWidget:
    """A sandboxed page showing `html`, given `data` in its `voiceos:init`, `height` pixels
    tall (clamped to 1..MAX_WIDGET_HEIGHT) and read aloud as `label`. Only with
    `accepts_arguments` (a confirmation view's root) does it emit `argumentsStaged`; with
    `display_only` (a glance's page) no click, hover, wheel or key reaches the page.

    Starts the web engine on the first call. Raises WidgetDataError when `data` is not JSON
    or over the size limit, and ModuleNotFoundError when the web engine is not installed
    (check `web_engine_available()` first)."""
    from notch_app.ui.web.widget import HtmlWidget

    return HtmlWidget(
        html,
        data=data,
        theme=theme,
        height=height,
        label=label,
        accepts_arguments=accepts_arguments,
        display_only=display_only,
        parent=parent,
    )


def glance_widget_factory(block: WidgetBlockFields, theme: str) -> PageFrame:
    """The widget for a glance's `widget` block: the sandboxed page, display only (it
    takes no arguments and no input), or a one-line note in its place when the engine is
    missing or the block's data cannot be sent; either inside Notch's frame captioned as
    the integration's page. Never raises for a block's content."""
    mode: ThemeMode = "light" if theme == "light" else "dark"
    shown: QWidget
    if not web_engine_available():
        shown = _note(NO_ENGINE_TEXT, block.height, block.label)
    else:
        try:
            shown = make_html_widget(
                block.html,
                data=dict(block.data or {}),
                theme=mode,
                height=block.height,
                label=block.label,
                accepts_arguments=False,
                display_only=True,
            )
        except WidgetDataError as exc:
            shown = _note(f"This widget could not start: {exc}", block.height, block.label)
    return PageFrame(shown, look(mode), GLANCE_CAPTION)


def _note(text: str, height: int, label: str) -> QLabel:
    note = QLabel(text)
    note.setTextFormat(Qt.TextFormat.PlainText)
    note.setWordWrap(True)
    note.setAlignment(Qt.AlignmentFlag.AlignCenter)
    note.setAccessibleName(label)
    note.setFixedHeight(min(clamp_height(height), 60))
    return note
