"""The "In the notch" group on the Settings list page: the look (System / Light / Dark),
the glance, the idle look, parking.

Every control writes the settings file at once through the `PolicyBook`; a running Notch
hears the change (its book subscription) and applies it to the overlay.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QFrame,
    QHBoxLayout,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from notch_app.runtime.policy_book import PolicyBook, PolicyRefused, PolicyWriteError
from notch_app.runtime.settings import (
    GLANCE_SECONDS_CHOICES,
    IdleLook,
    OverlayTheme,
    format_number,
)
from notch_app.ui.settings.action_panel import _label

IDLE_CHOICES: tuple[tuple[IdleLook, str], ...] = (("pill", "Small pill"), ("hidden", "Hidden"))
THEME_CHOICES: tuple[tuple[OverlayTheme, str], ...] = (
    ("system", "System"),
    ("light", "Light"),
    ("dark", "Dark"),
)
Choice = TypeVar("Choice", bound=str)

PARK_AFTER_CHOICES: tuple[int, ...] = (0, 15, 30, 60, 120, 300)
"""The park-after times offered, in seconds (0: never). A value set by hand in the file
that is not one of these is shown as itself."""


def park_after_label(seconds: float) -> str:
    """How a park-after time reads in the menu: "Never", "15 s", "1 min", "1 min 30 s"."""
    if seconds == 0:
        return "Never"
    if seconds < 60 or seconds != int(seconds):
        return f"{format_number(seconds)} s"
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes} min" + (f" {rest} s" if rest else "")


def _preference_row(title: str, explanation: str, control: QWidget) -> QWidget:
    row = QWidget()
    row.setObjectName("Row")
    line = QHBoxLayout(row)
    line.setContentsMargins(16, 12, 16, 12)
    line.setSpacing(16)
    texts = QVBoxLayout()
    texts.setSpacing(2)
    texts.addWidget(_label(title, "ActionTitle"))
    texts.addWidget(_label(explanation, "Quiet", wrap=True))
    line.addLayout(texts, 1)
    line.addWidget(control, 0, Qt.AlignmentFlag.AlignVCenter)
    return row


def _switch(name: str, checked: bool) -> QCheckBox:
    """An on/off switch named `name` for a screen reader."""
    switch = QCheckBox()
    switch.setObjectName("Switch")
    switch.setAccessibleName(name)
    switch.setChecked(checked)
    # Just the indicator (36 px in settings.qss): without text, the spacing Qt keeps
    # for it would push the switch off the right edge the other controls share.
    switch.setFixedWidth(36)
    return switch


def _segments(
    title: str, choices: Sequence[tuple[Choice, str]], current: Choice
) -> tuple[QFrame, QButtonGroup, dict[Choice, QPushButton]]:
    """One button per choice side by side, `current` checked; the group's ids are the
    choices' indexes."""
    segments = QFrame()
    segments.setObjectName("Segments")
    segments.setAccessibleName(title)
    line = QHBoxLayout(segments)
    line.setContentsMargins(0, 0, 0, 0)
    line.setSpacing(0)
    group = QButtonGroup(segments)
    group.setExclusive(True)
    buttons: dict[Choice, QPushButton] = {}
    last = len(choices) - 1
    for i, (choice, text) in enumerate(choices):
        button = QPushButton(text)
        button.setObjectName("Segment")
        button.setProperty("edge", "first" if i == 0 else "last" if i == last else "middle")
        button.setCheckable(True)
        button.setChecked(current == choice)
        button.setCursor(Qt.CursorShape.PointingHandCursor)
        button.setAccessibleName(f"{title}: {text}")
        group.addButton(button, i)
        buttons[choice] = button
        line.addWidget(button)
    return segments, group, buttons


def _park_after_menu(current: float) -> QComboBox:
    """The park-after times, `current` chosen (shown as itself when set by hand)."""
    menu = QComboBox()
    menu.setObjectName("ParkAfter")
    menu.setAccessibleName("Park an untouched card after")
    choices: list[float] = list(PARK_AFTER_CHOICES)
    if current not in choices:
        choices = sorted([*choices, current], key=lambda s: (s != 0, s))  # Never first
    for seconds in choices:
        menu.addItem(park_after_label(seconds), seconds)
    menu.setCurrentIndex(choices.index(current))
    menu.setMinimumWidth(120)
    return menu


def _glance_seconds_menu(current: int) -> QComboBox:
    """How long a result's glance stays, `current` chosen."""
    menu = QComboBox()
    menu.setObjectName("GlanceSeconds")
    menu.setAccessibleName("Keep a result's glance for")
    for seconds in GLANCE_SECONDS_CHOICES:
        menu.addItem(f"{seconds} s", seconds)
    menu.setCurrentIndex(GLANCE_SECONDS_CHOICES.index(current))
    menu.setMinimumWidth(120)
    return menu


class InTheNotch:
    """Builds the rows of the "In the notch" group from the book's overlay preferences.

    `rows` go into the page's group; `report(text)` shows a problem (a file that cannot
    be written) in the window's status line.
    """

    def __init__(self, book: PolicyBook, report: Callable[[str], None]) -> None:
        self.book = book
        self._report = report
        preferences = book.overlay
        self.glance_switch = _switch(
            "Show a glance when an action runs without asking", preferences.glance
        )
        self.glance_switch.toggled.connect(self._glance_toggled)
        self.voice_switch = _switch("Answer by voice", preferences.answer_by_voice)
        self.voice_switch.toggled.connect(
            lambda on: self._write(lambda: self.book.set_answer_by_voice(on))
        )
        segments, self.idle_group, self.idle_buttons = _segments(
            "While nothing is waiting", IDLE_CHOICES, preferences.idle
        )
        self.idle_group.idClicked.connect(self._idle_chosen)
        # The look: segments as the idle look's, three of them.
        theme_segments, self.theme_group, self.theme_buttons = _segments(
            "Look", THEME_CHOICES, preferences.theme
        )
        self.theme_group.idClicked.connect(self._theme_chosen)
        self.park_after = _park_after_menu(preferences.park_after_seconds)
        # Connected after the current value is set, so only the person's choice writes.
        self.park_after.currentIndexChanged.connect(self._park_after_chosen)
        self.glance_seconds = _glance_seconds_menu(preferences.glance_seconds)
        self.glance_seconds.currentIndexChanged.connect(self._glance_seconds_chosen)
        self.rows: list[QWidget] = [
            _preference_row(
                "Look",
                "The cards and this window: System follows your desktop's light or dark "
                "setting. Changes show on the next card, no restart.",
                theme_segments,
            ),
            _preference_row(
                "Show a glance when an action runs without asking",
                "A brief note in the notch, such as “Send email to Sam”, so nothing "
                "happens unseen.",
                self.glance_switch,
            ),
            _preference_row(
                "Keep a result's glance for",
                "What a tool shows when it finishes, such as today's events. Point at it "
                "to keep it longer, or pin it.",
                self.glance_seconds,
            ),
            _preference_row(
                "While nothing is waiting",
                "Hidden shows nothing at the top of the screen until an action asks.",
                segments,
            ),
            _preference_row(
                "Park an untouched card after",
                "A card you leave alone moves to a side notch; click it there to bring it back.",
                self.park_after,
            ),
            _preference_row(
                "Answer by voice",
                "Notch reads each card aloud and listens for yes, no or what to change; "
                "all on this computer. Ctrl+Shift+Space listens at once.",
                self.voice_switch,
            ),
        ]

    def _glance_toggled(self, on: bool) -> None:
        self._write(lambda: self.book.set_glance(on))

    def _idle_chosen(self, index: int) -> None:
        idle = IDLE_CHOICES[index][0]
        if idle != self.book.overlay.idle:
            self._write(lambda: self.book.set_idle(idle))

    def _theme_chosen(self, index: int) -> None:
        theme = THEME_CHOICES[index][0]
        if theme != self.book.overlay.theme:
            self._write(lambda: self.book.set_theme(theme))

    def _park_after_chosen(self, index: int) -> None:
        seconds = self.park_after.itemData(index)
        if isinstance(seconds, int | float) and seconds != self.book.overlay.park_after_seconds:
            self._write(lambda: self.book.set_park_after(seconds))

    def _glance_seconds_chosen(self, index: int) -> None:
        seconds = self.glance_seconds.itemData(index)
        if isinstance(seconds, int) and seconds != self.book.overlay.glance_seconds:
            self._write(lambda: self.book.set_glance_seconds(seconds))

    def _write(self, change: Callable[[], None]) -> None:
        try:
            change()
        except (PolicyWriteError, PolicyRefused) as exc:
            self._report(str(exc))
