"""HtmlWidget: one sandboxed HTML page in a card or a glance, speaking the VoiceOS widget
protocol through a bridge in an isolated world, watched by a heartbeat while it is shown.

The page never sees a Python object: the web channel lives in the page's isolated world
(ScriptWorldId.ApplicationWorld) together with qwebchannel.js and Notch's bridge script,
and the only object on it takes one bounded string at a time.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from functools import cache
from typing import Any

from PySide6.QtCore import QFile, QIODevice, QObject, Qt, QTimer, QUrl, Signal, Slot
from PySide6.QtGui import QHideEvent, QShowEvent
from PySide6.QtWebChannel import QWebChannel
from PySide6.QtWebEngineCore import QWebEnginePage, QWebEngineScript
from PySide6.QtWebEngineWidgets import QWebEngineView
from PySide6.QtWidgets import QLabel, QStackedLayout, QWidget

from notch_app.ui.theme import look, style_text
from notch_app.ui.web.bridge_script import bridge_script
from notch_app.ui.web.protocol import (
    HEARTBEAT_MS,
    MAX_MESSAGE_BYTES,
    RESPONSE_BUDGET_MS,
    STOPPED_TEXT,
    Resize,
    StagedArguments,
    ThemeMode,
    clamp_height,
    init_message,
    read_page_message,
)
from notch_app.ui.web.sandbox import NO_PEER_CONNECTIONS_SCRIPT, SandboxPage, sandbox_engine

_NOTCH_WORLD = QWebEngineScript.ScriptWorldId.ApplicationWorld
_STOPPED_HEIGHT = 36


@cache
def _qwebchannel_js() -> str:
    """qwebchannel.js as Qt ships it in its resources (the same version as the channel)."""
    source = QFile(":/qtwebchannel/qwebchannel.js")
    if not source.open(QIODevice.OpenModeFlag.ReadOnly):
        raise RuntimeError("Qt's qwebchannel.js resource is missing: reinstall PySide6-Addons")
    try:
        return bytes(source.readAll().data()).decode("utf-8")
    finally:
        source.close()


def _script(
    name: str,
    source: str,
    *,
    world: QWebEngineScript.ScriptWorldId = _NOTCH_WORLD,
    sub_frames: bool = False,
) -> QWebEngineScript:
    script = QWebEngineScript()
    script.setName(name)
    script.setSourceCode(source)
    script.setWorldId(world)
    script.setInjectionPoint(QWebEngineScript.InjectionPoint.DocumentCreation)
    script.setRunsOnSubFrames(sub_frames)
    return script


class _Bridge(QObject):
    """The one object on the page's web channel, reachable only from the isolated world."""

    received = Signal(str)

    @Slot(str)
    def post(self, text: str) -> None:
        if isinstance(text, str) and len(text) <= MAX_MESSAGE_BYTES + 64:
            self.received.emit(text)


class HtmlWidget(QWidget):
    """A sandboxed HTML page at a fixed height (the page may ask for another, clamped).

    Build it with `make_html_widget`. It replaces itself with "This widget stopped
    responding" (and ends the page's renderer) when the shown page does not answer the
    heartbeat within the 2 s budget. A `display_only` page (a glance's) gets no input."""

    ready = Signal()
    """The page loaded and `voiceos:init` was posted to it."""
    heightChanged = Signal(int)
    """The page's `voiceos:resize`, clamped to 1..MAX_WIDGET_HEIGHT."""
    argumentsStaged = Signal(dict)
    """A `voiceos:args` message's arguments (JSON only, bounded); only when the widget
    accepts arguments."""
    stoppedResponding = Signal()
    """The page missed the budget; the widget now shows the stopped line."""

    def __init__(
        self,
        html: str,
        *,
        data: Mapping[str, Any],
        theme: ThemeMode,
        height: int,
        label: str,
        accepts_arguments: bool = False,
        display_only: bool = False,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._theme: ThemeMode = theme
        self._look = look(theme)
        self._radius = int(self._look.radius.get("section", 12))
        self._init = init_message(theme, self._radius, data)  # WidgetDataError first
        self._accepts_arguments = accepts_arguments
        self._loaded = False
        self._stopped = False
        self._committed = False
        self._alive_at = 0.0
        self._engine = sandbox_engine()

        self.setAccessibleName(label)
        self.setToolTip("")
        self.setFixedHeight(clamp_height(height))
        self._stack = QStackedLayout(self)
        self._stack.setContentsMargins(0, 0, 0, 0)

        self._view: QWebEngineView | None = QWebEngineView(self)
        self._view.setContextMenuPolicy(Qt.ContextMenuPolicy.NoContextMenu)
        self._view.setAcceptDrops(False)
        self._view.setAccessibleName(label)
        self._page: SandboxPage | None = SandboxPage(self._engine, self._view)
        self._page.setBackgroundColor(Qt.GlobalColor.transparent)
        self._bridge = _Bridge(self)
        self._bridge.received.connect(self._on_message)
        channel = QWebChannel(self._page)
        channel.registerObject("notch", self._bridge)
        self._page.setWebChannel(channel, _NOTCH_WORLD)
        self._page.scripts().insert(
            _script(
                "notch-no-peer-connections",
                NO_PEER_CONNECTIONS_SCRIPT,
                world=QWebEngineScript.ScriptWorldId.MainWorld,
                sub_frames=True,
            )
        )
        self._page.scripts().insert(_script("notch-qwebchannel", _qwebchannel_js()))
        self._page.scripts().insert(
            _script("notch-bridge", bridge_script(accepts_arguments=accepts_arguments))
        )
        self._page.urlChanged.connect(self._on_committed)
        self._page.loadFinished.connect(self._on_loaded)
        self._page.renderProcessTerminated.connect(self._on_renderer_gone)
        self._view.setPage(self._page)
        if display_only:
            # A glance's page is a picture: no click, wheel, hover or key ever reaches it,
            # so no button it draws can be pressed. The pointer passes through to the
            # glance (which pauses and pins as over any other block), and a disabled view
            # is given no input even when something aims at it directly.
            self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents, True)
            self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            self._view.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            self._view.setEnabled(False)

        self._stopped_line = QLabel(STOPPED_TEXT, self)
        self._stopped_line.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._stopped_line.setTextFormat(Qt.TextFormat.PlainText)
        style_text(self._stopped_line, "muted", self._look)
        self._stack.addWidget(self._view)
        self._stack.addWidget(self._stopped_line)

        self._heartbeat = QTimer(self)
        self._heartbeat.setInterval(HEARTBEAT_MS)
        self._heartbeat.timeout.connect(self._beat)

        self._url = self._engine.documents.add(html, theme)
        self._page.load(self._url)

    # ---- what others call -------------------------------------------------------------

    @property
    def stopped(self) -> bool:
        """True once the page missed its budget (or its renderer died)."""
        return self._stopped

    def send_data(self, data: Mapping[str, Any]) -> None:
        """Post a fresh `voiceos:init` carrying `data` (at once if the page has loaded, else
        when it does). Raises WidgetDataError when `data` is not JSON or is too large."""
        self._init = init_message(self._theme, self._radius, data)
        if self._loaded:
            self._post_init()

    # ---- the page ---------------------------------------------------------------------

    def _on_committed(self, url: QUrl) -> None:
        # The renderer holds the document now: from here on it must answer in time.
        if url == self._url and not self._committed:
            self._committed = True
            self._alive_at = time.monotonic()
            if self.isVisible():
                self._heartbeat.start()

    def _on_loaded(self, ok: bool) -> None:
        if ok and not self._loaded and not self._stopped:
            self._loaded = True
            self._post_init(announce=True)

    def _post_init(self, *, announce: bool = False) -> None:
        if self._page is None:
            return
        script = f"window.postMessage({self._init}, '*');true"
        if announce:
            self._page.runJavaScript(script, _NOTCH_WORLD, self._on_init_posted)
        else:
            self._page.runJavaScript(script, _NOTCH_WORLD, _ignore)

    def _on_init_posted(self, _result: object) -> None:
        if not self._stopped:
            self.ready.emit()

    def _on_message(self, text: str) -> None:
        if self._stopped:
            return
        message = read_page_message(text, accepts_arguments=self._accepts_arguments)
        if isinstance(message, Resize):
            if message.height != self.height():
                self.setFixedHeight(message.height)
                self.heightChanged.emit(message.height)
        elif isinstance(message, StagedArguments):
            self.argumentsStaged.emit(message.arguments)

    def _on_renderer_gone(
        self, status: QWebEnginePage.RenderProcessTerminationStatus, code: int
    ) -> None:
        self._stop()

    # ---- the heartbeat: only while shown ------------------------------------------------

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._committed and not self._stopped:
            self._alive_at = time.monotonic()  # time hidden is not the page's fault
            self._heartbeat.start()

    def hideEvent(self, event: QHideEvent) -> None:
        self._heartbeat.stop()
        super().hideEvent(event)

    def _beat(self) -> None:
        if self._page is None or self._stopped:
            self._heartbeat.stop()
            return
        if (time.monotonic() - self._alive_at) * 1000 > RESPONSE_BUDGET_MS:
            self._stop()
            return
        # Every beat pings anew: a ping lost with a document is never waited on forever.
        self._page.runJavaScript("0", _NOTCH_WORLD, self._answered)

    def _answered(self, _result: object) -> None:
        self._alive_at = time.monotonic()

    def _stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        self._heartbeat.stop()
        self._stack.setCurrentWidget(self._stopped_line)
        self.setFixedHeight(_STOPPED_HEIGHT)
        self._engine.documents.forget(self._url)
        view, page = self._view, self._page
        self._view, self._page = None, None
        if view is not None and page is not None:
            # Deleting the page ends its renderer (a page spinning in a loop included).
            self._stack.removeWidget(view)
            view.setPage(None)  # type: ignore[arg-type]
            page.deleteLater()
            view.deleteLater()
        self.stoppedResponding.emit()

    def closeEvent(self, event: Any) -> None:
        self._heartbeat.stop()
        self._engine.documents.forget(self._url)
        super().closeEvent(event)


def _ignore(_result: object) -> None:
    return None
