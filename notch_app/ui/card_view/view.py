"""CardView: one confirmation request as a live, editable card.

The widget tree comes from the block registry (`notch_app.ui.blocks`), laid out by
`frame`; everything the card decides (values, gating, visibility, final arguments) comes
from the Qt-free CardState. After each edit CardView re-applies, in one pass, only what
depends on what changed: live texts, `visibleIf`, watched values, field errors, Notch's
check notes (`checks`), the confirm gate (`gate`), the headline and the fold (`fold`).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication, QInputEvent, QKeyEvent
from PySide6.QtWidgets import QAbstractButton, QWidget

from notch_app.card.also_sends import also_sends
from notch_app.card.read_back import card_read_back
from notch_app.card.staged_args import WidgetCardState, card_state_for
from notch_app.card.state import CardState
from notch_app.manifest.model import Tool
from notch_app.runtime.approval_memory import Change
from notch_app.ui.blocks import CardContext, build_block
from notch_app.ui.blocks._context import Editor
from notch_app.ui.blocks.inputs import InputEditor
from notch_app.ui.card_view.arming import ConfirmHold
from notch_app.ui.card_view.body import CardBody
from notch_app.ui.card_view.checks import CardChecks
from notch_app.ui.card_view.fold import CardFold, fold_plan
from notch_app.ui.card_view.frame import lay_out_card
from notch_app.ui.card_view.gate import ConfirmGate
from notch_app.ui.card_view.keys import ENTER_HINT, AnswerKeys
from notch_app.ui.card_view.notch_lines import join_confirms, place_under_checks
from notch_app.ui.card_view.reply import answer_in_words
from notch_app.ui.card_view.voice import VoiceWordsPlace
from notch_app.ui.theme import Look
from notch_app.ui.widgets.asker_strip import Asker
from notch_app.ui.widgets.change_marks import ChangeMarks
from notch_app.ui.widgets.details_fold import DetailsToggle, FoldedFacts
from notch_app.ui.widgets.link_prompt import LinkPrompt
from notch_app.ui.widgets.markdown_view import link_allowed
from notch_app.ui.widgets.reply_field import ReplyField
from notch_app.ui.widgets.risk_notes import RiskSection
from notch_app.ui.widgets.save_failure_notice import SaveFailureNotice
from notch_app.ui.widgets.scope_choices import Scope, ScopeChoices
from notch_app.ui.widgets.voice_words import VoiceWords


class CardView(QWidget):
    """One confirmation request, rendered from the tool's confirmation view.

    `decided(approved, final_arguments, edited_paths)` fires once (again after
    `show_save_failure`): on confirm (only while CardState allows it) with the edited
    arguments, on cancel with `(False, {}, [])`.
    `asker` (from `asker_for`) is who asks: drawn by the card itself in a strip above
    the title that no block can reach. `notice` is why the card shows although the
    person turned Asks first off (the request's `reason`, e.g. "Asks anyway: amount is
    over 500"): shown as a quiet line at the top of the card and given as the card's
    accessible description. With `live_pages` False a widget view's HTML page is not
    started (no web engine): a still panel holds its place, as `notch render` draws it.
    With `compact` (the default) the card opens at a notch's size: its headline, the
    blocks of the compact view, one line per folded value and "Details", which unfolds
    the whole form in place (see `notch_app.card.compact`); False shows the whole form.
    `screen_height` draws it for a screen of that height instead of the one it is on.
    Raises ValueError (from CardState) when the tool has no usable confirmation view.
    """

    decided = Signal(bool, dict, list)
    revised = Signal(str)
    """The person declined with words for the agent ("make it shorter"): the overlay
    turns it into a decline with reason "revise" and the words as feedback."""
    changedByPage = Signal()
    """A widget view's page changed the card (staged edits): the overlay holds confirm."""

    ENTER_HINT = ENTER_HINT
    """What the card says when plain Enter reached it from a field or the card itself."""

    def __init__(
        self,
        tool: Tool,
        arguments: Mapping[str, Any],
        *,
        base_dir: Path | None = None,
        network_domains: tuple[str, ...] = (),
        theme: str = "dark",
        width: int = 440,
        notice: str | None = None,
        asker: Asker | None = None,
        scopes: bool = False,
        live_pages: bool = True,
        compact: bool = True,
        screen_height: int | None = None,
        changes: Sequence[Change] = (),
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        from notch_app.ui import theme as theme_module

        theme_name = theme_module.theme_name(theme)
        self._state = card_state_for(tool, arguments)
        if isinstance(self._state, WidgetCardState):
            self._state.on_page_change(self.changedByPage.emit)
        self._decision: bool | None = None
        self.approval_scope: Scope = "once"
        """How far the person's yes reaches: this call, this agent's session, or always."""
        self.reply_words: str | None = None
        """The typed (or spoken) reply that decided the card, for the log; None for a
        click or a key."""
        self._hold = ConfirmHold(self)  # the overlay holds confirm on a card just shown
        self.setObjectName("NotchCardView")
        self.setAttribute(Qt.WidgetAttribute.WA_TranslucentBackground, True)
        self._link_prompt: LinkPrompt | None = None
        self._ctx = CardContext(
            state=self._state,
            theme=theme_name,
            base_dir=base_dir,
            network_domains=network_domains,
            press=self._pressed,
            open_link=self.open_link,
            build_block=build_block,
            live_pages=live_pages,
        )
        # The theme reaches every widget through inheritance: a palette and a font set
        # here, before any child exists, cost nothing per widget (a style sheet would).
        self.setPalette(self._ctx.look.base_palette)
        self.setFont(theme_module.card_font())
        also = also_sends(self._state)
        # Known before the layout: a card that opens unfolded builds its form at once.
        opens, folded = fold_plan(self._state, notice, bool(changes)) if compact else (False, [])
        parts = self._parts = lay_out_card(
            self, self._ctx, tool, width=width, asker=asker, notice=notice,
            with_body=bool(also), compact=compact, screen_height=screen_height,
            later=not opens,
        )  # fmt: skip
        self.asker_strip = parts.asker_strip
        self.headline_line = parts.headline_line
        self._body = parts.body
        self._fold = CardFold(self._ctx, parts, self._refresh_fold)
        self._keys = AnswerKeys(self, self._ctx.look, parts)
        self._voice = VoiceWordsPlace(self._ctx.look, parts, parts.glass)
        self._add_notch_lines(scopes, changes)
        self._checks = CardChecks(self._ctx, parts, self._input_shown)
        self._checks.show_also_sends(also)
        self._checks.show_notes()
        if parts.folded and parts.blocks is not None:
            self._fold.make(self.scope_choices, opens, folded)
        else:
            self._refresh_fold()
        self._settle()

    def _add_notch_lines(self, scopes: bool, changes: Sequence[Change]) -> None:
        """Notch's own lines around the author's blocks: the scope choices under confirm,
        the risk lines and "changed since" marks under the headline, the reply line."""
        ctx, parts = self._ctx, self._parts
        glass = parts.glass
        self.scope_choices: ScopeChoices | None = None
        if scopes and ctx.confirm_buttons:
            # Under confirm, never in its place; gated and held with it.
            choices = ScopeChoices(ctx.look, self._allow_from_choices, glass, self._scope_made)
            parts.footer.addWidget(choices)
            self.scope_choices = choices
            choices.follow(self._state)  # what each choice covers, for the card's values
        # Notch's risk lines above the body (issue 20): what the call does that a person
        # should see first; a risky call's confirm takes the destructive style.
        # Its panel is made with the call's first risk (most calls have none).
        self.risk = RiskSection(
            ctx.look, self._state, ctx.confirm_buttons, glass, partial(place_under_checks, parts)
        )
        # What differs from the person's last approvals of this action (issue 20): under
        # the risk lines; a card with marks opens expanded at the first marked field.
        # They are fixed for the card's life: a card with none makes no panel.
        self._changes: ChangeMarks | None = None
        if changes:
            self._changes = ChangeMarks(ctx.look, changes, glass)
            place_under_checks(parts, self._changes)
            QTimer.singleShot(0, self.show_first_change)
        # Decline with words: a quiet line under the footer, opened only when clicked.
        self.reply_field = ReplyField(  # its signals connected when it is first opened
            ctx.look, glass, on_submit=self.reply,
            on_close=lambda: self.setFocus(Qt.FocusReason.OtherFocusReason),
        )  # fmt: skip
        parts.column.addWidget(self.reply_field)
        ctx.focus_chain.append(self.reply_field.invitation)

    @property
    def changes(self) -> ChangeMarks:
        """The "changed since you last approved this" marks; on a card with none, an
        empty hidden panel in their place (made when asked for)."""
        if self._changes is None:
            self._changes = ChangeMarks(self._ctx.look, (), self._parts.glass)
            place_under_checks(self._parts, self._changes)
        return self._changes

    def _scope_made(self, button: QAbstractButton) -> None:
        join_confirms(self._ctx, self._hold, button, built=hasattr(self, "_gate"))

    def _settle(self) -> None:
        """The card is built: its sizes final, what is below the fold held, its tab
        order, gate and errors applied, and its parts following the state from now on."""
        # Polished now (as showing would), so the sizes asked from here on are final: the
        # body's height for its width changes with polish, and a card sized before it
        # would be laid out and painted too short, then grow a frame later.
        self.ensurePolished()
        if self._parts.body is not None:  # made with the card (its facts may make it)
            self._follow_body(self._parts.body)
        self._parts.body_made = self._follow_body  # a body made when it first shows a block
        self._save_failure: SaveFailureNotice | None = None  # see show_save_failure
        # Enter and Esc are not filtered on every widget (an event filter on each costs
        # a Python call per event while the card builds); the fields ignore them, so
        # they reach keyPressEvent below.
        for a, b in itertools.pairwise(self._ctx.focus_chain):
            QWidget.setTabOrder(a, b)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._gate = ConfirmGate(self._ctx, self._parts)
        self._gate.apply()
        # A proposal the schema refuses says why at its field from the start.
        for path, editor in self._ctx.editors.items():
            editor.set_error(self._state.field_error(path))
        # What the card's parts were last made from: an edit is followed by looking again
        # only at the parts that read what it changed (see `_changed`).
        self._read_from = self._state.arguments()
        self._errors_shown: dict[str, str | None] | None = None
        self._unsubscribe = self._state.subscribe(self._changed)
        # After the card's own pass: the headline and the confirm words follow the
        # values that pass has just applied.
        self._unsubscribe_fold = self._state.subscribe(self._refresh_fold)
        self.destroyed.connect(lambda *_: None)

    def _follow_body(self, body: CardBody) -> None:
        self._body = body
        self._body_seen = body.follow_content(self._state)

    # --- the compact first view (issue 22) ---------------------------------------------

    def _refresh_fold(self) -> None:
        self.headline_line.refresh()
        button = self.confirm_button()
        if button is not None:
            # The verb and its object ("Send to 3 people", "Pay €1,250.00"): the author's
            # own words when they say more than a bare verb (see card/headline.py).
            words = self.headline_line.current.confirm
            if button.text() != words:  # most keystrokes leave the verb and object as they were
                button.setText(words)
                self._keys.follow_label(button.text())  # a hint on screen names it now
        self._fold.refresh_facts(self.headline_line)

    @property
    def details(self) -> DetailsToggle | None:
        """The "Details" toggle of a compact card (None while nothing is folded)."""
        return self._fold.details

    @property
    def folded_facts(self) -> FoldedFacts | None:
        """The one-line facts of what is folded under Details (None while nothing is)."""
        return self._fold.facts

    def focusNextPrevChild(self, next: bool) -> bool:
        # Tab into a folded card whose first view has no field unfolds it: the form is
        # one key away, as it is one click away, and Tab then walks its fields. A card
        # with a field in view (a command) keeps its size: Tab goes there.
        if self.details is not None and not self.details.opened:
            fields = [e.field for e in self._ctx.editors.values()]
            if not any(f.isVisibleTo(self) and f.isEnabled() for f in fields):
                made_now = self._parts.body is None
                self.details.set_open(True)
                body = self._parts.body
                if made_now and body is not None:
                    # A body made by this Tab is shown by its column's next pass (a posted
                    # call): shown and laid out now, so this Tab reaches its first field,
                    # not the footer's Cancel past the fields still hidden.
                    QCoreApplication.sendPostedEvents(body, QEvent.Type.MetaCall.value)
                    self._parts.column.activate()
        return super().focusNextPrevChild(next)

    @property
    def has_unbuilt_fields(self) -> bool:
        """Fields under a closed Details not built yet are typed into (the notch takes
        keyboard focus for them, see `notch_app.ui.notch.fitting`)."""
        return self._fold.has_unbuilt_fields

    @property
    def details_open(self) -> bool:
        """True while the whole form shows (Details open, or a card with nothing folded)."""
        return self.details is None or self.details.opened

    def open_details(self) -> None:
        """Unfold the whole form in place (a risk or a change to look at, a test)."""
        if self.details is not None:
            self.details.set_open(True)

    # --- the public face ---------------------------------------------------------------

    @property
    def look(self) -> Look:
        """The card's theme, for Notch's own views shown in its place (the batch summary)."""
        return self._ctx.look

    def show_first_change(self) -> None:
        """Scroll the body to the field of the first "changed since" mark, if one shows it."""
        if self._body is None:
            return
        for change in self._changes.changes if self._changes is not None else ():
            parts = change.path.split(".")
            for end in range(len(parts), 0, -1):
                editor = self._ctx.editors.get(".".join(parts[:end]))
                if editor is not None:
                    self._body.ensureWidgetVisible(editor.container)
                    return

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

    def reply(self, text: str) -> bool:
        """Answer the card in words, as typed under the footer: "yes" / "ok" / "send it"
        approves (only while confirm is open and armed, else a short note says why not),
        "no" / "cancel" declines, anything else with a word in it declines with the words
        for the agent (`revised`). Returns True when it decided the card (see
        `notch_app.ui.card_view.reply`)."""
        return answer_in_words(self, text)

    def send_back(self, words: str) -> None:
        """Decline with `words` for the agent ("make it shorter"): `revised(words)`."""
        self._decision = False
        self.revised.emit(words)

    unclear_replies = 0
    """Replies in a row the classifier found unclear (the card asks once more, then waits
    for a click)."""

    def carries_voice_words(self, text: str) -> bool:
        """Whether `text` ("yes, zebra garden") holds the words the card shows for a
        spoken yes: typed as the card says to speak it, a yes, not a change."""
        return self._voice.carries(text)

    @property
    def voice_words(self) -> str | None:
        """The words a spoken yes must carry, as the card shows them ("zebra garden");
        None while it shows none (voice off)."""
        return self._voice.words

    @property
    def voice_words_line(self) -> VoiceWords | None:
        """The line showing the words for a spoken yes (made when first given)."""
        return self._voice.line

    def show_voice_words(self, words: str | None) -> None:
        """Show the words a spoken yes must carry, under the card's title; None takes
        them away (voice turned off)."""
        self._voice.show(words)

    def show_voice_note(self, text: str | None) -> None:
        """Why a spoken yes did not approve, under the words ("Say yes and the words on
        the card."); None hides it."""
        line = self._voice.line
        if line is not None:
            line.show_note(text)

    def show_heard(self, text: str | None) -> None:
        """Show what Notch heard the person say ("Heard: “yes, send it”") as a quiet line
        on the card, before anything is decided; None hides it."""
        self.reply_field.show_heard(text)

    def read_back(self) -> str:
        """The one-sentence question for this card, from its current final arguments
        (see `notch_app.card.read_back`)."""
        return card_read_back(self._state)

    def allow(self, scope: Scope) -> bool:
        """Approve as confirm does, for `scope` ("session": this agent's session;
        "always": Asks first off for the action). Does nothing while confirm is gated or
        held. Returns True when it decided the card."""
        if self._decision is not None or not self._state.confirm_enabled or not self._hold.armed:
            return False
        choices = self.scope_choices
        if scope == "always" and (choices is None or not choices.offers_always):
            return False  # not offered for this call (a shell command, a risky one…)
        self.approval_scope = scope
        return self._pressed("confirm", None)

    def _allow_from_choices(self, scope: Scope) -> None:
        self.allow(scope)  # the buttons need no answer: a held or gated one does nothing

    @property
    def armed(self) -> bool:
        """False while the overlay holds confirm (see `set_armed`)."""
        return self._hold.armed

    def set_armed(self, armed: bool) -> None:
        """Let confirm act (True), or hold it (False) whatever the card's own gate says;
        cancel is never held. The overlay holds confirm on a card that just appeared,
        changed or moved under the pointer until it has been in view for a moment. A
        held confirm button is dimmed and takes no clicks (a press begun before is
        dropped, so it cannot end in a click); Enter and `press` do nothing."""
        self._hold.set_armed(armed, self._ctx.confirm_buttons)

    def made_before_armed(self, event: QInputEvent) -> bool:
        """True for a click or key the person made while confirm was held, which the
        event loop reaches only now that it is armed: it was aimed at what was on screen
        then (the card before a swap, this one still changing), so it must not confirm."""
        return self._hold.made_before_armed(event)

    def unfold(self) -> None:
        """Let the body grow to the card's whole height (no fold, no "More below"): for a
        picture of the whole card (`notch render`). A card on screen keeps its fold."""
        self._parts.unfolded = True  # a body made later grows whole too
        if self._body is not None:
            self._body.unfold()
            self._body_seen.check()  # nothing below a fold any more
            self.adjustSize()

    def input_widget(self, path: str) -> QWidget:
        """The widget a person edits for the input bound to `path`. KeyError if none."""
        return self._editor_of(path).field

    def editor(self, path: str) -> InputEditor:
        """The InputEditor of the input bound to `path`. KeyError if none."""
        editor = self._editor_of(path)
        assert isinstance(editor, InputEditor)  # the only kind the input builders make
        return editor

    def editors(self) -> list[InputEditor]:
        """Every input's editor, in reading order."""
        self._fold.build()  # a folded field not built yet is an input all the same
        return [e for e in self._ctx.editors.values() if isinstance(e, InputEditor)]

    def confirm_button(self) -> QAbstractButton | None:
        """The primary confirm button (the first confirm on the card), if any."""
        buttons = self._ctx.confirm_buttons
        return buttons[0] if buttons else None

    def is_input_visible(self, path: str) -> bool:
        """True while the input bound to `path` is shown (its visibleIf chain is truthy)."""
        return self._input_shown(self._editor_of(path).container)

    def _editor_of(self, path: str) -> Editor:
        """The editor of `path`, its folded block built first if it was not yet."""
        if path not in self._ctx.editors:
            self._fold.build()
        return self._ctx.editors[path]

    def _input_shown(self, container: QWidget) -> bool:
        return self._fold.input_shown(container, self)

    @property
    def notice(self) -> str:
        """The "why this card asks" line on the card ("" when there is none)."""
        notice = self._parts.notice
        return notice.text if notice is not None else ""

    @property
    def link_prompt(self) -> LinkPrompt:
        """The "Open <url>?" line under the footer (made when first needed)."""
        if self._link_prompt is None:
            prompt = LinkPrompt(self._ctx.look)
            self._parts.column.addWidget(prompt)
            chain = self._ctx.focus_chain
            for w in (prompt.open_button, prompt.dismiss_button):
                if chain:
                    QWidget.setTabOrder(chain[-1], w)
                chain.append(w)
            self._link_prompt = prompt
        return self._link_prompt

    def show_save_failure(self, text: str) -> None:
        """The decision this card gave could not be saved, so nothing was sent: say `text`
        ("Couldn't save your decision: the disk is full.") in Notch's own notice under the
        footer, and let the card decide again (confirm, still gated, or cancel)."""
        if self._save_failure is None:
            self._save_failure = SaveFailureNotice(self._ctx.look, text)
            self._parts.column.insertWidget(self._parts.under_footer(), self._save_failure)
        else:
            self._save_failure.show_text(text)
        self._decision = None
        self.reply_words = None

    @property
    def save_failure(self) -> str:
        """The "Couldn't save your decision" line on the card ("" when there is none)."""
        return self._save_failure.text if self._save_failure is not None else ""

    def open_link(self, url: str) -> None:
        """Show `url` with Open / Not now; only https, http and mailto get that far."""
        if link_allowed(url):
            self.link_prompt.ask(url)

    # --- reacting ----------------------------------------------------------------------

    def _pressed(self, role: str, item: Any) -> bool:
        if self._decision is not None:
            return False
        if role == "confirm":
            if not self._state.confirm_enabled or not self._hold.armed:
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
                self._state.raw_text(item.value)  # as sent: no ⟨U+…⟩ marks in the clipboard
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
        # A keystroke changes one argument: only the editors, texts and notes that read it
        # are looked at again (issue 19: 0.1 ms of Python per keystroke, not 3).
        changes = state.changes_since(self._read_from)
        self._read_from = state.arguments()
        names = changes.names
        if self._fold.unbuilt_names and not self._fold.unbuilt_names.isdisjoint(names):
            # A value a folded field not built yet shows changed (a voice edit, a page):
            # its field, its check lines and its error are the card's from now on.
            self._fold.build()
        for live in ctx.live_texts:
            if live.reads is not None and live.reads.isdisjoint(names):
                continue  # made from arguments this edit left alone
            text = ctx.say(live.template)
            if text != live.last:
                live.last = text
                live.apply(text)
        relayout = shown_changed = False
        for block, widget in ctx.conditional:
            visible = state.is_visible(block)
            if visible != (not widget.isHidden()):
                widget.setVisible(visible)
                relayout = shown_changed = True
        for watched in ctx.watched:
            value = state.value(watched.path)
            if value is not watched.last and value != watched.last:
                watched.last = value
                watched.apply(value)
                relayout = True
        for path, editor in ctx.editors_under(names):
            editor.sync(state.value(path))
        errors = state.field_errors()
        if errors is not self._errors_shown and errors != self._errors_shown:
            for path, editor in ctx.editors.items():
                editor.set_error(errors[path] if path in errors else state.field_error(path))
            self._errors_shown = errors
        # What the card does not show changes only with what it shows: the person edits
        # shown values only, so a keystroke that hides nothing skips the walk.
        if shown_changed and self._checks.show_also_sends(also_sends(state)):
            relayout = True
        self._checks.show_notes(changes, shown_changed)
        if self.risk.refresh(changes):
            relayout = True
        self._gate.apply()
        if relayout and self._body is not None:
            self._body.refresh()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Esc cancels; Enter approves only as Ctrl+Enter or on a focused confirm button
        (see `notch_app.ui.card_view.keys`)."""
        if not self._keys.key_pressed(event):
            super().keyPressEvent(event)

    @property
    def enter_hint(self) -> str:
        """The "Enter doesn't approve from here" line ("" while it is not shown)."""
        return self._keys.hint

    def closeEvent(self, event: Any) -> None:
        self._unsubscribe()
        self._unsubscribe_fold()
        super().closeEvent(event)
