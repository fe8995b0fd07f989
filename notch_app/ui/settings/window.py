"""The Settings window: integrations, their actions' "Asks first", Block and guards, and
how the notch behaves (glance, idle look, parking; see `in_the_notch`).

    window = SettingsWindow(book, catalog_provider, install_dir,
                            reload_integrations=app_reload)
    window.show()

- `book`: the running Notch's `PolicyBook`; every change is written at once and the
  service sees it on its next call (the book is the service's policy).
- `catalog_provider()`: returns the current `Catalog` of loaded integrations; called on
  every redraw, so after `reload_integrations()` the new catalog shows.
- `install_dir`: the person's integrations folder ("Install from folder…" copies into it;
  only integrations inside it can be removed).
- `reload_integrations()`: called after Install, Remove and Reload so the app reloads
  its catalog from disk.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent, QKeySequence, QMouseEvent, QShortcut
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from notch_app.manifest.facts import tool_facts
from notch_app.manifest.model import Manifest
from notch_app.runtime.approval_memory import ApprovalMemory
from notch_app.runtime.catalog import Catalog, CatalogEntry
from notch_app.runtime.policy_book import PolicyBook, PolicyWriteError, has_policy
from notch_app.runtime.secrets import SecretStore
from notch_app.ui.settings.action_panel import ActionPanel, _label, manifest_words
from notch_app.ui.settings.allowances_group import (
    AllowanceSource,
    allowances_section,
    memory_section,
)
from notch_app.ui.settings.api_keys_group import ApiKeysGroup
from notch_app.ui.settings.in_the_notch import InTheNotch
from notch_app.ui.settings.install import (
    InstallError,
    check_install,
    install,
    is_installed,
    remove,
)
from notch_app.ui.settings.phone_group import PhoneChoices, PhoneGroup
from notch_app.ui.settings.preferences_group import PreferenceRow, preference_rows
from notch_app.ui.settings.style import settings_style_sheet
from notch_app.ui.theme import ThemeName, card_font, resolved_theme
from notch_app.ui.widgets.asker_strip import source_of
from notch_app.ui.widgets.integration_icon import integration_icon


class IntegrationRow(QFrame):
    """One integration in the list: icon, name, publisher, summary; click to open."""

    clicked = Signal(str)

    def __init__(self, book: PolicyBook, entry: CatalogEntry) -> None:
        super().__init__()
        manifest = entry.manifest
        self.integration_id = manifest.id
        self.setObjectName("Row")
        self.setProperty("clickable", True)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setAccessibleName(f"{manifest.name} settings")
        row = QHBoxLayout(self)
        row.setContentsMargins(14, 12, 14, 12)
        row.setSpacing(12)
        icon = QLabel()
        icon.setPixmap(integration_icon(manifest, entry.folder, 36))
        icon.setFixedSize(36, 36)
        row.addWidget(icon, 0, Qt.AlignmentFlag.AlignTop)

        text = QVBoxLayout()
        text.setSpacing(2)
        title = QHBoxLayout()
        title.setSpacing(8)
        title.addWidget(_label(manifest.name, "RowName"))
        if manifest.publisher is not None:
            title.addWidget(_label(f"by {manifest.publisher.name}", "Faint"))
        title.addStretch(1)
        text.addLayout(title)
        if manifest.summary:
            text.addWidget(_label(manifest_words(manifest.summary), "Quiet", wrap=True))
        row.addLayout(text, 1)

        count, name = _policy_summary(book, manifest)
        summary = _label(count, name)
        row.addWidget(summary, 0, Qt.AlignmentFlag.AlignVCenter)
        row.addWidget(_label("›", "Chevron"), 0, Qt.AlignmentFlag.AlignVCenter)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self.clicked.emit(self.integration_id)
        super().mouseReleaseEvent(event)


def _policy_summary(book: PolicyBook, manifest: Manifest) -> tuple[str, str]:
    actions = [t for t in manifest.tools if has_policy(t)]
    states = [book.state(manifest, t) for t in actions]
    blocked = sum(1 for s in states if s.blocked)
    off = sum(1 for s in states if not s.blocked and not s.asks_first)
    if not actions:
        return "read-only", "Count"
    if blocked:
        return f"{blocked} blocked", "CountBlocked"
    if off:
        if off == len(actions):
            return ("runs without asking" if off == 1 else "all run without asking"), "CountOff"
        return f"{off} of {len(actions)} run without asking", "CountOff"
    n = len(actions)
    return ("asks first" if n == 1 else f"all {n} ask first"), "Count"


def _group(rows: list[QWidget]) -> QFrame:
    """Rows in a rounded group with hairlines between them (a native settings look)."""
    group = QFrame()
    group.setObjectName("Group")
    column = QVBoxLayout(group)
    column.setContentsMargins(0, 0, 0, 0)
    column.setSpacing(0)
    for i, row in enumerate(rows):
        if i:
            line = QFrame()
            line.setObjectName("RowDivider")
            column.addWidget(line)
        column.addWidget(row)
    return group


def _section(title: str) -> QLabel:
    return _label(title.upper(), "SectionTitle")


class ProblemsDialog(QDialog):
    """The `notch validate` messages for a folder that could not be installed."""

    def __init__(self, parent: QWidget, summary: str, lines: list[str]) -> None:
        super().__init__(parent)
        self.setWindowTitle("Cannot install")
        self.setObjectName("SettingsWindow")
        self.resize(720, 320)
        column = QVBoxLayout(self)
        self.summary = _label(summary, "RowName", wrap=True)
        column.addWidget(self.summary)
        column.addWidget(
            _label("Fix these in the integration's files, then try again:", "Quiet", wrap=True)
        )
        self.problems = QPlainTextEdit("\n".join(lines) or summary)
        self.problems.setObjectName("ProblemList")
        self.problems.setReadOnly(True)
        self.problems.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        column.addWidget(self.problems, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        column.addWidget(buttons)


class SettingsWindow(QWidget):
    """Notch's Settings. See the module docstring for the constructor's arguments."""

    def __init__(
        self,
        book: PolicyBook,
        catalog_provider: Callable[[], Catalog],
        install_dir: Path,
        *,
        reload_integrations: Callable[[], object] | None = None,
        theme: ThemeName | None = None,
        allowances: AllowanceSource | None = None,
        parent: QWidget | None = None,
        phone: PhoneChoices | None = None,
    ) -> None:
        super().__init__(parent)
        self.book = book
        self.phone_choices = phone
        """Pairing and the paired phones of the running Notch (None: pair from there)."""
        self.allowances = allowances
        """The running service's "Allow for this session" choices (None: a Settings
        window with no Notch running behind it)."""
        self.catalog_provider = catalog_provider
        self.install_dir = Path(install_dir)
        self.reload_integrations = reload_integrations
        # The person's Look (In the notch), unless `notch settings --theme` chose one.
        self._theme_pinned = theme is not None
        self.theme: ThemeName = theme or resolved_theme(book.overlay.theme)
        self.current_id: str | None = None
        self.problems_dialog: ProblemsDialog | None = None
        # Replaceable for tests and embedding; the defaults open native dialogs.
        self.choose_folder: Callable[[], Path | None] = self._choose_folder
        self.confirm: Callable[[str, str], bool] = self._confirm
        # API keys: the OS keyring keyring chose (tests select theirs with keyring.set_keyring).
        self.secrets = SecretStore()

        self.setObjectName("SettingsWindow")
        self.setWindowTitle("Notch Settings")
        self.setFont(card_font())
        self.setStyleSheet(settings_style_sheet(self.theme))
        self.resize(720, 640)
        self.setMinimumSize(560, 420)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.stack = QStackedWidget()
        layout.addWidget(self.stack)
        self.list_page = QWidget()
        self.detail_page = QWidget()
        self.stack.addWidget(self._scrolling(self.list_page))
        self.stack.addWidget(self._scrolling(self.detail_page))
        self.status = ""

        self._redraw_pending = False
        self._unsubscribe = book.subscribe(self._schedule_redraw)
        escape = QShortcut(QKeySequence(Qt.Key.Key_Escape), self)
        escape.activated.connect(self._back_or_close)
        self.redraw()

    # --- pages ------------------------------------------------------------------------------

    def _scrolling(self, page: QWidget) -> QScrollArea:
        page.setObjectName("Page")
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(page)
        return scroll

    def _schedule_redraw(self) -> None:
        # Deferred: the change may come from a widget on the page that is about to be
        # rebuilt, and it must not be deleted inside its own signal handler.
        if not self._redraw_pending:
            self._redraw_pending = True
            QTimer.singleShot(0, self.redraw)

    def redraw(self) -> None:
        """Rebuild the visible page from the book and the catalog."""
        self._redraw_pending = False
        self._follow_look()
        catalog = self.catalog_provider()
        if self.current_id is not None and catalog.entry(self.current_id) is None:
            self.current_id = None
        if self.current_id is None:
            self._fill(self.list_page, self._list_contents(catalog))
            self.stack.setCurrentIndex(0)
        else:
            entry = catalog.entry(self.current_id)
            assert entry is not None
            self._fill(self.detail_page, self._detail_contents(entry))
            self.stack.setCurrentIndex(1)

    def _follow_look(self) -> None:
        """Restyle when the person chose another Look (here, or in another process)."""
        wanted = self.theme if self._theme_pinned else resolved_theme(self.book.overlay.theme)
        if wanted != self.theme:
            self.theme = wanted
            self.setStyleSheet(settings_style_sheet(wanted))

    def _fill(self, page: QWidget, contents: QWidget) -> None:
        old = page.layout()
        if old is None:
            old = QVBoxLayout(page)
            old.setContentsMargins(0, 0, 0, 0)
        while old.count():
            item = old.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.hide()
                widget.deleteLater()
        old.addWidget(contents)
        # Shown now, not on the layout's queued show: else the page paints one blank frame
        # on every rebuild (a preference changed, a key set).
        contents.show()

    def _page_column(self) -> tuple[QWidget, QVBoxLayout]:
        contents = QWidget()
        column = QVBoxLayout(contents)
        column.setContentsMargins(28, 22, 28, 24)
        column.setSpacing(10)
        return contents, column

    def _banner(self, column: QVBoxLayout) -> None:
        if self.book.problem is None:
            return
        banner = QFrame()
        banner.setObjectName("Banner")
        row = QHBoxLayout(banner)
        row.setContentsMargins(12, 10, 10, 10)
        self.problem_label = _label(self.book.problem, wrap=True)
        row.addWidget(self.problem_label, 1)
        dismiss = QPushButton("Dismiss")
        dismiss.clicked.connect(self.book.dismiss_problem)
        row.addWidget(dismiss, 0, Qt.AlignmentFlag.AlignTop)
        column.addWidget(banner)

    def _list_contents(self, catalog: Catalog) -> QWidget:
        contents, column = self._page_column()
        head = QHBoxLayout()
        titles = QVBoxLayout()
        titles.setSpacing(2)
        titles.addWidget(_label("Integrations", "PageTitle"))
        titles.addWidget(
            _label("Choose which actions ask before they run.", "PageSubtitle", wrap=True)
        )
        head.addLayout(titles, 1)
        self.reload_button = QPushButton("Reload")
        self.reload_button.setToolTip("Read the integration folders and the settings file again")
        self.reload_button.clicked.connect(self.reload)
        self.install_button = QPushButton("Install from folder…")
        self.install_button.setObjectName("Primary")
        self.install_button.clicked.connect(self.install_from_folder)
        head.addWidget(self.reload_button, 0, Qt.AlignmentFlag.AlignBottom)
        head.addWidget(self.install_button, 0, Qt.AlignmentFlag.AlignBottom)
        column.addLayout(head)
        self._banner(column)
        self.status_label = _label(self.status, "Status", wrap=True)
        self.status_label.setVisible(bool(self.status))
        column.addWidget(self.status_label)
        if self.allowances is not None:
            allowed = allowances_section(self.allowances, self._schedule_redraw, _group)
            if allowed is not None:
                column.addWidget(allowed)
        # The running Notch's memory of past approvals, else the one in the data dir.
        memory = getattr(self.allowances, "memory", None)
        if not isinstance(memory, ApprovalMemory):
            memory = ApprovalMemory.in_data_dir(self.book.path.parent)
        column.addWidget(memory_section(memory, self._schedule_redraw))

        self.rows: dict[str, IntegrationRow] = {}
        rows: list[QWidget] = []
        for iid in sorted(catalog.ids(), key=lambda i: _name_key(catalog, i)):
            entry = catalog.entry(iid)
            assert entry is not None
            row = IntegrationRow(self.book, entry)
            row.clicked.connect(self.open_integration)
            self.rows[iid] = row
            rows.append(row)
        column.addSpacing(6)
        if rows:
            column.addWidget(_group(rows))
        else:
            column.addWidget(
                _label("No integrations are loaded. Install one from a folder.", "Quiet", wrap=True)
            )

        column.addSpacing(14)
        column.addWidget(_section("In the notch"))
        self.in_the_notch = InTheNotch(self.book, self._set_status)
        self.glance_switch = self.in_the_notch.glance_switch
        self.idle_buttons = self.in_the_notch.idle_buttons
        self.park_after = self.in_the_notch.park_after
        self.glance_seconds = self.in_the_notch.glance_seconds
        column.addWidget(_group(self.in_the_notch.rows))
        column.addSpacing(14)
        column.addWidget(_section("Answer from your phone"))
        self.phone_group = PhoneGroup(self.book, self.phone_choices, self._set_status)
        column.addWidget(_group(self.phone_group.rows))
        column.addStretch(1)
        return contents

    def _detail_contents(self, entry: CatalogEntry) -> QWidget:
        manifest = entry.manifest
        contents, column = self._page_column()
        back = QPushButton("‹  Integrations")
        back.setObjectName("Back")
        back.setCursor(Qt.CursorShape.PointingHandCursor)
        back.clicked.connect(self.show_list)
        self.back_button = back
        column.addWidget(back, 0, Qt.AlignmentFlag.AlignLeft)
        self._banner(column)

        head = QHBoxLayout()
        head.setSpacing(14)
        icon = QLabel()
        icon.setPixmap(integration_icon(manifest, entry.folder, 52))
        icon.setFixedSize(52, 52)
        head.addWidget(icon, 0, Qt.AlignmentFlag.AlignTop)
        titles = QVBoxLayout()
        titles.setSpacing(2)
        titles.addWidget(_label(manifest.name, "PageTitle"))
        byline = f"Version {manifest.version}"
        if manifest.publisher is not None:
            byline = f"by {manifest.publisher.name} · {byline}"
        titles.addWidget(_label(byline, "Faint"))
        if manifest.summary:
            titles.addWidget(_label(manifest_words(manifest.summary), "Quiet", wrap=True))
        head.addLayout(titles, 1)
        self.remove_button: QPushButton | None = None
        if is_installed(entry.folder, self.install_dir):
            self.remove_button = QPushButton("Remove")
            self.remove_button.setObjectName("Danger")
            self.remove_button.clicked.connect(lambda: self.remove_integration(manifest.id))
            head.addWidget(self.remove_button, 0, Qt.AlignmentFlag.AlignTop)
        else:
            # Bundled, or added with --manifests: said as it is, never "Built in" for both.
            where = _label(source_of(entry), "Faint")
            where.setAccessibleName("Installed from")
            if entry.folder is not None:
                where.setToolTip(str(entry.folder))
            head.addWidget(where, 0, Qt.AlignmentFlag.AlignTop)
        column.addLayout(head)
        self._setup_sections(column, manifest)

        self.action_panels: dict[str, ActionPanel] = {}
        actions = [t for t in manifest.tools if has_policy(t)]
        quiet = [t for t in manifest.tools if not has_policy(t)]
        column.addSpacing(8)
        column.addWidget(_section("Actions"))
        if actions:
            panels: list[QWidget] = []
            for tool in actions:
                panel = ActionPanel(self.book, manifest, tool)
                self.action_panels[tool.name] = panel
                panels.append(panel)
            column.addWidget(_group(panels))
        else:
            column.addWidget(_label("This integration only reads; it never asks.", "Quiet"))
        if quiet:
            column.addSpacing(8)
            column.addWidget(_section("Never asks (read-only)"))
            rows: list[QWidget] = []
            for tool in quiet:
                row = QWidget()
                row.setObjectName("Row")
                r = QHBoxLayout(row)
                r.setContentsMargins(16, 9, 16, 9)
                r.addWidget(_label(tool.display_title), 1)
                kind = tool_facts(tool).own_acting.kind
                why = {"read": "Never asks (read-only)", "unknown": "Never asks"}.get(
                    kind, "No card"
                )
                r.addWidget(_label(why, "Faint"))
                rows.append(row)
            column.addWidget(_group(rows))
        column.addStretch(1)
        return contents

    def _setup_sections(self, column: QVBoxLayout, manifest: Manifest) -> None:
        """API keys (the keyring) and Preferences (the settings file), when it has any."""
        self.api_keys = ApiKeysGroup(
            self.book,
            self.secrets,
            manifest,
            changed=self._schedule_redraw,
            confirm=lambda title, text: self.confirm(title, text),
        )
        if self.api_keys.rows:
            column.addSpacing(8)
            column.addWidget(_section(self.api_keys.title))
            if self.api_keys.note is not None:
                column.addWidget(self.api_keys.note)
            column.addWidget(_group(self.api_keys.rows))
        self.preference_rows: dict[str, PreferenceRow] = {
            row.spec.name: row for row in preference_rows(self.book, manifest)
        }
        if self.preference_rows:
            column.addSpacing(8)
            column.addWidget(_section("Preferences"))
            column.addWidget(_group(list(self.preference_rows.values())))

    # --- navigation and commands --------------------------------------------------------------

    def open_integration(self, integration_id: str) -> None:
        """Show one integration's detail page."""
        self.current_id = integration_id
        self.redraw()
        scroll = self.stack.currentWidget()
        if isinstance(scroll, QScrollArea):
            scroll.verticalScrollBar().setValue(0)

    def show_list(self) -> None:
        """Back to the list of integrations."""
        self.current_id = None
        self.redraw()

    def _back_or_close(self) -> None:
        if self.current_id is not None:
            self.show_list()
        else:
            self.close()

    def reload(self) -> None:
        """Read the integration folders and the settings file again."""
        if self.reload_integrations is not None:
            self.reload_integrations()
        self.book.reload()
        self._set_status("Reloaded the integrations and your settings.")

    def install_from_folder(self) -> None:
        """Ask for a folder, validate it, and copy it into the integrations folder."""
        folder = self.choose_folder()
        if folder is None:
            return
        catalog = self.catalog_provider()
        loaded = {}
        for iid in catalog.ids():
            entry = catalog.entry(iid)
            loaded[iid] = entry.folder if entry is not None else None
        try:
            check = check_install(folder, self.install_dir, loaded)
            if check.replaces and not self.confirm(
                f"Replace {check.manifest.name}?",
                f"{check.manifest.name} is already installed. Replace it with version "
                f"{check.manifest.version} from {folder}?",
            ):
                return
            install(check)
        except InstallError as exc:
            self.problems_dialog = ProblemsDialog(self, exc.summary, exc.lines)
            self.problems_dialog.setStyleSheet(settings_style_sheet(self.theme))
            self.problems_dialog.open()
            return
        if self.reload_integrations is not None:
            self.reload_integrations()
        self._set_status(f"Installed {check.manifest.name} {check.manifest.version}.")
        if self.catalog_provider().entry(check.manifest.id) is not None:
            self.open_integration(check.manifest.id)

    def remove_integration(self, integration_id: str) -> None:
        """Remove an installed integration (after asking) and forget its settings."""
        entry = self.catalog_provider().entry(integration_id)
        if entry is None or entry.folder is None:
            return
        name = entry.manifest.name
        if not self.confirm(
            f"Remove {name}?",
            f"{name} will be deleted from {entry.folder} and its actions forgotten. "
            "The agent can no longer use it.",
        ):
            return
        try:
            remove(entry.folder, self.install_dir)
            self.book.reset(integration_id)
        except (InstallError, PolicyWriteError) as exc:
            self._set_status(str(exc))
            return
        if self.reload_integrations is not None:
            self.reload_integrations()
        self.current_id = None
        self._set_status(f"Removed {name}.")

    def _set_status(self, text: str) -> None:
        self.status = text
        self.redraw()

    # --- default dialogs ----------------------------------------------------------------------

    def _choose_folder(self) -> Path | None:
        chosen = QFileDialog.getExistingDirectory(
            self, "Install an integration from a folder", str(Path.home())
        )
        return Path(chosen) if chosen else None

    def _confirm(self, title: str, text: str) -> bool:
        answer = QMessageBox.question(self, title, text)
        return answer == QMessageBox.StandardButton.Yes

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.problems_dialog is not None:
            self.problems_dialog.close()
        super().closeEvent(event)

    def dispose(self) -> None:
        """Stop listening to the book (call before dropping the window for good)."""
        self._unsubscribe()


def _name_key(catalog: Catalog, integration_id: str) -> str:
    manifest = catalog.integration(integration_id)
    return (manifest.name if manifest else integration_id).casefold()
