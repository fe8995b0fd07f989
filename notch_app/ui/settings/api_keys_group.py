"""The API keys group on an integration's page: one row per `auth` field.

A secret field shows only whether it is set, never its value: Set… (or Replace…) opens a
password field whose text goes straight to the OS keyring; Clear removes it after asking.
With no usable keyring the group says why and how to get one, and its buttons are off.
A field that is not secret (an account name, a server) is an ordinary text field kept in
the settings file.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLineEdit, QPushButton, QVBoxLayout, QWidget

from notch_app.manifest.model import Manifest
from notch_app.runtime.policy_book import PolicyBook, PolicyRefused, PolicyWriteError
from notch_app.runtime.secrets import AuthSpec, SecretStore, SetupProblem, auth_specs
from notch_app.ui.settings.action_panel import _label

Changed = Callable[[], None]
Confirm = Callable[[str, str], bool]


def _texts(field: AuthSpec) -> QVBoxLayout:
    texts = QVBoxLayout()
    texts.setSpacing(2)
    texts.addWidget(_label(field.label, "ActionTitle"))
    if field.description:
        texts.addWidget(_label(field.description, "Quiet", wrap=True))
    return texts


class SecretRow(QWidget):
    """A secret auth field: Set / Not set, Set… or Replace…, Clear."""

    def __init__(
        self,
        store: SecretStore,
        integration_id: str,
        field: AuthSpec,
        *,
        problem: str | None,
        changed: Changed,
        confirm: Confirm,
    ) -> None:
        super().__init__()
        self.store = store
        self.integration_id = integration_id
        self.field = field
        self._changed = changed
        self._confirm = confirm
        self.setObjectName("Row")
        self.is_set = False
        if problem is None:
            try:
                self.is_set = store.is_set(integration_id, field.key)
            except SetupProblem as exc:
                problem = str(exc)

        column = QVBoxLayout(self)
        column.setContentsMargins(16, 12, 16, 12)
        column.setSpacing(6)
        column.addLayout(self._state_line(field))
        column.addWidget(self._make_editor(field))
        self.error = _label("", "Error", wrap=True)
        self.error.setVisible(False)
        column.addWidget(self.error)
        if problem is not None:
            self.set_button.setEnabled(False)
            self.clear_button.setEnabled(False)

    def _state_line(self, field: AuthSpec) -> QHBoxLayout:
        """The field's words, Set / Not set, Set… or Replace…, Clear."""
        line = QHBoxLayout()
        line.setSpacing(12)
        line.addLayout(_texts(field), 1)
        if self.is_set:
            self.state = _label("Set", "Count")
        elif field.required:
            self.state = _label("Not set · required", "Error")
        else:
            self.state = _label("Not set", "Faint")
        self.state.setAccessibleName(f"{field.label}: {self.state.text()}")
        line.addWidget(self.state, 0, Qt.AlignmentFlag.AlignVCenter)
        self.set_button = QPushButton("Replace…" if self.is_set else "Set…")
        self.set_button.setAccessibleName(f"{self.set_button.text()} {field.label}")
        self.set_button.clicked.connect(self.open_editor)
        line.addWidget(self.set_button, 0, Qt.AlignmentFlag.AlignVCenter)
        self.clear_button = QPushButton("Clear")
        self.clear_button.setAccessibleName(f"Clear {field.label}")
        self.clear_button.setVisible(self.is_set)
        self.clear_button.clicked.connect(self.clear)
        line.addWidget(self.clear_button, 0, Qt.AlignmentFlag.AlignVCenter)
        return line

    def _make_editor(self, field: AuthSpec) -> QWidget:
        """The editor: hidden until Set… / Replace…; its text is never read back."""
        self.editor = QWidget()
        edit_line = QHBoxLayout(self.editor)
        edit_line.setContentsMargins(0, 0, 0, 0)
        edit_line.setSpacing(8)
        self.value_field = QLineEdit()
        self.value_field.setEchoMode(QLineEdit.EchoMode.Password)
        self.value_field.setInputMethodHints(
            Qt.InputMethodHint.ImhHiddenText
            | Qt.InputMethodHint.ImhSensitiveData
            | Qt.InputMethodHint.ImhNoPredictiveText
        )
        self.value_field.setPlaceholderText(field.placeholder or f"Paste the {field.label}")
        self.value_field.setAccessibleName(f"New {field.label}")
        self.value_field.returnPressed.connect(self.save)
        edit_line.addWidget(self.value_field, 1)
        self.save_button = QPushButton("Save")
        self.save_button.setObjectName("Primary")
        self.save_button.clicked.connect(self.save)
        edit_line.addWidget(self.save_button)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.close_editor)
        edit_line.addWidget(self.cancel_button)
        self.editor.setVisible(False)
        return self.editor

    def open_editor(self) -> None:
        self.editor.setVisible(True)
        self.set_button.setEnabled(False)
        self.value_field.setFocus()

    def close_editor(self) -> None:
        self.value_field.clear()
        self.editor.setVisible(False)
        self.set_button.setEnabled(True)

    def save(self) -> None:
        """Keep the typed value in the keyring; a refusal is shown and nothing is kept."""
        value = self.value_field.text()
        try:
            self.store.set(self.integration_id, self.field.key, value)
        except SetupProblem as exc:
            self._show_error(str(exc))
            return
        self.close_editor()
        self._changed()

    def clear(self) -> None:
        """Remove the secret from the keyring, after asking."""
        if not self._confirm(
            f"Clear {self.field.label}?",
            f"{self.field.label} will be removed from the keyring. The integration cannot "
            "use it until you set it again.",
        ):
            return
        try:
            self.store.clear(self.integration_id, self.field.key)
        except SetupProblem as exc:
            self._show_error(str(exc))
            return
        self._changed()

    def _show_error(self, text: str) -> None:
        self.error.setText(text)
        self.error.setVisible(True)


class PlainFieldRow(QWidget):
    """An auth field that is not secret: a text field kept in the settings file."""

    def __init__(self, book: PolicyBook, integration_id: str, field: AuthSpec) -> None:
        super().__init__()
        self.book = book
        self.integration_id = integration_id
        self.field = field
        self.setObjectName("Row")
        self.current = book.values(integration_id).auth.get(field.key, "")
        column = QVBoxLayout(self)
        column.setContentsMargins(16, 12, 16, 12)
        column.setSpacing(4)
        line = QHBoxLayout()
        line.setSpacing(16)
        line.addLayout(_texts(field), 1)
        self.value_field = QLineEdit(self.current)
        self.value_field.setFixedWidth(220)
        self.value_field.setAccessibleName(field.label)
        hint = field.placeholder or ("required" if field.required else "")
        self.value_field.setPlaceholderText(hint)
        self.value_field.editingFinished.connect(self.commit)
        line.addWidget(self.value_field, 0, Qt.AlignmentFlag.AlignVCenter)
        column.addLayout(line)
        self.error = _label("", "Error", wrap=True)
        self.error.setVisible(False)
        column.addWidget(self.error)

    def commit(self) -> None:
        text = self.value_field.text().strip()
        if text == self.current:
            return
        try:
            self.book.set_value(self.integration_id, "auth", self.field.key, text or None)
        except (PolicyRefused, PolicyWriteError) as exc:
            self.error.setText(str(exc))
            self.error.setVisible(True)
            return
        self.current = text
        self.error.setVisible(False)


class ApiKeysGroup:
    """Builds the rows for a manifest's auth fields (`rows`; empty when it has none) and,
    when secrets cannot be kept here, a `note` saying why (`problem`)."""

    def __init__(
        self,
        book: PolicyBook,
        store: SecretStore,
        manifest: Manifest,
        *,
        changed: Changed,
        confirm: Confirm,
    ) -> None:
        fields = auth_specs(manifest.auth)
        self.all_secret = bool(fields) and all(f.secret for f in fields)
        self.problem: str | None = None
        if any(f.secret for f in fields):
            self.problem = store.problem
        self.rows: list[QWidget] = []
        self.secret_rows: dict[str, SecretRow] = {}
        self.plain_rows: dict[str, PlainFieldRow] = {}
        for field in fields:
            if field.secret:
                row = SecretRow(
                    store,
                    manifest.id,
                    field,
                    problem=self.problem,
                    changed=changed,
                    confirm=confirm,
                )
                self.secret_rows[field.key] = row
                self.rows.append(row)
            else:
                plain = PlainFieldRow(book, manifest.id, field)
                self.plain_rows[field.key] = plain
                self.rows.append(plain)
        self.note = _label(self.problem or "", "Note", wrap=True) if self.problem else None

    @property
    def title(self) -> str:
        if self.all_secret:
            return "API keys"
        return "Account and API keys" if self.secret_rows else "Account"
