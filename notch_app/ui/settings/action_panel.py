"""One action on an integration's detail page: Asks first, Block, and its guards."""

from __future__ import annotations

import math
from collections.abc import Callable

from pydantic import ValidationError
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from notch_app.card.view_shape import view_shape
from notch_app.manifest.model import Manifest, Tool
from notch_app.runtime.policy_book import (
    Guard,
    NotOneOfGuard,
    OverGuard,
    PolicyBook,
    PolicyRefused,
    PolicyWriteError,
)
from notch_app.runtime.policy_book.guards import refusal_sentence, rule_text
from notch_app.runtime.policy_book.schema_paths import argument_paths
from notch_app.ui.widgets.flow_layout import FlowLayout

CHIP_HEIGHT = 24
OVER = "is over"
NOT_ONE_OF = "is not one of"
ASK_ANYWAY = "Ask anyway when"
REFUSE = "Refuse when"


def _label(text: str, name: str | None = None, *, wrap: bool = False) -> QLabel:
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)  # manifest text is never markup
    if name:
        label.setObjectName(name)
    label.setWordWrap(wrap)
    return label


class GuardChip(QFrame):
    """A guard shown as "Ask anyway when amount is over 500 ×"."""

    def __init__(
        self, guard: Guard, on_remove: Callable[[Guard], None], what: str = "guard"
    ) -> None:
        super().__init__()
        self.guard = guard
        self.setObjectName("Chip")
        self.setFixedHeight(CHIP_HEIGHT)
        row = QHBoxLayout(self)
        row.setContentsMargins(8, 2, 4, 2)
        row.setSpacing(2)
        row.addWidget(_label(rule_text(guard)))
        self.remove_button = QToolButton()
        self.remove_button.setObjectName("ChipRemove")
        self.remove_button.setToolTip(f"Remove this {what}")
        self.remove_button.setAccessibleName(f"Remove {what}: {guard.describe()}")
        self.remove_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.remove_button.clicked.connect(lambda: on_remove(guard))
        row.addWidget(self.remove_button)


class ActionPanel(QWidget):
    """The controls for one action. Every change goes straight to the PolicyBook."""

    def __init__(self, book: PolicyBook, manifest: Manifest, tool: Tool) -> None:
        super().__init__()
        self.book = book
        self.manifest = manifest
        self.tool = tool
        self.setObjectName("Row")
        state = book.state(manifest, tool)

        outer = QVBoxLayout(self)
        outer.setContentsMargins(16, 14, 16, 14)
        outer.setSpacing(8)

        head = QHBoxLayout()
        text = QVBoxLayout()
        text.setSpacing(2)
        text.addWidget(_label(tool.display_title, "ActionTitle"))
        summary = one_line_summary(tool.description or "")
        if summary:
            # The description is written for the model (often a long routing prompt);
            # the person gets its first sentence, wrapped on a narrow window rather than
            # widening the page past it.
            text.addWidget(_label(summary, "Quiet", wrap=True))
        head.addLayout(text, 1)
        switches = QGridLayout()
        switches.setHorizontalSpacing(10)
        switches.setVerticalSpacing(6)
        self.asks_first = QCheckBox()
        self.asks_first.setObjectName("Switch")
        self.asks_first.setAccessibleName("Asks first")
        self.asks_first.setChecked(state.asks_first)
        self.asks_first.setEnabled(not state.blocked)
        self.asks_first.setToolTip(
            "On: a card before every call. Off: runs the moment the agent picks it."
        )
        self.asks_first.toggled.connect(self._asks_first_toggled)
        self.blocked = QCheckBox()
        self.blocked.setObjectName("Switch")
        self.blocked.setAccessibleName("Block")
        self.blocked.setChecked(state.blocked)
        self.blocked.setToolTip("Never runs; the agent is told you blocked it.")
        self.blocked.toggled.connect(self._blocked_toggled)
        right = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        for row, (text_, box) in enumerate(
            (("Asks first", self.asks_first), ("Block", self.blocked))
        ):
            caption = _label(text_)
            caption.setBuddy(box)
            caption.setEnabled(box.isEnabled())
            switches.addWidget(caption, row, 0, right)
            switches.addWidget(box, row, 1, right)
        head.addLayout(switches)
        outer.addLayout(head)

        if state.blocked:
            hint = "Blocked: never runs; the agent is told you blocked it."
        elif state.refusals:
            hint = "Refused past your limits (no card); " + (
                "asks first otherwise." if state.asks_first else "runs otherwise."
            )
        elif state.asks_first:
            hint = "Default: asks first — a card before every call."
        else:
            hint = "Runs the moment the agent picks it (default: asks first)."
        self.hint = _label(hint, "Faint", wrap=True)
        outer.addWidget(self.hint)
        if state.card_changed:
            self.note = _label(
                "Reset: the card changed since you turned Asks first off, so it asks again.",
                "Note",
                wrap=True,
            )
            outer.addWidget(self.note)

        outer.addWidget(self._guards(state.guards, state.refusals))
        self.error = _label("", "Error", wrap=True)
        self.error.hide()
        outer.addWidget(self.error)

    # --- guards ---------------------------------------------------------------------------

    def _chips(
        self, lead_text: str, rules: tuple[Guard, ...], remove: Callable[[Guard], None], what: str
    ) -> tuple[QWidget, list[GuardChip]]:
        chips_box = QWidget()
        chips = FlowLayout(chips_box, spacing=6)
        chips.setContentsMargins(0, 0, 0, 0)
        lead = _label(lead_text, "Quiet")
        lead.setFixedHeight(CHIP_HEIGHT)
        lead.setAlignment(Qt.AlignmentFlag.AlignVCenter)
        chips.addWidget(lead)
        made: list[GuardChip] = []
        for rule in rules:
            chip = GuardChip(rule, remove, what)
            made.append(chip)
            chips.addWidget(chip)
        if not rules:
            none = _label(f"… (no {what}s yet)", "Faint")
            none.setFixedHeight(CHIP_HEIGHT)
            chips.addWidget(none)
        chips.addWidget(QWidget())  # FlowLayout stretches its last item: keep chips compact
        return chips_box, made

    def _guards(self, guards: tuple[Guard, ...], refusals: tuple[Guard, ...] = ()) -> QWidget:
        box = QWidget()
        column = QVBoxLayout(box)
        column.setContentsMargins(0, 4, 0, 0)
        column.setSpacing(6)
        chips_box, self.chips = self._chips(ASK_ANYWAY, guards, self._remove_guard, "guard")
        column.addWidget(chips_box)
        refusals_box, self.refusal_chips = self._chips(
            REFUSE, refusals, self._remove_refusal, "refusal"
        )
        column.addWidget(refusals_box)
        # What a refusal tells the agent, word for word: the person sees what they set.
        self.refusal_preview = _label(
            "Tells the agent: “"
            + refusal_sentence(self.tool.display_title, refusals[0], refusals[0].describe())
            + "”"
            if refusals
            else "",
            "Faint",
            wrap=True,
        )
        self.refusal_preview.setVisible(bool(refusals))
        column.addWidget(self.refusal_preview)

        # Two lines: "Ask anyway when [argument]" / "[condition] [value] [Add guard]",
        # so the builder fits Settings at its narrowest (560 px) without a cut edge.
        editor = QVBoxLayout()
        editor.setSpacing(6)
        first, second = QHBoxLayout(), QHBoxLayout()
        first.setSpacing(6)
        second.setSpacing(6)
        self.guard_effect = QComboBox()
        self.guard_effect.setAccessibleName("Effect")
        self.guard_effect.addItems([ASK_ANYWAY, REFUSE])
        self.guard_effect.setToolTip(
            "Ask anyway: the card shows even with Asks first off. Refuse: the call never "
            "runs and shows no card; the agent is told why at once."
        )
        self.guard_effect.currentTextChanged.connect(self._effect_changed)
        first.addWidget(self.guard_effect, 2)
        self.guard_argument = self._argument_menu()
        self.guard_kind = QComboBox()
        self.guard_kind.setAccessibleName("Condition")
        self.guard_kind.addItems([OVER, NOT_ONE_OF])
        self.guard_value = QLineEdit()
        self.guard_value.setAccessibleName("Value")
        self.guard_value.setPlaceholderText("500")
        self.guard_kind.currentTextChanged.connect(self._kind_changed)
        self.guard_argument.currentIndexChanged.connect(self._argument_changed)
        self.guard_value.returnPressed.connect(self._add_guard)
        self.add_guard_button = QPushButton("Add guard")
        self.add_guard_button.clicked.connect(self._add_guard)
        # A long argument name must not widen the page past its window (issue 22:
        # Settings cut at the right edge): the menus shrink, their lists stay whole.
        for menu in (self.guard_effect, self.guard_argument, self.guard_kind):
            menu.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
            )
            menu.setMinimumContentsLength(6)
        self.guard_value.setMinimumWidth(60)
        first.addWidget(self.guard_argument, 3)
        second.addWidget(self.guard_kind, 2)
        second.addWidget(self.guard_value, 3)
        second.addWidget(self.add_guard_button)
        editor.addLayout(first)
        editor.addLayout(second)
        column.addLayout(editor)
        self._argument_changed()
        if self.guard_argument.count() == 0:
            for w in (self.guard_effect, self.guard_argument, self.guard_kind, self.guard_value):
                w.setEnabled(False)
            self.add_guard_button.setEnabled(False)
        return box

    def _argument_menu(self) -> QComboBox:
        """The guard builder's argument menu, in the person's words for each argument
        (the card's label: "Approval PIN", "Payee IBAN"), never its key (`approval_pin`,
        `payee.iban`); the key is in the tooltip."""
        menu = QComboBox()
        menu.setAccessibleName("Argument")
        infos = argument_paths(self.tool)
        labels = [field_label(self.tool, info.path, info.title) for info in infos]
        for info, label in zip(infos, labels, strict=True):
            shown = label if labels.count(label) == 1 else f"{label} ({info.path})"
            menu.addItem(shown, info)
            menu.setItemData(menu.count() - 1, info.path, Qt.ItemDataRole.ToolTipRole)
        return menu

    def _effect_changed(self, effect: str) -> None:
        self.add_guard_button.setText("Add refusal" if effect == REFUSE else "Add guard")

    def _argument_changed(self) -> None:
        info = self.guard_argument.currentData()
        numeric = getattr(info, "numeric", None)
        # Suggest the condition that fits what the argument holds.
        self.guard_kind.setCurrentText(OVER if numeric else NOT_ONE_OF)

    def _kind_changed(self, kind: str) -> None:
        # A neutral hint: an example address would mislead beside an invoice number.
        self.guard_value.setPlaceholderText(
            "a number, e.g. 500" if kind == OVER else "allowed, comma-separated"
        )

    def _add_guard(self) -> None:
        info = self.guard_argument.currentData()
        argument = info.path if info is not None else self.guard_argument.currentText()
        raw = self.guard_value.text().strip()
        guard: Guard
        try:
            if self.guard_kind.currentText() == OVER:
                limit = float(raw.replace(",", ""))
                if not math.isfinite(limit):
                    raise ValueError
                number: int | float = int(limit) if limit.is_integer() else limit
                guard = OverGuard(argument=argument, limit=number)
            else:
                allowed = [v.strip() for v in raw.split(",") if v.strip()]
                if not allowed:
                    self._show_error("Type the allowed values, separated by commas.")
                    return
                guard = NotOneOfGuard(argument=argument, allowed=allowed)
        except ValueError:  # also pydantic's ValidationError
            if self.guard_kind.currentText() == OVER:
                self._show_error(f"Type a number for “{argument} is over …”, e.g. 500.")
            else:
                self._show_error("Those values are too long or too many.")
            return
        if self.guard_effect.currentText() == REFUSE:
            self._apply(lambda: self.book.add_refusal(self.manifest, self.tool, guard))
        else:
            self._apply(lambda: self.book.add_guard(self.manifest, self.tool, guard))

    def _remove_guard(self, guard: Guard) -> None:
        self._apply(lambda: self.book.remove_guard(self.manifest, self.tool, guard))

    def _remove_refusal(self, refusal: Guard) -> None:
        self._apply(lambda: self.book.remove_refusal(self.manifest, self.tool, refusal))

    # --- switches ---------------------------------------------------------------------------

    def _asks_first_toggled(self, on: bool) -> None:
        self._apply(lambda: self.book.set_asks_first(self.manifest, self.tool, on))

    def _blocked_toggled(self, on: bool) -> None:
        self._apply(lambda: self.book.block(self.manifest, self.tool, on))

    def _apply(self, change: Callable[[], None]) -> None:
        try:
            change()  # the book notifies the window, which redraws this page
        except (PolicyRefused, PolicyWriteError, ValidationError) as exc:
            self._show_error(str(exc))
            self._sync_switches()

    def _sync_switches(self) -> None:
        # A refused change must not leave a switch showing a state the book does not hold.
        state = self.book.state(self.manifest, self.tool)
        for box, value in ((self.asks_first, state.asks_first), (self.blocked, state.blocked)):
            box.blockSignals(True)
            box.setChecked(value)
            box.blockSignals(False)

    def _show_error(self, message: str) -> None:
        self.error.setText(message)
        self.error.show()


SUMMARY_CHARS = 90


_ACRONYMS = frozenset({"iban", "bic", "id", "url", "pin", "cc", "bcc", "sms", "ip", "api"})


def field_label(tool: Tool, path: str, title: str | None = None) -> str:
    """An argument as a person reads it: the card's label for it, else its schema title,
    else its key in words ("payee.iban" → "Payee IBAN", "invoice_id" → "Invoice ID")."""
    if tool.confirmation is not None:
        try:
            bound = view_shape(tool).by_path.get(path)
        except ValueError:
            bound = None
        if bound is not None and bound.label.strip():
            return " ".join(bound.label.split())
    if title and title.strip():
        return " ".join(title.split())
    words = path.replace("_", " ").replace("-", " ").replace(".", " ").split()
    said = [w.upper() if w.lower() in _ACRONYMS else w.lower() for w in words]
    text = " ".join(said) or path
    return text[:1].upper() + text[1:]


def manifest_words(text: str) -> str:
    """Manifest text without its markdown marks (`code`, **bold**): Settings shows it as
    plain text, where the marks would read as stray backticks and stars."""
    return text.replace("**", "").replace("`", "")


def one_line_summary(description: str) -> str:
    """A tool description's first sentence on one line, at most SUMMARY_CHARS long
    ("…" when cut): what the person reads about an action in Settings. The rest of a
    model-facing description (when to call it, argument advice) is not for them."""
    first = " ".join(manifest_words(description).split("\n\n", 1)[0].split())
    for end in (". ", "? ", "! "):
        cut = first.find(end)
        if cut > 0:
            first = first[: cut + 1]
    if len(first) > SUMMARY_CHARS:
        first = first[: SUMMARY_CHARS - 1].rstrip() + "…"
    return first
