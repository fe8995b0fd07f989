"""CardView: one confirmation request as a live, editable card.

The widget tree comes from the block registry (`notch_app.ui.blocks`); everything the
card decides (values, gating, visibility, final arguments) comes from the Qt-free
CardState. After each edit CardView re-applies only what depends on bindings: live
texts, `visibleIf`, watched values, field errors and the confirm gate.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QObject, QSize, Qt, Signal
from PySide6.QtGui import QGuiApplication, QKeyEvent
from PySide6.QtWidgets import (
    QAbstractButton,
    QComboBox,
    QFrame,
    QLabel,
    QLayout,
    QLineEdit,
    QPlainTextEdit,
    QScrollArea,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from notch_app.card.state import CardState
from notch_app.manifest.model import Tool
from notch_app.manifest.view import CardBlock
from notch_app.ui.blocks import CardContext, build_block
from notch_app.ui.blocks._context import unshown
from notch_app.ui.blocks.inputs import InputEditor
from notch_app.ui.blocks.layout import add_card_header
from notch_app.ui.widgets.link_prompt import LinkPrompt
from notch_app.ui.widgets.markdown_view import link_allowed

MAX_BODY_HEIGHT = 520
"""The card's content scrolls past this height; header and footer stay put."""


class _Body(QScrollArea):
    """The scrolling middle of the card, as tall as its content up to MAX_BODY_HEIGHT."""

    def __init__(self, content: QWidget, content_width: int) -> None:
        super().__init__()
        self._content_width = content_width
        self.setObjectName("CardBody")
        self.setWidget(content)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.viewport().setAutoFillBackground(False)
        content.setAutoFillBackground(False)
        # A scroll area hides its content's layout changes from the card: pass them on,
        # so the card grows (up to MAX_BODY_HEIGHT) when a field grows or a block appears.
        content.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.LayoutRequest:
            self.updateGeometry()
        return False

    def sizeHint(self) -> QSize:
        content = self.widget()
        width = self._content_width
        layout = content.layout()
        if layout is not None and layout.hasHeightForWidth():
            h = layout.totalHeightForWidth(width)
        else:
            h = content.sizeHint().height()
        return QSize(width, min(h, MAX_BODY_HEIGHT))

    def minimumSizeHint(self) -> QSize:
        return self.sizeHint()


class _KeyRouter(QObject):
    """Enter confirms (Ctrl+Enter inside a multiline field), Esc cancels, Enter on a
    focused button presses that button. Installed on every focusable widget of the card."""

    def __init__(self, view: CardView) -> None:
        super().__init__(view)
        self._view = view

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.KeyPress:
            return False
        assert isinstance(event, QKeyEvent)
        key = event.key()
        if key == Qt.Key.Key_Escape:
            if isinstance(watched, QComboBox) and watched.view().isVisible():
                return False
            self._view.press("cancel")
            return True
        if key not in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            return False
        ctrl = bool(event.modifiers() & Qt.KeyboardModifier.ControlModifier)
        if isinstance(watched, QPlainTextEdit) and not ctrl:
            return False  # a new line
        if (
            watched.property("chipsEntry")
            and isinstance(watched, QLineEdit)
            and watched.text().strip()
        ):
            return False  # the chips field adds a chip
        if isinstance(watched, QAbstractButton) and not ctrl:
            if watched.isEnabled():
                watched.click()
            return True
        self._view.press("confirm")
        return True


class CardView(QWidget):
    """One confirmation request, rendered from the tool's confirmation view.

    `decided(approved, final_arguments, edited_paths)` fires once: on confirm (only while
    CardState allows it) with the edited arguments, on cancel with `(False, {}, [])`.
    Raises ValueError (from CardState) when the tool has no usable confirmation view.
    """

    decided = Signal(bool, dict, list)

    def __init__(
        self,
        tool: Tool,
        arguments: Mapping[str, Any],
        *,
        base_dir: Path | None = None,
        network_domains: tuple[str, ...] = (),
        theme: str = "dark",
        width: int = 440,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        from notch_app.ui import theme as theme_module

        self._state = CardState(tool, arguments)
        self._decision: bool | None = None
        self.setObjectName("NotchCardView")
        self.setAttribute(Qt.WidgetAttribute.WA_TranslucentBackground, True)
        self.setFont(theme_module.card_font())
        self._link_prompt: LinkPrompt | None = None
        self._ctx = CardContext(
            state=self._state,
            theme=theme,  # type: ignore[arg-type]
            base_dir=base_dir,
            network_domains=network_domains,
            press=self._pressed,
            open_link=self.open_link,
        )

        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSizeConstraint(QLayout.SizeConstraint.SetFixedSize)
        glass = QFrame()
        glass.setObjectName("NotchCard")
        glass.setFixedWidth(width)
        outer.addWidget(glass)
        frame = QVBoxLayout(glass)
        frame.setContentsMargins(20, 18, 20, 16)
        frame.setSpacing(12)

        root = self._state.view.root
        header = QVBoxLayout()
        header.setSpacing(3)
        frame.addLayout(header)
        content = QWidget()
        content.setObjectName("CardBodyContent")
        body = QVBoxLayout(content)
        body.setContentsMargins(0, 0, 4, 0)
        body.setSpacing(12)
        footer = QVBoxLayout()
        footer.setSpacing(8)
        if isinstance(root, CardBlock):
            add_card_header(root, header, self._ctx)
            for child in root.children:
                body.addWidget(build_block(child, self._ctx))
            footer_blocks = list(root.footer)
        else:
            body.addWidget(build_block(root, self._ctx))
            footer_blocks = []
        for block in footer_blocks:
            footer.addWidget(build_block(block, self._ctx))
        if body.count():
            self._body: _Body | None = _Body(content, width - 40)
            frame.addWidget(self._body)
        else:
            self._body = None
        frame.addLayout(footer)
        self._blockers = QLabel()
        self._blockers.setObjectName("Blockers")
        self._blockers.setWordWrap(True)
        self._blockers.setTextFormat(Qt.TextFormat.PlainText)
        self._blockers.setAlignment(Qt.AlignmentFlag.AlignRight)
        frame.addWidget(self._blockers)
        self._frame = frame

        router = _KeyRouter(self)
        self._router = router
        self.installEventFilter(router)
        chain = self._ctx.focus_chain
        for w in chain:
            w.installEventFilter(router)
        for a, b in itertools.pairwise(chain):
            QWidget.setTabOrder(a, b)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._last_gate: tuple[bool, tuple[str, ...]] | None = None
        self._apply_gate()
        # Styled last: every widget is polished once here, not again at each addWidget.
        self.setStyleSheet(theme_module.style_sheet(theme))  # type: ignore[arg-type]
        self._unsubscribe = self._state.subscribe(self._changed)
        self.destroyed.connect(lambda *_: None)

    # --- the public face ---------------------------------------------------------------

    def state(self) -> CardState:
        """The card's CardState (values, gating, final arguments)."""
        return self._state

    @property
    def decision(self) -> bool | None:
        """None until decided; then True (approved) or False (declined)."""
        return self._decision

    def press(self, role: str) -> bool:
        """Press the card's `confirm` or `cancel` as the person would (Enter / Esc).
        Confirm does nothing while it is gated. Returns True when it decided the card."""
        return self._pressed(role, None)

    def input_widget(self, path: str) -> QWidget:
        """The widget a person edits for the input bound to `path`. KeyError if none."""
        return self._ctx.editors[path].field

    def editor(self, path: str) -> InputEditor:
        return self._ctx.editors[path]

    def set_via_widget(self, path: str, value: Any) -> None:
        """Change the input bound to `path` through its real widget: type into the
        field, pick the option, flip the toggle, add or remove chips. Raises KeyError
        for an unbound path and ValueError for a value the widget cannot take (an
        option that does not exist)."""
        editor = self._ctx.editors[path]
        if not self.is_input_visible(path):
            raise ValueError(f"the input for {path!r} is hidden (its visibleIf is false)")
        editor.drive(value)

    def confirm_button(self) -> QAbstractButton | None:
        """The primary confirm button (the first confirm on the card), if any."""
        buttons = self._ctx.confirm_buttons
        return buttons[0] if buttons else None  # type: ignore[return-value]

    def is_input_visible(self, path: str) -> bool:
        """True while the input bound to `path` is shown (its visibleIf chain is truthy)."""
        editor = self._ctx.editors[path]
        return editor.container.isVisibleTo(self)

    def blockers_text(self) -> str:
        return self._blockers.text() if self._blockers.isVisibleTo(self) else ""

    def visible_text(self) -> str:
        """Every piece of text currently shown on the card, one per line, in reading
        order (masked passwords excluded)."""
        out: list[str] = []
        seen: set[int] = set()
        for w in self.findChildren(QWidget):
            if not w.isVisibleTo(self):
                continue
            text = ""
            if isinstance(w, (QLabel, QAbstractButton)):
                text = w.text()
            elif isinstance(w, QTextBrowser):
                text = w.toPlainText()
            elif isinstance(w, QComboBox):
                text = w.currentText()
            elif isinstance(w, QLineEdit | QPlainTextEdit):
                editor = next((e for e in self._ctx.editors.values() if e.field is w), None)
                if editor is not None and id(editor) not in seen:
                    seen.add(id(editor))
                    text = editor.shown_text()
                elif isinstance(w, QLineEdit) and w.echoMode() == QLineEdit.EchoMode.Normal:
                    text = w.text()
            if text:
                out.append(unshown(text))
        return "\n".join(out)

    @property
    def link_prompt(self) -> LinkPrompt:
        """The "Open <url>?" line under the footer (made when first needed)."""
        if self._link_prompt is None:
            prompt = LinkPrompt()
            self._frame.addWidget(prompt)
            chain = self._ctx.focus_chain
            for w in (prompt.open_button, prompt.dismiss_button):
                w.installEventFilter(self._router)
                if chain:
                    QWidget.setTabOrder(chain[-1], w)
                chain.append(w)
            self._link_prompt = prompt
        return self._link_prompt

    def open_link(self, url: str) -> None:
        """Show `url` with Open / Not now; only https, http and mailto get that far."""
        if link_allowed(url):
            self.link_prompt.ask(url)

    # --- reacting ----------------------------------------------------------------------

    def _pressed(self, role: str, item: Any) -> bool:
        if self._decision is not None:
            return False
        if role == "confirm":
            if not self._state.confirm_enabled:
                return False
            self._decision = True
            self.decided.emit(True, self._state.final_arguments(), self._state.edited_paths())
            return True
        if role == "cancel":
            self._decision = False
            self.decided.emit(False, {}, [])
            return True
        if role == "copy":
            text = (
                self._state.text(item.value)
                if item is not None and item.value
                else json.dumps(
                    self._state.final_arguments(), ensure_ascii=False, indent=2, default=str
                )
            )
            clipboard = QGuiApplication.clipboard()
            if clipboard is not None:
                clipboard.setText(text)
            return False
        if role == "openUrl" and item is not None and item.url:
            self.open_link(self._state.text(item.url))
        return False

    def _changed(self) -> None:
        ctx = self._ctx
        state = self._state
        for live in ctx.live_texts:
            text = state.text(live.template)
            if text != live.last:
                live.last = text
                live.apply(text)
        relayout = False
        for block, widget in ctx.conditional:
            visible = state.is_visible(block)
            if visible != (not widget.isHidden()):
                widget.setVisible(visible)
                relayout = True
        for watched in ctx.watched:
            value = state.value(watched.path)
            if value is not watched.last and value != watched.last:
                watched.last = value
                watched.apply(value)
                relayout = True
        for path, editor in ctx.editors.items():
            editor.sync(state.value(path))
            editor.set_error(state.field_error(path))
        self._apply_gate()
        if relayout and self._body is not None:
            self._body.updateGeometry()

    def _apply_gate(self) -> None:
        enabled = self._state.confirm_enabled
        reasons = tuple(self._state.blockers()) if not enabled else ()
        gate = (enabled, reasons)
        if gate == self._last_gate:
            return
        self._last_gate = gate
        why = "; ".join(reasons[:3]) + (
            f" (and {len(reasons) - 3} more)" if len(reasons) > 3 else ""
        )
        for button in self._ctx.confirm_buttons:
            button.setEnabled(enabled)
            button.setToolTip("" if enabled else why)
            button.setAccessibleDescription("" if enabled else f"Unavailable: {why}")
        self._blockers.setText(why)
        self._blockers.setVisible(bool(why))

    def closeEvent(self, event: Any) -> None:
        self._unsubscribe()
        super().closeEvent(event)
