""" "Allow for this session" and "Always allow": approvals with a scope, under the card's
confirm button and never in its place.

Both approve this call as confirm does (the same gate, the same hold while the card has
just appeared or changed under the pointer), and say how far the yes reaches: the rest
of this agent's session, or from now on (the action's Asks first turns off, exactly as in
Settings). Block rules and guards still win over either; that is the service's side.
They are the person's alone: nothing on the socket reaches them.

Each says exactly what it covers (issue 20): "Allow `npm test` in ~/code/app for this
session" on a shell card (its command's prefix in its folder, `card/scope_reach.py`),
"Always allow Send email"; "Always allow" is not offered for a shell command, a file
edit, a risky call or a destructive action. The labels follow the card's values.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, Literal

from PySide6.QtCore import QEvent, QRect, QSize, Qt
from PySide6.QtGui import QEnterEvent, QPainter, QPaintEvent, QPalette, QPen
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QSizePolicy, QWidget

from notch_app.card.scope_reach import always_label, session_reach
from notch_app.card.state import CardState
from notch_app.ui.theme import Look, style_text

Scope = Literal["once", "session", "always"]

CHOICES: Final[tuple[tuple[Literal["session", "always"], str, str], ...]] = (
    (
        "session",
        "Allow for this session",
        "Approve this, and let this agent do this action again without asking until its "
        "session ends",
    ),
    (
        "always",
        "Always allow",
        "Approve this, and turn Asks first off for this action (as in Settings)",
    ),
)


_MEASURED: dict[tuple[str, str], tuple[QSize, QSize, dict[int, int]]] = {}
"""(a font's key, the words) → a ScopeButton's size hint, minimum size hint and height
per width: the same words in the same font on every card, measured once."""
_MAX_MEASURED: Final = 256

_FLAGS: Final = int(
    Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter | Qt.TextFlag.TextWordWrap
)
"""How a ScopeButton's words are measured and drawn: worked out once, not on each of the
~25 size questions and the paint of every card (Qt flag arithmetic costs microseconds)."""


class ScopeButton(QPushButton):
    """A flat link-coloured choice whose words wrap onto more lines where the card is too
    narrow for them, right-aligned: what a scope covers ("Allow `npm test` in ~/shop for
    this session") is never cut at either end, on a 280 px card too."""

    _PAD = 4
    _TALL = 7
    """Above and below the words together: a flat QPushButton's own height for them."""

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        # Its height for a width is the size policy's to say (QWidget's own answer with
        # no layout), so no Python override is asked it some 25 times a card.
        policy = QSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)
        self._measured: tuple[str, QSize, QSize, dict[int, int]] | None = None
        """(the words measured, size hint, minimum size hint, height per width): a layout
        pass asks each many times for the same words (~20 text measurements a card);
        looked up again when the words or the font change (`_MEASURED`)."""

    def _sizes(self) -> tuple[str, QSize, QSize, dict[int, int]]:
        self.ensurePolished()  # the card's font, not the default one, is measured
        text = self.text()
        measured = self._measured
        if measured is not None and measured[0] == text:
            return measured
        key = (self.font().key(), text)
        kept = _MEASURED.get(key)
        if kept is None:
            metrics = self.fontMetrics()
            # Measured as heightForWidth measures (the wrapped layout's own width, not the
            # rounded advance), so at its hinted width the words stay on one line.
            one_line = metrics.boundingRect(QRect(0, 0, 100_000, 1_000), _FLAGS, text)
            hint = QSize(one_line.width() + 2 * self._PAD + 2, metrics.height() + self._TALL)
            widest = max((metrics.horizontalAdvance(w) for w in text.split()), default=0)
            least = QSize(widest + 2 * self._PAD, metrics.height() + self._TALL)
            kept = (hint, least, {})
            if len(_MEASURED) >= _MAX_MEASURED:
                _MEASURED.pop(next(iter(_MEASURED)))
            _MEASURED[key] = kept
        measured = self._measured = (text, *kept)
        return measured

    def sizeHint(self) -> QSize:
        return QSize(self._sizes()[1])

    def minimumSizeHint(self) -> QSize:
        return QSize(self._sizes()[2])

    def heightForWidth(self, width: int) -> int:
        text, _hint, _least, heights = self._sizes()
        height = heights.get(width)
        if height is None:
            room = QRect(0, 0, max(1, width - 2 * self._PAD), 10_000)
            height = heights[width] = (
                self.fontMetrics().boundingRect(room, _FLAGS, text).height() + self._TALL
            )
        return height

    def changeEvent(self, event: QEvent) -> None:
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._measured = None
        super().changeEvent(event)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        group = QPalette.ColorGroup.Active if self.isEnabled() else QPalette.ColorGroup.Disabled
        painter.setPen(self.palette().color(group, QPalette.ColorRole.ButtonText))
        font = self.font()
        font.setUnderline(self.underMouse() and self.isEnabled())
        painter.setFont(font)
        inner = self.rect().adjusted(self._PAD, 0, -self._PAD, 0)  # words centred, as a button's
        painter.drawText(inner, _FLAGS, self.text())
        if self.hasFocus():
            pen = QPen(self.palette().color(group, QPalette.ColorRole.ButtonText))
            pen.setStyle(Qt.PenStyle.DotLine)
            painter.setPen(pen)
            painter.drawRect(self.rect().adjusted(0, 0, -1, -1))

    def enterEvent(self, event: QEnterEvent) -> None:
        self.update()
        super().enterEvent(event)

    def leaveEvent(self, event: QEvent) -> None:
        self.update()
        super().leaveEvent(event)


def _link_palette(look: Look) -> QPalette:
    """The link colour while confirm is open; faint, like the held confirm, while not:
    the same two colours on every card of a look."""

    def make() -> QPalette:
        palette = QPalette(look.tinted_palette("ShowMore", QPalette.ColorRole.ButtonText, "link"))
        palette.setColor(
            QPalette.ColorGroup.Disabled, QPalette.ColorRole.ButtonText, look.color("text_faint")
        )
        return palette

    return look.kept("scope-choices:link", make)


class _Buttons(dict[Literal["session", "always"], "ScopeButton"]):
    """The choices' buttons by scope; one not made yet is made when first asked for."""

    def __init__(self, make: Callable[[Literal["session", "always"]], ScopeButton]) -> None:
        super().__init__()
        self._make = make

    def __missing__(self, scope: Literal["session", "always"]) -> ScopeButton:
        return self._make(scope)


class ScopeChoices(QWidget):
    """A quiet right-aligned line: "or  Allow for this session · Always allow".
    `choose(scope)` is called with the scope of a click; the buttons are the card's
    confirm buttons too (gated and held with it)."""

    def __init__(
        self,
        look: Look,
        choose: Callable[[Scope], None],
        parent: QWidget | None = None,
        made: Callable[[ScopeButton], None] | None = None,
    ) -> None:
        """`made(button)`: told of each button as it is made ("Always allow" is made only
        when the card's values first offer it, or when asked for: `buttons`)."""
        super().__init__(parent)
        self.setObjectName("ScopeChoices")
        self._look = look
        self._choose = choose
        self._made = made
        row = self._row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(2)
        row.addStretch(1)
        # Each part made inside the line (one moved in by the layout costs a reparent).
        lead = QLabel("or", self)
        style_text(lead, "ListMore", look)
        row.addWidget(lead)
        self.buttons: dict[Literal["session", "always"], ScopeButton] = _Buttons(self._make)
        """The choices' buttons; "always" with its "·" is made when first offered (a
        destructive or shell card never offers it) or first asked for here."""
        self._always_dot: QLabel | None = None
        self._make("session")
        self.offers_always = True
        """Whether "Always allow" is offered for the card's values now."""
        self.session_label = ""
        """What "Allow for this session" covers now ("`npm test` in ~/code/app")."""

    def _make(self, scope: Literal["session", "always"], words: str | None = None) -> ScopeButton:
        """The button of `scope` (with `words`, else its plain ones), at the end of the
        line: "always" after its "·", hidden until `refresh` offers it."""
        look = self._look
        text, why = next((t, w) for s, t, w in CHOICES if s == scope)
        if scope == "always":
            dot = self._always_dot = QLabel("·", self)
            style_text(dot, "ListMore", look)
            self._row.addWidget(dot)
            text = words or text
        button = ScopeButton(text, self)
        button.setObjectName(f"Scope-{scope}")
        button.setFlat(True)
        button.setAutoDefault(False)
        button.setCursor(Qt.CursorShape.PointingHandCursor)
        button.setFont(look.font("ListMore"))
        button.setPalette(_link_palette(look))
        button.setAccessibleName(text)
        button.setAccessibleDescription(why)
        button.setStatusTip(why if words is None else self._always_why())
        button.clicked.connect(lambda _c=False, s=scope: self._choose(s))
        self._row.addWidget(button)
        dict.__setitem__(self.buttons, scope, button)
        if scope == "always":
            # Made after the card is on screen (an edit offers it), or on a card that
            # offers it not: shown only while offered, as it was when made with the line.
            offered = self.offers_always if words is None else True
            button.setVisible(offered)
            if self._always_dot is not None:
                self._always_dot.setVisible(offered)
        if self._made is not None:
            self._made(button)
        return button

    def _always_why(self) -> str:
        title = self._state.tool.display_title
        return f"Approve this, and turn Asks first off for {title} (undo in Settings or from the notch)"

    def follow(self, state: CardState) -> None:
        """Say what each choice covers for `state`'s values, now and after each change."""
        self._state = state
        self._read_from: object = None
        self.refresh()
        state.subscribe(self.refresh)

    def refresh(self) -> None:
        state = self._state
        final = state.arguments()  # read, not executed: no copy
        if final is self._read_from:
            return  # the same arguments (copy-on-write): a hold or a gate changed, not them
        self._read_from = final
        reach = session_reach(state.tool, final)
        session = self.buttons["session"]
        # The action is the card's own: its name is in the tooltip. A command's prefix
        # and folder are the whole point: on the button.
        text = (
            "Allow for this session"
            if reach.kind == "action"
            else f"Allow {reach.label} for this session"
        )
        if text != session.text():
            self.session_label = reach.label
            session.setText(text)
            session.setAccessibleName(text)
            why = (
                f"Approve this, and let this agent run {reach.label} again without asking "
                "until its session ends"
                if reach.kind != "action"
                else f"Approve this, and let this agent {state.tool.display_title.lower()} "
                "again without asking until its session ends"
            )
            session.setStatusTip(why)  # the tooltip is the card gate's (why it is closed)
        always = always_label(state.tool, final)
        self.offers_always = always is not None
        button = self.buttons.get("always")
        if button is None:
            if always is not None:
                self._make("always", always)
            return
        button.setVisible(always is not None)
        if self._always_dot is not None:
            self._always_dot.setVisible(always is not None)
        if always is not None and always != button.text():
            button.setText(always)
            button.setAccessibleName(always)
            button.setStatusTip(self._always_why())
