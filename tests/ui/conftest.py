"""Fixtures for the widget tests: cards built from a confirmation view, and the doubles the
overlay tests use (a recording DecisionSink and a minimal card).

The minimal card stands in only where a test is about the notch itself (queue, parking,
focus, animation), not about what a card shows; tests of real cards use CardView.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, QPointF, QRect, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QImage, QLinearGradient, QPainter, QPixmap
from PySide6.QtWidgets import (
    QApplication,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from notch_app.app import BUNDLED_MANIFESTS
from notch_app.card.staged_args import card_state_for
from notch_app.card.state import CardState
from notch_app.manifest.model import Tool
from notch_app.runtime.catalog import Catalog
from notch_app.runtime.presenter import ConfirmationRequest, DecidedBy
from notch_app.ui.card_view import CardView
from notch_app.ui.overlay_cards import ManifestCardFactory
from notch_app.ui.overlay_presenter import BuiltCard, OverlayPresenter
from notch_app.ui.theme import Look
from notch_app.ui.theme import look as look_of
from notch_app.ui.widgets.scope_choices import Scope

# Before pytest-qt's QApplication: QtWebEngine (HTML widgets) needs shared GL contexts.
QApplication.setAttribute(Qt.ApplicationAttribute.AA_ShareOpenGLContexts)


def _qt_event_loop(limit_s: float = 0) -> asyncio.AbstractEventLoop:
    import qasync  # type: ignore[import-untyped]

    app = QApplication.instance() or QApplication([])
    loop: asyncio.AbstractEventLoop = qasync.QEventLoop(app)
    if limit_s > 0:
        _end_when_hung(loop, limit_s)
    return loop


HUNG_MARGIN_S = 10.0
"""How long before pytest-timeout's limit a test hung on the qasync loop is ended."""


def _end_when_hung(loop: asyncio.AbstractEventLoop, limit_s: float) -> None:
    """pytest-timeout cannot end a test that waits inside Qt's event loop for something
    that never comes: its alarm handler runs only in the next Python slot, and Qt swallows
    what a slot raises, so the worker (and the whole run) waited forever (twice in one
    run). A timer looks once a second: past the test's limit it cancels every task of the
    loop, naming the limit, so the test fails at the `await` it hung on; if they still do
    not end, the next look stops the loop."""
    deadline = time.monotonic() + max(limit_s - HUNG_MARGIN_S, limit_s / 2)
    looks = QTimer()
    looks.setInterval(1000)
    cancelled: list[bool] = []

    def look() -> None:
        if loop.is_closed():
            looks.stop()
        elif time.monotonic() > deadline and not cancelled:
            cancelled.append(True)
            why = f"hung: still waiting after the test's limit of {limit_s:.0f} s"
            for task in asyncio.all_tasks(loop):
                task.cancel(why)
        elif cancelled:
            loop.stop()

    looks.timeout.connect(look)
    looks.start()
    loop._notch_hung_looks = looks  # type: ignore[attr-defined]  # as long as the loop


def _limit_s(item: pytest.Item) -> float:
    """The item's pytest-timeout limit in seconds (0: none)."""
    marker = item.get_closest_marker("timeout")
    if marker is not None:
        value = marker.kwargs.get("timeout", marker.args[0] if marker.args else 0)
    else:
        value = item.config.getini("timeout") or 0
    return float(value or 0)


def pytest_asyncio_loop_factories(
    config: pytest.Config, item: pytest.Item
) -> dict[str, Callable[[], asyncio.AbstractEventLoop]]:
    """Async widget tests run on qasync's loop, as `notch run` does: Qt's own event loop,
    so widgets paint and Qt timers fire while a test awaits."""
    return {"qasync": functools.partial(_qt_event_loop, _limit_s(item))}


@pytest.fixture(scope="module", autouse=True)
def _no_window_outlives_its_module(qapp: QApplication) -> Iterator[None]:
    """Hide the top-level windows a module's own fixtures left on screen, once its last
    test has run (the next module on this worker starts with none of them)."""
    before = set(QApplication.topLevelWidgets())
    yield
    for window in QApplication.topLevelWidgets():
        if window not in before and window.isVisible():
            window.hide()


@pytest.fixture(autouse=True)
def _no_window_outlives_its_test(
    qapp: QApplication, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """Stop every notch a test made, as `notch run` stops its own, and hide any other
    top-level window it left on screen. Many tests build an OverlayPresenter and only
    close its window (or not): its note and park timers then showed the notch again
    later, and those windows took the next tests' pointer Enter and focus on the same
    worker (a card's text selection test failed once so). Windows that existed before
    the test (a module's fixtures) are left alone."""
    made: list[OverlayPresenter] = []
    build = OverlayPresenter.__init__

    def recorded(presenter: OverlayPresenter, *args: Any, **kwargs: Any) -> None:
        build(presenter, *args, **kwargs)
        made.append(presenter)

    monkeypatch.setattr(OverlayPresenter, "__init__", recorded)
    before = set(QApplication.topLevelWidgets())
    yield
    for presenter in made:
        with contextlib.suppress(RuntimeError):  # its window already deleted by the test
            presenter.close()
    for window in QApplication.topLevelWidgets():
        if window not in before and window.isVisible():
            window.hide()


# ---- cards from a confirmation view ---------------------------------------------------


def _tool(
    root: dict[str, Any], properties: dict[str, Any], required: list[str] | None = None
) -> Tool:
    return Tool.model_validate(
        {
            "name": "do_thing",
            "inputSchema": {"type": "object", "properties": properties, "required": required or []},
            "confirmation": {"schemaVersion": 1, "root": root},
        }
    )


def _card(
    children: list[dict[str, Any]],
    properties: dict[str, Any],
    arguments: dict[str, Any],
    *,
    required: list[str] | None = None,
    confirm_label: str = "Do it",
    base_dir: Path | None = None,
    network_domains: tuple[str, ...] = (),
    theme: str = "dark",
    compact: bool = False,
) -> CardView:
    root = {
        "type": "card",
        "title": "Test card",
        "children": children,
        "footer": [
            {
                "type": "actions",
                "items": [
                    {"label": "Cancel", "role": "cancel"},
                    {"label": confirm_label, "role": "confirm"},
                ],
            }
        ],
    }
    return CardView(
        _tool(root, properties, required),
        arguments,
        base_dir=base_dir,
        network_domains=network_domains,
        theme=theme,
        compact=compact,  # the whole form: these tests are about the blocks, not the fold
    )


@pytest.fixture(scope="session")
def card() -> Callable[..., CardView]:
    """`card(children, properties, arguments, *, required, confirm_label, base_dir,
    network_domains, theme)`: a CardView of a tool whose view is a card titled "Test card"
    holding `children`, with Cancel and `confirm_label` in its footer."""
    return _card


class Decisions(list[tuple[bool, dict[str, Any], list[str]]]):
    """Every (approved, final arguments, edited paths) a card emitted, in order."""

    def record(self, ok: bool, final: dict[str, Any], edited: list[str]) -> None:
        self.append((ok, final, edited))


def _watch(view: CardView) -> Decisions:
    got = Decisions()
    view.decided.connect(got.record)
    return got


def _link_at(markdown: QWidget, href: str) -> QPoint:
    """A point of a markdown view (of its document, unscrolled) on its link to `href`."""
    layout = markdown.document().documentLayout()  # type: ignore[attr-defined]
    for y in range(0, markdown.height(), 2):
        for x in range(0, markdown.width(), 2):
            if layout.anchorAt(QPointF(x, y)) == href:
                return QPoint(x, y)
    raise AssertionError(f"no link to {href} is drawn")


@pytest.fixture(scope="session")
def link_at() -> Callable[[QWidget, str], QPoint]:
    """`link_at(markdown_view, href)`: where on the view its link to `href` is drawn."""
    return _link_at


@pytest.fixture(scope="session")
def watch() -> Callable[[CardView], Decisions]:
    """`watch(view)`: the list of decisions `view` emits from now on."""
    return _watch


# ---- overlay doubles ------------------------------------------------------------------


@dataclass
class RecordingSink:
    """Records every call the overlay makes on the service, in order: a decision with a
    scope, a revision (reason, feedback) or the person's words adds an entry of its own
    after it (`of("scope")`, `of("revise")`, `of("words")`)."""

    calls: list[tuple[Any, ...]] = field(default_factory=list)

    def decide(
        self,
        call_id: str,
        approved: bool,
        final_arguments: dict[str, Any] | None,
        edited_paths: list[str],
        decided_by: DecidedBy,
        scope: str = "once",
        *,
        reason: str | None = None,
        feedback: str | None = None,
        words: str | None = None,
    ) -> None:
        self.calls.append(("decide", call_id, approved, final_arguments, edited_paths, decided_by))
        if scope != "once":
            self.calls.append(("scope", call_id, scope))
        if reason is not None or feedback is not None:
            self.calls.append(("revise", call_id, reason, feedback))
        if words is not None:
            self.calls.append(("words", call_id, words))

    def parked(self, call_id: str) -> None:
        self.calls.append(("parked", call_id))

    def restored(self, call_id: str) -> None:
        self.calls.append(("restored", call_id))

    def shown(self, call_id: str) -> None:
        self.calls.append(("shown", call_id))

    def of(self, kind: str) -> list[tuple[Any, ...]]:
        return [c for c in self.calls if c[0] == kind]


@pytest.fixture
def sink() -> RecordingSink:
    """A DecisionSink that records every call the overlay makes on the service."""
    return RecordingSink()


class SimpleCard(QWidget):
    """A card with an optional text field bound to `text`, Approve and Cancel. It has every
    member the notch asks of a card (`CardWidget`), but holds nothing itself: its Approve
    takes clicks while the presenter holds confirm (the presenter refuses them)."""

    decided = Signal(bool, dict, list)
    revised = Signal(str)
    changedByPage = Signal()
    asker_strip = None
    scope_choices = None
    approval_scope: Scope = "once"
    reply_words: str | None = None
    voice_words: str | None = None
    save_failure = ""

    def __init__(
        self, request: ConfirmationRequest, *, editable: bool, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.request = request
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(f"{request.tool_name} ({request.call_id})"))
        self.field: QLineEdit | None = None
        if editable:
            self.field = QLineEdit(str(request.arguments.get("text", "")))
            layout.addWidget(self.field)
        self.approve = QPushButton("Approve")
        self.cancel = QPushButton("Cancel")
        layout.addWidget(self.approve)
        layout.addWidget(self.cancel)
        self.approve.clicked.connect(self._approve)
        self.cancel.clicked.connect(lambda: self.decided.emit(False, {}, []))
        self.setFixedSize(440, 120 if editable else 90)

    @property
    def look(self) -> Look:
        return look_of("dark")

    def state(self) -> CardState:
        return card_state_for(_SIMPLE_TOOL, self.request.arguments)

    def set_armed(self, armed: bool) -> None:
        pass  # no hold of its own: the presenter's refusal is what is tested with it

    def press(self, role: str) -> bool:
        button = self.approve if role == "confirm" else self.cancel
        button.click()
        return True

    def read_back(self) -> str:
        return f"{self.request.tool_name}?"

    def show_voice_words(self, words: str | None) -> None:
        self.voice_words = words

    def show_voice_note(self, text: str | None) -> None:
        pass

    def show_heard(self, text: str | None) -> None:
        pass

    def show_save_failure(self, text: str) -> None:
        self.save_failure = text

    def _approve(self) -> None:
        args = dict(self.request.arguments)
        edited: list[str] = []
        if self.field is not None and self.field.text() != args.get("text"):
            args["text"] = self.field.text()
            edited.append("text")
        self.decided.emit(True, args, edited)


_SIMPLE_TOOL = Tool.model_validate(
    {
        "name": "send_thing",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}},
        "confirmation": {
            "schemaVersion": 1,
            "root": {"type": "card", "children": [{"type": "text", "text": "{{text}}"}]},
        },
    }
)
"""The tool a SimpleCard's state reads its request's arguments with."""


def _simple_factory(request: ConfirmationRequest, parent: QWidget | None = None) -> BuiltCard:
    built = SimpleCard(request, editable="text" in request.arguments, parent=parent)
    return BuiltCard(built, title=f"Test · {request.tool_name}", action=request.tool_name)


@pytest.fixture(scope="session")
def simple_factory() -> Callable[..., BuiltCard]:
    """A card factory for the overlay that builds a SimpleCard (a text field when the
    request has a `text` argument)."""
    return _simple_factory


@pytest.fixture(scope="session")
def simple_card() -> type[SimpleCard]:
    """The SimpleCard class, to check that the notch holds one."""
    return SimpleCard


def _card_request(call_id: str, tool: str = "send_thing", **args: Any) -> ConfirmationRequest:
    return ConfirmationRequest(call_id, "com.example.test", tool, dict(args))


@pytest.fixture(scope="session")
def card_request() -> Callable[..., ConfirmationRequest]:
    """`card_request(call_id, tool="send_thing", **arguments)`: a request from the
    com.example.test integration."""
    return _card_request


@pytest.fixture(scope="session")
def make_tool() -> Callable[..., Tool]:
    """`make_tool(root, properties, required=None)`: a tool `do_thing` whose confirmation
    view is `root`."""
    return _tool


# ---- the bundled integrations in the notch ---------------------------------------------

OVERLAY_ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "overlay"


def _bundled_factory() -> ManifestCardFactory:
    catalog, problems = Catalog.load([BUNDLED_MANIFESTS])
    assert not problems, problems
    return ManifestCardFactory(catalog)


def _preview_args(folder: str, tool: str) -> dict[str, Any]:
    fixtures = json.loads((BUNDLED_MANIFESTS / folder / "preview.json").read_text())
    return dict(fixtures["tools"][tool]["args"])


def _desktop_shot(presenter: OverlayPresenter, name: str) -> QImage:
    """The top of the screen around the notch, as a person would see it."""
    QApplication.processEvents()
    screen = QApplication.primaryScreen().geometry()
    notch = presenter.window.geometry()
    height = max(140, notch.bottom() + 40)
    area = QRect(screen.center().x() - 380, screen.top(), 760, height)
    shot = QPixmap(area.size())
    painter = QPainter(shot)
    wallpaper = QLinearGradient(0, 0, area.width(), area.height())
    wallpaper.setColorAt(0.0, QColor("#3a4a6b"))
    wallpaper.setColorAt(1.0, QColor("#7b5a7e"))
    painter.fillRect(shot.rect(), wallpaper)
    windows: list[QWidget] = [presenter.window, presenter.side_notch]
    for w in windows:
        if w.isVisible():
            painter.drawPixmap(w.geometry().topLeft() - area.topLeft(), w.grab())
    painter.end()
    OVERLAY_ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot.save(str(OVERLAY_ARTIFACTS / f"{name}.png"))
    return shot.toImage()


@pytest.fixture(scope="session")
def bundled_factory() -> Callable[[], ManifestCardFactory]:
    """`bundled_factory()`: a card factory over the bundled integrations (fails the test
    if any of them has a problem)."""
    return _bundled_factory


@pytest.fixture(scope="session")
def preview_args() -> Callable[[str, str], dict[str, Any]]:
    """`preview_args(folder, tool)`: the sample arguments of a bundled integration's tool
    (its preview.json)."""
    return _preview_args


@pytest.fixture(scope="session")
def desktop_shot() -> Callable[[OverlayPresenter, str], QImage]:
    """`desktop_shot(presenter, name)`: the top of the screen around the notch over a
    wallpaper, as a person would see it; also saved as artifacts/overlay/<name>.png."""
    return _desktop_shot


# ---- glances (tests/ui/test_glance_*.py) ------------------------------------------------

GLANCE_NOW = 1_750_000_000.0
"""The fixed time glance tests and goldens show: Sunday 15 June 2025, 15:06:40 UTC."""


class FakeClock:
    """A clock a test moves by hand: `clock()` is the unix time, `advance(s)` moves it."""

    def __init__(self, now: float = GLANCE_NOW) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def fake_clock() -> FakeClock:
    """A FakeClock at GLANCE_NOW (Sunday 15 June 2025, 15:06:40 UTC)."""
    return FakeClock()


GLANCE_PIXEL_TOLERANCE = 24
GLANCE_MAX_DIFFERING = 0.005  # 0.5 % of the pixels, as the card goldens


def _differing_share(a: QImage, b: QImage) -> float:
    if a.size() != b.size():
        return 1.0
    ca = a.convertToFormat(QImage.Format.Format_RGBA8888)
    cb = b.convertToFormat(QImage.Format.Format_RGBA8888)
    pa = bytes(ca.constBits())
    pb = bytes(cb.constBits())
    if pa == pb:
        return 0.0
    differing = 0
    for i in range(0, len(pa), 4):
        if pa[i : i + 4] != pb[i : i + 4] and (
            max(abs(pa[i + k] - pb[i + k]) for k in range(4)) > GLANCE_PIXEL_TOLERANCE
        ):
            differing += 1
    return differing / (a.width() * a.height())


@pytest.fixture(scope="session")
def differing_share() -> Callable[[QImage, QImage], float]:
    """`differing_share(a, b)`: the share of pixels with a channel off by more than 24
    (1.0 when the sizes differ); a golden fails past 0.5 % (the card goldens' method)."""
    return _differing_share


# ---- the studio (notch preview) ---------------------------------------------------------


@pytest.fixture
def mail_folder(tmp_path: Path) -> Path:
    """A copy of the bundled mail integration, for a test that edits its files."""
    folder = tmp_path / "mail"
    shutil.copytree(BUNDLED_MANIFESTS / "mail", folder)
    return folder


@pytest.fixture
def open_studio(qtbot: Any) -> Iterator[Callable[..., Any]]:
    """`open_studio(folder, **options)`: a shown StudioWindow (`notch preview`'s window),
    closed after the test."""
    import shiboken6

    from notch_app.ui.studio import StudioWindow

    opened: list[StudioWindow] = []

    def make(folder: Path, **options: Any) -> StudioWindow:
        window = StudioWindow(folder, **options)
        qtbot.addWidget(window)
        window.show()
        qtbot.waitUntil(lambda: window.stage.card is None or window.stage.card.isVisible())
        opened.append(window)
        return window

    yield make
    for window in opened:
        if shiboken6.isValid(window):  # qtbot may have closed it first
            window.close()
