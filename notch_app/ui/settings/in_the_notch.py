"""The "In the notch" group on the Settings list page: the look (System / Light / Dark),
the glance, the idle look, parking.

Every control writes the settings file at once through the `PolicyBook`; a running Notch
hears the change (its book subscription) and applies it to the overlay.
"""

from __future__ import annotations

from collections.abc import Callable

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


class InTheNotch:
    """Builds the rows of the "In the notch" group from the book's overlay preferences.

    `rows` go into the page's group; `report(text)` shows a problem (a file that cannot
    be written) in the window's status line.
    """

    def __init__(self, book: PolicyBook, report: Callable[[str], None]) -> None:
        self.book = book
        self._report = report
        preferences = book.overlay

        self.glance_switch = QCheckBox()
        self.glance_switch.setObjectName("Switch")
        self.glance_switch.setAccessibleName("Show a glance when an action runs without asking")
        self.glance_switch.setChecked(preferences.glance)
        # Just the indicator (36 px in settings.qss): without text, the spacing Qt keeps
        # for it would push the switch off the right edge the other controls share.
        self.glance_switch.setFixedWidth(36)
        self.glance_switch.toggled.connect(self._glance_toggled)

        self.voice_switch = QCheckBox()
        self.voice_switch.setObjectName("Switch")
        self.voice_switch.setAccessibleName("Answer by voice")
        self.voice_switch.setChecked(preferences.answer_by_voice)
        self.voice_switch.setFixedWidth(36)
        self.voice_switch.toggled.connect(
            lambda on: self._write(lambda: self.book.set_answer_by_voice(on))
        )

        segments = QFrame()
        segments.setObjectName("Segments")
        segments.setAccessibleName("While nothing is waiting")
        seg_line = QHBoxLayout(segments)
        seg_line.setContentsMargins(0, 0, 0, 0)
        seg_line.setSpacing(0)
        self.idle_group = QButtonGroup(segments)
        self.idle_group.setExclusive(True)
        self.idle_buttons: dict[IdleLook, QPushButton] = {}
        for i, (idle, text) in enumerate(IDLE_CHOICES):
            button = QPushButton(text)
            button.setObjectName("Segment")
            button.setProperty("edge", "first" if i == 0 else "last")
            button.setCheckable(True)
            button.setChecked(preferences.idle == idle)
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            button.setAccessibleName(f"While nothing is waiting: {text}")
            self.idle_group.addButton(button, i)
            self.idle_buttons[idle] = button
            seg_line.addWidget(button)
        self.idle_group.idClicked.connect(self._idle_chosen)

        # The look: segments as the idle look's, three of them.
        theme_segments = QFrame()
        theme_segments.setObjectName("Segments")
        theme_segments.setAccessibleName("Look")
        theme_line = QHBoxLayout(theme_segments)
        theme_line.setContentsMargins(0, 0, 0, 0)
        theme_line.setSpacing(0)
        self.theme_group = QButtonGroup(theme_segments)
        self.theme_group.setExclusive(True)
        self.theme_buttons: dict[OverlayTheme, QPushButton] = {}
        last = len(THEME_CHOICES) - 1
        for i, (theme, text) in enumerate(THEME_CHOICES):
            button = QPushButton(text)
            button.setObjectName("Segment")
            button.setProperty("edge", "first" if i == 0 else "last" if i == last else "middle")
            button.setCheckable(True)
            button.setChecked(preferences.theme == theme)
            button.setCursor(Qt.CursorShape.PointingHandCursor)
            button.setAccessibleName(f"Look: {text}")
            self.theme_group.addButton(button, i)
            self.theme_buttons[theme] = button
            theme_line.addWidget(button)
        self.theme_group.idClicked.connect(self._theme_chosen)

        self.park_after = QComboBox()
        self.park_after.setObjectName("ParkAfter")
        self.park_after.setAccessibleName("Park an untouched card after")
        current = preferences.park_after_seconds
        choices: list[float] = list(PARK_AFTER_CHOICES)
        if current not in choices:
            choices = sorted([*choices, current], key=lambda s: (s != 0, s))  # Never first
        for seconds in choices:
            self.park_after.addItem(park_after_label(seconds), seconds)
        self.park_after.setCurrentIndex(choices.index(current))
        self.park_after.setMinimumWidth(120)
        # Connected after the current value is set, so only the person's choice writes.
        self.park_after.currentIndexChanged.connect(self._park_after_chosen)

        self.glance_seconds = QComboBox()
        self.glance_seconds.setObjectName("GlanceSeconds")
        self.glance_seconds.setAccessibleName("Keep a result's glance for")
        for seconds in GLANCE_SECONDS_CHOICES:
            self.glance_seconds.addItem(f"{seconds} s", seconds)
        self.glance_seconds.setCurrentIndex(
            GLANCE_SECONDS_CHOICES.index(preferences.glance_seconds)
        )
        self.glance_seconds.setMinimumWidth(120)
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
