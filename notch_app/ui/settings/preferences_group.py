"""The Preferences group on an integration's page: one row per manifest preference, its
control chosen by the preference's type (text, select, toggle, number).

Every change is checked against the preference's type and written to the settings file
at once through the `PolicyBook`; the integration's server gets it as an environment
variable the next time it starts. A value equal to the manifest's default is not stored,
so a later default applies. A stored value that no longer fits (the file edited by hand)
is shown as it is with what to do, never silently replaced.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QComboBox, QHBoxLayout, QLineEdit, QVBoxLayout, QWidget

from notch_app.manifest.model import Manifest
from notch_app.runtime.policy_book import PolicyBook, PolicyRefused, PolicyWriteError
from notch_app.runtime.secrets import (
    BadPreference,
    PreferenceSpec,
    environment_text,
    preference_specs,
    preference_value,
)
from notch_app.ui.settings.action_panel import _label

Value = str | bool | int | float
Commit = Callable[[Value | None], None]
"""Called with the person's new value; None goes back to the manifest's default."""
ControlBuilder = Callable[[PreferenceSpec, Value | None, Commit], QWidget]

FIELD_WIDTH = 220


def _text(spec: PreferenceSpec, current: Value | None, commit: Commit) -> QWidget:
    field = QLineEdit("" if current is None else str(current))
    field.setFixedWidth(FIELD_WIDTH)
    if spec.placeholder:
        field.setPlaceholderText(spec.placeholder)
    # Emptied: back to the default (or unset); the text is the value as typed.
    field.editingFinished.connect(lambda: commit(field.text() or None))
    return field


def _number(spec: PreferenceSpec, current: Value | None, commit: Commit) -> QWidget:
    field = QLineEdit("" if current is None else environment_text(current))
    field.setFixedWidth(120)
    field.setAlignment(Qt.AlignmentFlag.AlignRight)
    field.setPlaceholderText(spec.placeholder or "a number")

    def finished() -> None:
        text = field.text().strip()
        if not text:
            commit(None)
            return
        try:
            number: int | float = int(text)
        except ValueError:
            try:
                number = float(text)
            except ValueError:
                commit(text)  # refused by the type check, with the reason shown
                return
        commit(number)

    field.editingFinished.connect(finished)
    return field


def _toggle(spec: PreferenceSpec, current: Value | None, commit: Commit) -> QWidget:
    switch = QCheckBox()
    switch.setObjectName("Switch")
    switch.setFixedWidth(36)  # the indicator only, like the other switches in Settings
    switch.setChecked(current is True)
    switch.toggled.connect(lambda on: commit(bool(on)))
    return switch


def _select(spec: PreferenceSpec, current: Value | None, commit: Commit) -> QWidget:
    menu = QComboBox()
    menu.setMinimumWidth(160)
    for value, label in spec.options:
        menu.addItem(label, value)
    if current is not None and menu.findData(current) < 0:
        menu.addItem(f"{current} (not an option)", current)  # shown as it is in the file
    if current is not None:
        menu.setCurrentIndex(menu.findData(current))
    else:
        menu.setCurrentIndex(-1)
    # Connected after the current value is set, so only the person's choice writes.
    menu.currentIndexChanged.connect(lambda i: commit(menu.itemData(i)))
    return menu


CONTROLS: dict[str, ControlBuilder] = {
    "text": _text,
    "select": _select,
    "toggle": _toggle,
    "number": _number,
}
"""Preference type -> the control that edits it; an unknown type is edited as text."""


class PreferenceRow(QWidget):
    """One preference: title, description, its control, and a line for a problem."""

    def __init__(self, book: PolicyBook, integration_id: str, spec: PreferenceSpec) -> None:
        super().__init__()
        self.book = book
        self.integration_id = integration_id
        self.spec = spec
        self.setObjectName("Row")
        stored = book.values(integration_id).preferences.get(spec.name)
        self.current: Value | None = stored if stored is not None else spec.default

        column = QVBoxLayout(self)
        column.setContentsMargins(16, 12, 16, 12)
        column.setSpacing(4)
        line = QHBoxLayout()
        line.setSpacing(16)
        texts = QVBoxLayout()
        texts.setSpacing(2)
        texts.addWidget(_label(spec.title, "ActionTitle"))
        if spec.description:
            texts.addWidget(_label(spec.description, "Quiet", wrap=True))
        line.addLayout(texts, 1)
        self.control = CONTROLS.get(spec.type, _text)(spec, self.current, self.commit)
        self.control.setAccessibleName(spec.title)
        line.addWidget(self.control, 0, Qt.AlignmentFlag.AlignVCenter)
        column.addLayout(line)
        self.error = _label("", "Error", wrap=True)
        self.error.setVisible(False)
        column.addWidget(self.error)
        if stored is not None:
            try:
                preference_value(spec, stored)
            except BadPreference as exc:
                self._show_error(f"The saved value does not fit: {exc}. Choose or type a new one.")

    def commit(self, value: Value | None) -> None:
        """Check and store the person's value (None: the default). A refused value stays
        on screen with the reason; nothing is written."""
        if value is not None and value == self.current:
            return  # focus left the field without a change
        try:
            if value is not None:
                value = preference_value(self.spec, value)
            keep = None if value == self.spec.default else value
            self.book.set_value(self.integration_id, "preferences", self.spec.name, keep)
        except (BadPreference, PolicyRefused, PolicyWriteError) as exc:
            self._show_error(str(exc))
            return
        self.current = value if value is not None else self.spec.default
        self.error.setVisible(False)

    def _show_error(self, text: str) -> None:
        self.error.setText(text)
        self.error.setVisible(True)


def preference_rows(book: PolicyBook, manifest: Manifest) -> list[PreferenceRow]:
    """A row per preference the manifest declares (none: an empty list)."""
    return [PreferenceRow(book, manifest.id, s) for s in preference_specs(manifest.preferences)]
