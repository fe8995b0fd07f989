"""The author's studio (`notch preview FOLDER`): one window around the notch's own card.

Left, the tools and where the arguments come from (the preview fixture, a scenario, or
the author's JSON); in the middle, the card exactly as the notch builds it, in either
theme, with the glance of the fixture's sample result; right, what the card would return
now, "Save as scenario" and "Try in the notch"; below, `notch validate`'s problems.
Every save in the folder refreshes it (FolderWatcher); a broken save keeps the last
valid card, dimmed.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any, Final, Literal

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QComboBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMainWindow,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from notch_app.card.paths import MISSING
from notch_app.manifest.glance import find_glance, read_glance
from notch_app.ui.card_view import CardView
from notch_app.ui.overlay_settings import OverlaySettings
from notch_app.ui.settings.style import WINDOW_COLOURS, settings_style_sheet
from notch_app.ui.studio.arguments_editor import ArgumentsEditor
from notch_app.ui.studio.card_stage import CardStage
from notch_app.ui.studio.editor_launch import open_in_editor
from notch_app.ui.studio.folder import (
    FixtureChoice,
    FolderReading,
    fixture_choices,
    read_folder,
)
from notch_app.ui.studio.folder_watcher import FolderWatcher
from notch_app.ui.studio.live_result import LiveResult
from notch_app.ui.studio.notch_trial import NotchTrial
from notch_app.ui.studio.policy_trial import PolicyTrial
from notch_app.ui.studio.problems_list import ProblemsList
from notch_app.ui.studio.scenario_writer import (
    ScenarioNotSaved,
    scenario_document,
    write_scenario,
)
from notch_app.ui.studio.tool_list import ToolList
from notch_app.ui.theme import card_font, palette
from notch_app.ui.widgets.asker_strip import ICON_SIZE, Asker, installed_from
from notch_app.ui.widgets.integration_icon import InstalledIcon

Theme = Literal["dark", "light"]
WINDOW_SIZE: Final = (1360, 900)


class StudioWindow(QMainWindow):
    """The studio for the integration in `folder`.

    `reloaded()` fires after each reading of the folder is shown (at start and after
    every save that changed something); `card_painted()` the first time each new card is
    painted. `opener(path, line)` opens the editor (tests pass their own);
    `socket_path` is the running Notch to try cards in (default: the usual socket).
    """

    reloaded = Signal()
    card_painted = Signal()

    def __init__(
        self,
        folder: Path,
        *,
        theme: Theme = "dark",
        width: int | None = None,
        socket_path: Path | None = None,
        opener: Any = open_in_editor,
        watch: bool = True,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.folder = folder
        self.theme: Theme = theme
        self.card_width = width or OverlaySettings().card_width
        self.reading: FolderReading | None = None
        self.last_valid: FolderReading | None = None
        self.reload_count = 0
        self.last_reload_ms = 0.0
        """How long the last reload took: reading and checking the folder, then the card."""
        self.last_read_ms = 0.0
        """Of that, reading and checking the folder (`notch validate`'s checks)."""
        self._tool_name: str | None = None
        self._choices: list[FixtureChoice] = []
        self._choice_label: str | None = None
        self._editor_args: dict[str, Any] | None = None
        self._asker: Asker | None = None
        self._policy_tool: object = None
        self.setWindowTitle(f"Notch studio — {folder.name}")
        self.resize(*WINDOW_SIZE)
        self.setObjectName("StudioWindow")
        self.setFont(card_font())  # the card's type, not the platform's default

        left = self._make_left(theme)
        middle = self._make_middle(theme)
        right = self._make_right(socket_path)
        self._lay_out(left, middle, right, folder, opener)
        self.watcher: FolderWatcher | None = None
        if watch:
            self.watcher = FolderWatcher(folder, parent=self)
            self.watcher.changed.connect(self.reload)
        self.reload()

    def _make_left(self, theme: Theme) -> QWidget:
        """Left: the tools and where the arguments come from."""
        self.tools = ToolList()
        self.tools.picked.connect(self._tool_picked)
        self.fixture = QComboBox()
        self.fixture.setObjectName("StudioFixture")
        self.fixture.setAccessibleName("Arguments from")
        self.fixture.currentIndexChanged.connect(self._fixture_picked)
        self.theme_toggle = QPushButton("Light theme")
        self.theme_toggle.setObjectName("StudioThemeToggle")
        self.theme_toggle.setCheckable(True)
        self.theme_toggle.setChecked(theme == "light")
        self.theme_toggle.toggled.connect(lambda on: self.set_theme("light" if on else "dark"))
        left = QWidget()
        left_column = QVBoxLayout(left)
        left_column.addWidget(QLabel("Tools"))
        left_column.addWidget(self.tools, 1)
        left_column.addWidget(QLabel("Arguments from"))
        left_column.addWidget(self.fixture)
        left_column.addWidget(self.theme_toggle)
        return left

    def _make_middle(self, theme: Theme) -> QSplitter:
        """Middle: the card, and the arguments editor when chosen."""
        self.stage = CardStage()
        self._dress(theme)  # first: a style sheet set later resets the stage's palette
        self.stage.set_theme(theme)
        self.stage.painted.connect(self.card_painted.emit)
        self.arguments = ArgumentsEditor()
        self.arguments.arguments_ready.connect(self._editor_arguments)
        self.arguments.hide()
        middle = QSplitter(Qt.Orientation.Vertical)
        middle.addWidget(self.stage)
        middle.addWidget(self.arguments)
        middle.setStretchFactor(0, 3)
        middle.setStretchFactor(1, 1)
        return middle

    def _make_right(self, socket_path: Path | None) -> QWidget:
        """Right: the live result, save as scenario, try in the notch."""
        self.live = LiveResult()
        self.start_over = QPushButton("Start over")
        self.start_over.setObjectName("StudioStartOver")
        self.start_over.setToolTip("Drop your edits and show the card as proposed again")
        self.start_over.clicked.connect(lambda: self._build_card(keep_edits=False))
        saving = self._make_saving()
        trying = self._make_trying(socket_path)
        right = QWidget()
        right_column = QVBoxLayout(right)
        right_column.addWidget(self.live, 1)
        right_column.addWidget(self.start_over)
        # Asks first off and a "refuse when" rule, tried here without touching settings.
        self.policy = PolicyTrial()
        self.policy.changed.connect(lambda: self._build_card(keep_edits=True))
        right_column.addWidget(self.policy)
        right_column.addWidget(saving)
        right_column.addWidget(trying)
        return right

    def _make_saving(self) -> QGroupBox:
        """ "Save as scenario": a name, the outcome, the button and its note."""
        self.scenario_name = QLineEdit()
        self.scenario_name.setObjectName("StudioScenarioName")
        self.scenario_name.setPlaceholderText("approve-with-edits")
        self.outcome = QComboBox()
        self.outcome.setObjectName("StudioOutcome")
        self.outcome.addItems(["approved", "declined"])
        self.save_button = QPushButton("Save as scenario")
        self.save_button.setObjectName("StudioSaveScenario")
        self.save_button.clicked.connect(self.save_scenario)
        self.save_note = _note("StudioSaveNote")
        saving = QGroupBox("Save as scenario")
        saving_column = QVBoxLayout(saving)
        saving_row = QHBoxLayout()
        saving_row.addWidget(self.scenario_name, 1)
        saving_row.addWidget(self.outcome)
        saving_column.addLayout(saving_row)
        saving_column.addWidget(self.save_button)
        saving_column.addWidget(self.save_note)
        return saving

    def _make_trying(self, socket_path: Path | None) -> QGroupBox:
        """ "Try in the notch": the button and its note, over the running Notch."""
        self.trial = NotchTrial(socket_path, self)
        self.trial.answered.connect(self._trial_answered)
        self.try_button = QPushButton("Try in the notch")
        self.try_button.setObjectName("StudioTryInNotch")
        self.try_button.setToolTip(
            "Send this card, with your edits, to a running `notch run` as a real request"
        )
        self.try_button.clicked.connect(self.try_in_notch)
        self.try_note = _note("StudioTryNote")
        trying = QGroupBox("Try in the notch")
        trying_column = QVBoxLayout(trying)
        trying_column.addWidget(self.try_button)
        trying_column.addWidget(self.try_note)
        return trying

    def _lay_out(
        self, left: QWidget, middle: QSplitter, right: QWidget, folder: Path, opener: Any
    ) -> None:
        """The three columns over the problems, and the status line."""
        self.problems = ProblemsList(folder, opener)
        self.status = QLabel()
        self.status.setObjectName("StudioStatus")

        top = QSplitter(Qt.Orientation.Horizontal)
        top.addWidget(left)
        top.addWidget(middle)
        top.addWidget(right)
        top.setSizes([280, 680, 400])
        whole = QSplitter(Qt.Orientation.Vertical)
        whole.addWidget(top)
        whole.addWidget(self.problems)
        whole.setSizes([730, 170])
        self.setCentralWidget(whole)
        self.statusBar().addWidget(self.status, 1)
        QShortcut(QKeySequence("Ctrl+R"), self, self.reload)

    # --- reading the folder --------------------------------------------------------------

    def reload(self) -> None:
        """Read the folder again and show it: the problems always; the card only when the
        manifest has no errors (else the last valid card stays, dimmed)."""
        started = time.perf_counter()
        reading = read_folder(self.folder)
        self.last_read_ms = (time.perf_counter() - started) * 1000
        self.show_reading(reading)
        self.last_reload_ms = (time.perf_counter() - started) * 1000
        when = time.strftime("%H:%M:%S")
        state = "" if reading.valid else " — fix the errors below; the card is the last valid one"
        self.status.setText(f"{self.folder} · read at {when}{state}")

    def show_reading(self, reading: FolderReading) -> None:
        self.reading = reading
        if self.watcher is not None:
            self.watcher.accept(reading.fingerprint)
        self.problems.show_problems(reading.problems)
        if reading.valid and reading.manifest is not None:
            self.last_valid = reading
            manifest = reading.manifest
            icon = InstalledIcon.of(manifest, self.folder).pixmap(ICON_SIZE)
            name = " ".join(manifest.name.split())[:60] or manifest.id
            source = installed_from(self.folder, f"From “{self.folder.name}”")
            self._asker = Asker(name, source, self.folder, icon)
            self.stage.set_stale(False)
            self.tools.blockSignals(True)
            self.tools.show_tools(reading.tools, keep=self._tool_name)
            self.tools.blockSignals(False)
            self._show_tool(self.tools.current_name(), keep_edits=True)
        elif self.stage.card is not None:
            self.stage.set_stale(True)
        else:
            first = next((p for p in reading.problems if p.is_error), None)
            where = f": {first.file}:{first.line}:{first.column} {first.message}" if first else ""
            self.stage.say(f"No card yet: the manifest has errors{where}")
        self.reload_count += 1
        self.reloaded.emit()

    # --- choosing ------------------------------------------------------------------------

    def _tool_picked(self, name: str) -> None:
        self._show_tool(name, keep_edits=False)

    def _show_tool(self, name: str | None, *, keep_edits: bool) -> None:
        reading = self.last_valid
        if name is None or reading is None:
            self.stage.say("This manifest has no tools yet")
            self.live.clear()
            return
        same_tool = name == self._tool_name
        self._tool_name = name
        keep = self._choice_label if same_tool else None
        self._choices = fixture_choices(reading, name)
        labels = [c.label for c in self._choices]
        index = labels.index(keep) if keep in labels else 0
        self.fixture.blockSignals(True)
        if labels != [self.fixture.itemText(i) for i in range(self.fixture.count())]:
            self.fixture.clear()
            self.fixture.addItems(labels)
        self.fixture.setCurrentIndex(index)
        self.fixture.blockSignals(False)
        if not same_tool:
            self._editor_args = None
        self._use_choice(index, keep_edits=keep_edits and same_tool)

    def _fixture_picked(self, index: int) -> None:
        self._use_choice(index, keep_edits=False)

    def _use_choice(self, index: int, *, keep_edits: bool) -> None:
        if not 0 <= index < len(self._choices):
            return
        choice = self._choices[index]
        self._choice_label = choice.label
        entry = (
            self.last_valid.entry(self._tool_name) if self.last_valid and self._tool_name else None
        )
        if choice.kind == "editor":
            self.arguments.show()
            if entry is not None and self._editor_args is None:
                self._editor_args = self._proposed_now()
                self.arguments.start(entry.tool, self._editor_args)  # which builds the card
                return
            if entry is not None:
                self.arguments.use_tool(entry.tool)  # the problem line, for the new schema
        else:
            self.arguments.hide()
        self._build_card(keep_edits=keep_edits)

    def _proposed_now(self) -> dict[str, Any]:
        card = self.stage.card
        if card is not None and not self.stage.stale:
            return dict(card.state().proposed)
        first = next((c for c in self._choices if c.arguments is not None), None)
        return dict(first.arguments) if first and first.arguments is not None else {}

    def _editor_arguments(self, arguments: dict[str, Any]) -> None:
        self._editor_args = arguments
        if self._choice_label is not None and self._current_choice().kind == "editor":
            self._build_card(keep_edits=True)

    def _current_choice(self) -> FixtureChoice:
        index = self.fixture.currentIndex()
        return self._choices[index] if 0 <= index < len(self._choices) else self._choices[0]

    def set_theme(self, theme: Theme) -> None:
        """Show the card in `theme` (the toggle does this), keeping the author's edits."""
        if theme == self.theme:
            return
        self.theme = theme
        self._dress(theme)  # first: a style sheet set later resets the stage's palette
        self.stage.set_theme(theme)
        self.theme_toggle.blockSignals(True)
        self.theme_toggle.setChecked(theme == "light")
        self.theme_toggle.blockSignals(False)
        self._build_card(keep_edits=True)

    def _dress(self, theme: Theme) -> None:
        """The studio in the card's theme: Settings' style sheet (the card's colour tokens
        on an opaque window), so the tools around the card look as finished as it."""
        tokens = palette(theme)
        fields = (
            "#StudioWindow QPlainTextEdit, #StudioWindow QTextEdit, #StudioWindow QListView, "
            "#StudioWindow QTreeView, #StudioWindow QTableView"
        )
        self.setStyleSheet(
            settings_style_sheet(theme)
            + f"\n#StudioWindow, #StudioWindow QSplitter {{ background: "
            f"{WINDOW_COLOURS[theme]['window_fill']}; }}"
            f"\n{fields} {{ background: {tokens['field_fill']}; color: {tokens['text']}; "
            f"border: 1px solid {tokens['field_border']}; border-radius: 8px; "
            f"selection-background-color: {tokens['selection']}; }}"
        )

    # --- the card ------------------------------------------------------------------------

    def _build_card(self, *, keep_edits: bool) -> None:
        reading = self.last_valid
        name = self._tool_name
        entry = reading.entry(name) if reading is not None and name else None
        if reading is None or reading.manifest is None or entry is None:
            return
        if entry.kind == "never asks":
            choice = self._current_choice()
            glance = self._glance(choice)
            shown = "; its sample result's glance:" if glance is not None else ""
            self.stage.say(
                f"{entry.name} never asks: it is a read tool, so it runs without a card{shown}",
                glance,
            )
            self.live.clear("A read tool: no card, nothing to confirm")
            return
        choice = self._current_choice()
        arguments = (self._editor_args if choice.kind == "editor" else choice.arguments) or {}
        edits = self._edits_now() if keep_edits else {}
        if self._policy_tool is not entry.tool:
            self._policy_tool = entry.tool
            self.policy.use_tool(entry.tool)
        instead = self.policy.outcome(entry.tool, arguments)
        if not instead.card:
            self.stage.say(
                f"No card: the notch shows “{instead.person_sees}”, and the agent is told "
                f"“{instead.agent_hears}”"
            )
            self.live.clear("As the person set it, no card shows")
            return
        try:
            card = CardView(
                entry.tool,
                arguments,
                base_dir=self.folder,
                network_domains=reading.manifest.network_domains,
                theme=self.theme,
                width=self.card_width,
                asker=self._asker,
            )
        except Exception as exc:  # a card Notch cannot build is said, never a crash
            self.stage.say(f"Notch cannot draw this card: {type(exc).__name__}: {exc}")
            self.live.clear()
            return
        state = card.state()
        for path, value in edits.items():
            try:
                state.set(path, "" if value is MISSING else value)
            except Exception:  # an edit the new manifest no longer binds is dropped
                continue
        card.decided.connect(self.live.show_decision)
        self.stage.set_stale(False)
        self.stage.show_card(card, self._glance(choice))
        self.live.follow(state)

    def _edits_now(self) -> dict[str, Any]:
        card = self.stage.card
        if card is None:
            return {}
        state = card.state()
        return {path: state.value(path) for path in state.edited_paths()}

    def _glance(self, choice: FixtureChoice) -> QWidget | None:
        if choice.result is None or self.last_valid is None or self.last_valid.manifest is None:
            return None
        found = find_glance(choice.result)
        if found is None:
            return None
        reading = read_glance(found.value)
        if not reading.blocks:
            return None
        from notch_app.ui.glance import GlanceView

        return GlanceView(
            reading.blocks,
            theme=self.theme,
            width=self.card_width,
            app_icon=InstalledIcon.of(self.last_valid.manifest, self.folder),
        )

    # --- save as scenario, try in the notch ----------------------------------------------

    def save_scenario(self) -> Path | None:
        """Write the card as it is now as `scenarios/<name>.json` (the name and outcome
        from the fields above the button); the result is said under it."""
        card = self.stage.card
        reading = self.last_valid
        if card is None or reading is None or self._tool_name is None:
            self.save_note.setText("No card to save: pick a tool that asks")
            return None
        outcome: Literal["approved", "declined"] = (
            "approved" if self.outcome.currentText() == "approved" else "declined"
        )
        name = self.scenario_name.text().strip() or self.scenario_name.placeholderText()
        manifest = os.path.relpath(reading.manifest_path, self.folder / "scenarios")
        try:
            document = scenario_document(
                name=name,
                manifest=Path(manifest).as_posix(),
                tool=self._tool_name,
                state=card.state(),
                outcome=outcome,
            )
            path = write_scenario(self.folder, name, document)
        except ScenarioNotSaved as exc:
            self.save_note.setText(f"Not saved: {exc}")
            return None
        self.save_note.setText(
            f"Saved {path.relative_to(self.folder)}; run `notch test {path.relative_to(self.folder)}`"
        )
        return path

    def try_in_notch(self) -> None:
        """Send the card (its arguments with the author's edits) to a running Notch."""
        card = self.stage.card
        reading = self.last_valid
        if card is None or reading is None or reading.manifest is None or not self._tool_name:
            self.try_note.setText("No card to send: pick a tool that asks")
            return
        sent = self.trial.send(
            reading.manifest.id, self._tool_name, card.state().final_arguments(), self.folder
        )
        if not sent:
            self.try_note.setText("Still waiting for the answer to the last card in the notch")
            return
        self.try_button.setEnabled(False)
        self.try_note.setText("Sent: answer it in the notch…")

    def _trial_answered(self, line: str) -> None:
        self.try_button.setEnabled(True)
        self.try_note.setText(line)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.trial.close()
        super().closeEvent(event)


def _note(name: str) -> QLabel:
    label = QLabel()
    label.setObjectName(name)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label
