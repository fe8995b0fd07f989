"""What the notch asks of a card widget: the `CardWidget` protocol.

The overlay presenter holds a card's confirm until it is armed, presses it for the
approve chord, reads its state for a batch, asks it the read-back question, shows it the
words for a spoken yes and what was heard, and tells it a decision could not be saved.
Every card the notch shows has all of that: `CardView` (a view of blocks, or a widget
view's sandboxed page with Notch's own footer) and any card a test builds. A card factory's
product is checked against this protocol where it is made (`checked_card`), as magicgui
checks a backend's widget against its protocol: a card type that lacks a member is
refused there, by name, instead of failing later on a person's click.
"""

from __future__ import annotations

from types import FunctionType
from typing import TYPE_CHECKING, Protocol, cast, runtime_checkable

from PySide6.QtCore import SignalInstance
from PySide6.QtWidgets import QWidget

if TYPE_CHECKING:  # annotations only: an idle notch loads none of the card's widgets
    from notch_app.card.state import CardState
    from notch_app.ui.theme import Look
    from notch_app.ui.widgets.asker_strip import AskerStrip
    from notch_app.ui.widgets.scope_choices import Scope, ScopeChoices


@runtime_checkable
class CardWidget(Protocol):
    """A card for one request, as the overlay presenter uses it (`CardView` is one)."""

    @property
    def decided(self) -> SignalInstance:
        """`(approved, final_arguments, edited_paths)`, once per decision."""
        ...

    @property
    def revised(self) -> SignalInstance:
        """`(words)`: declined with words for the agent ("make it shorter")."""
        ...

    @property
    def changedByPage(self) -> SignalInstance:
        """A widget view's page changed the card: confirm is held again."""
        ...

    @property
    def asker_strip(self) -> AskerStrip | None:
        """Notch's strip naming who asks (None for a card without one)."""
        ...

    @property
    def scope_choices(self) -> ScopeChoices | None:
        """ "Allow for this session · Always allow" under confirm, when offered."""
        ...

    @property
    def approval_scope(self) -> Scope:
        """How far the person's yes reaches: "once", "session" or "always"."""
        ...

    @property
    def reply_words(self) -> str | None:
        """The typed or spoken reply that decided the card (None for a click or key)."""
        ...

    @property
    def look(self) -> Look:
        """The card's theme (the batch summary is drawn in it)."""
        ...

    @property
    def voice_words(self) -> str | None:
        """The words a spoken yes must carry, as the card shows them (None: none)."""
        ...

    def state(self) -> CardState:
        """The card's values, gate and final arguments."""
        ...

    def set_armed(self, armed: bool) -> None:
        """Let confirm act (True) or hold it (False); cancel is never held."""
        ...

    def press(self, role: str) -> bool:
        """Press `confirm` or `cancel` as the person would; True when it decided."""
        ...

    def read_back(self) -> str:
        """The one-sentence question a voice round reads aloud."""
        ...

    def show_voice_words(self, words: str | None) -> None:
        """Show the words a spoken yes must carry (None takes them away)."""
        ...

    def show_voice_note(self, text: str | None) -> None:
        """Why a spoken yes did not approve (None hides it)."""
        ...

    def show_heard(self, text: str | None) -> None:
        """What Notch heard the person say (None hides it)."""
        ...

    def show_save_failure(self, text: str) -> None:
        """The decision could not be saved: say `text`, let the card decide again."""
        ...


CARD_MEMBERS = tuple(
    sorted(
        name
        for name, member in vars(CardWidget).items()
        if not name.startswith("_") and isinstance(member, property | FunctionType)
    )
)
"""Every member a card must have, by name (for the refusal's message)."""


def missing_members(widget: object) -> list[str]:
    """The members of `CardWidget` that `widget` lacks (or blocks: a method set to
    None), by name ([] for a card)."""
    return [name for name in CARD_MEMBERS if not _carries(widget, name)]


def checked_card(widget: QWidget, made_by: object = None) -> CardWidget:
    """`widget` as a `CardWidget`. Raises TypeError naming the card's type, the factory
    that made it (`made_by`) and every member it lacks."""
    # The protocol's own rule (`isinstance(widget, CardWidget)`: every member present, a
    # method not blocked with None), asked of the names directly: typing's check walks the
    # protocol's classes again on every call (~0.06 ms a card in the notch, 1/7 of that).
    if all(_carries(widget, name) for name in CARD_MEMBERS):
        return cast(CardWidget, widget)
    by = f" by {_name_of(made_by)}" if made_by is not None else ""
    raise TypeError(
        f"{type(widget).__name__} (made{by}) is not a card the notch can show: it lacks "
        f"{', '.join(missing_members(widget))}. A card factory returns a widget with every "
        "member of CardWidget (notch_app/ui/card_widget.py), as CardView has."
    )


def _carries(widget: object, name: str) -> bool:
    """`widget` has member `name` as `isinstance(widget, CardWidget)` asks: present, and
    for a method, not blocked by setting it to None."""
    if not hasattr(widget, name):
        return False
    return not callable(getattr(CardWidget, name, None)) or getattr(widget, name) is not None


def _name_of(factory: object) -> str:
    name = getattr(factory, "__qualname__", None) or type(factory).__qualname__
    return str(name)


if TYPE_CHECKING:  # mypy --strict checks here that CardView has every member, typed
    from notch_app.ui.card_view import CardView

    _CARD_VIEW_IS_A_CARD: type[CardWidget] = CardView
