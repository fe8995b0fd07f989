"""What every block builder shares while one card is built: the CardState, the theme,
where files and images may come from, and the live parts that must follow edits.

Builders register only what depends on bindings (a live text, a visibility rule, a
watched value), so one keystroke touches only those widgets. A builder with children
builds them through `ctx.build`: the registry hands itself to the context, so no block
module imports the registry (which imports every block module).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol

from PySide6.QtWidgets import QAbstractButton, QWidget

from notch_app.card.argument_changes import top_name
from notch_app.card.display_text import mark_invisible
from notch_app.card.headline import amount_pairs, fact_words
from notch_app.card.interpolate import template_paths
from notch_app.card.state import CardState
from notch_app.ui.theme import Look, ThemeName, look
from notch_app.ui.widgets.code_view import SeenScroll, scroll_reason
from notch_app.ui.widgets.details_fold import DETAILS_REASON


@dataclass(slots=True)
class LiveText:
    """A widget text that interpolates bindings; reapplied only when its result changes."""

    template: str
    apply: Callable[[str], None]
    last: str = ""
    reads: frozenset[str] | None = None
    """The top-level arguments its text is made from; None when it reads more (an
    amount said with its currency, found by name): then it is always said again."""


@dataclass(slots=True)
class WatchedValue:
    """A widget that follows one argument value (a list's rows, a progress bar)."""

    path: str
    apply: Callable[[Any], None]
    last: Any = None


class Editor(Protocol):
    """What the card needs of one input's editor (`blocks.inputs.InputEditor`)."""

    @property
    def path(self) -> str: ...
    @property
    def field(self) -> QWidget: ...
    @property
    def container(self) -> QWidget: ...
    @property
    def label(self) -> str: ...

    def sync(self, value: Any) -> None: ...
    def set_error(self, message: str | None) -> None: ...


BuildBlock = Callable[[Any, "CardContext", QWidget | None], QWidget]
"""The registry's `build_block(block, ctx, parent)`."""


@dataclass(eq=False)
class ReadHold:
    """A block's text to be read to its end before confirm opens (a markdown text that
    scrolls in its box). `seen` follows its scrolling once it scrolls; `folded` is set by
    the card's fold while the block waits under a closed Details."""

    widget: QWidget
    seen: SeenScroll | None = None
    folded: bool = False

    def reason(self) -> str:
        """ "Open Details to see all of the text" while folded, else "Scroll to see all of
        the text first"."""
        if self.folded:
            return DETAILS_REASON.format(label="the text")
        return scroll_reason(None, "the text")


@dataclass(slots=True)
class CardContext:
    """Shared by the builders of one card. Created by CardView."""

    state: CardState
    theme: ThemeName
    base_dir: Path | None
    network_domains: tuple[str, ...]
    press: Callable[[str, Any], object]
    """Called with (role, action props) when a button is clicked (its result is unused)."""
    open_link: Callable[[str], None]
    """Called with a URL the person clicked: shown first, opened only on a second click."""
    build_block: BuildBlock
    """The block registry's builder, for blocks that hold other blocks."""
    live_pages: bool = True
    """Widget views run their HTML page; False draws a still panel in its place (a PNG
    cannot show a live page, and a one-shot render must not start the web engine)."""
    live_texts: list[LiveText] = field(default_factory=list)
    watched: list[WatchedValue] = field(default_factory=list)
    conditional: list[tuple[Any, QWidget]] = field(default_factory=list)
    editors: dict[str, Editor] = field(default_factory=dict)
    focus_chain: list[QWidget] = field(default_factory=list)
    confirm_buttons: list[QAbstractButton] = field(default_factory=list)
    read_holds: list[ReadHold] = field(default_factory=list)
    """Blocks whose text must have been in view to its end before confirm opens (a
    markdown text that scrolls), for the fold to say how to reach them."""
    parent: QWidget | None = None
    """The widget the block being built goes into (set by `build_block`): builders make
    their widgets inside it, since a widget made parentless and then moved into the card
    by a layout costs ~10–20 µs more."""
    has_primary: bool = False
    """Set once the first confirm is built: it is the primary pill, the rest are ghosts."""
    look: Look = field(init=False)
    """The theme as Qt objects (fonts, colours, palettes), shared by every card."""

    _under: dict[str, list[tuple[str, Editor]]] = field(default_factory=dict)
    """Top-level argument → the editors of paths under it (see `editors_under`)."""
    _under_made_for: int = -1
    """How many editors `_under` was made for (editors are only added, or replaced by
    the editor of a field bound to the same path, which a lookup notices)."""
    _money: dict[str, tuple[tuple[Any, ...], str]] = field(default_factory=dict)
    """Per template with an amount and its currency: the values it was said from, and
    what it said (a keystroke elsewhere costs a few lookups, not a new sentence)."""
    _amounts: dict[str, tuple[Any, str]] = field(default_factory=dict)
    """Per amount's path: the arguments it was said from and its words ("€1,250.00").
    A title and a confirm that both say "{{amount}} {{currency}}" say it once."""

    def __post_init__(self) -> None:
        self.look = look(self.theme)

    def editors_under(self, names: Iterable[str]) -> list[tuple[str, Editor]]:
        """(path, editor) of every input bound under one of the top-level arguments
        `names` (what an edit of them can change), without a walk over every input."""
        editors = self.editors
        for _ in range(2):
            if self._under_made_for != len(editors):
                self._under = {}
                for path, editor in editors.items():
                    self._under.setdefault(path.partition(".")[0], []).append((path, editor))
                self._under_made_for = len(editors)
            under = self._under
            found = [pair for name in names for pair in under.get(name, ())]
            for path, editor in found:
                if editors.get(path) is not editor:
                    self._under_made_for = -1  # a path bound again, its editor replaced
                    break
            else:
                return found
        return found

    def say(self, template: str) -> str:
        """`template` as the card shows it (`CardState.text`), with an amount followed by
        its currency said as the headline says it: "€1,250.00 to Studio Nord GmbH", not
        "1250 EUR to …". An amount that is not a number keeps its text and currency."""
        pairs = amount_pairs(template) if "{" in template or "<" in template else ()
        if not pairs:
            return self.state.text(template)
        state = self.state
        values = tuple(state.value(p) for p in template_paths(template))
        kept = self._money.get(template)
        if kept is not None and kept[0] == values:
            return kept[1]
        said: list[str] = []
        at = 0
        arguments = state.arguments()  # read, not executed: no copy
        for start, end, amount in pairs:
            said.append(state.text(template[at:start]) if start > at else "")
            pair = state.text(template[start:end])
            money = self._amount_words(amount, arguments)
            plain = state.text("{{" + amount + "}}")
            said.append(mark_invisible(money) if money and money != plain else pair)
            at = end
        said.append(state.text(template[at:]) if at < len(template) else "")
        text = "".join(said)
        self._money[template] = (values, text)
        return text

    def _amount_words(self, amount: str, arguments: Any) -> str:
        """`fact_words` for the amount at `amount`, said again only when the arguments
        changed (each change makes a new arguments mapping: `CardState.arguments`)."""
        kept = self._amounts.get(amount)
        if kept is not None and kept[0] is arguments:
            return kept[1]
        words = fact_words(self.state.tool, arguments, amount)
        self._amounts[amount] = (arguments, words)
        return words

    def bind_text(self, template: str, apply: Callable[[str], None]) -> None:
        """Show `template` through `apply` now, and again whenever its bindings change."""
        text = self.say(template)
        apply(text)
        live, reads = _live_reads(template)
        if live:
            self.live_texts.append(LiveText(template, apply, text, reads))

    def watch(self, path: str, apply: Callable[[Any], None]) -> None:
        """Call `apply(value)` now and whenever the value at `path` changes."""
        value = self.state.value(path)
        apply(value)
        self.watched.append(WatchedValue(path, apply, value))

    def build(self, block: Any, parent: QWidget | None = None) -> QWidget:
        """The widget for a child block (and its subtree), made inside `parent` (None:
        inside the widget being built now)."""
        return self.build_block(block, self, parent)

    def focusable(self, widget: QWidget) -> None:
        """Append `widget` to the card's Tab order (reading order)."""
        self.focus_chain.append(widget)


@lru_cache(maxsize=4096)
def _live_reads(template: str) -> tuple[bool, frozenset[str] | None]:
    """Whether `template` has bindings (it follows edits), and the top-level arguments
    its text is made from (None: it says an amount with its currency, found by name).
    Kept per template: the same manifest's texts are bound on every card."""
    paths = template_paths(template)
    if not paths:
        return False, None
    return True, None if amount_pairs(template) else frozenset(top_name(p) for p in paths)
