"""The card: one confirmation request as a live, editable widget (`CardView`).

The public face of a package of small modules, one concern each: `view` (CardView,
what the overlay and tests ask of a card), `frame` (the glass and the layout), `body`
(the scrolling middle and "More below"), `fold` (the compact first view and Details),
`checks` (hidden characters, look-alikes, "also sends"), `gate` (confirm open or closed
and why), `arming` (confirm held until the overlay arms it), `keys` (Esc and Enter),
`voice` (the words for a spoken yes), `reply` (answering in words).
"""

from notch_app.ui.card_view.body import (
    BODY_SCROLL_REASON,
    MAX_BODY_HEIGHT,
    SCREEN_SHARE,
    max_body_height,
)
from notch_app.ui.card_view.reply import UNCLEAR_ONCE, UNCLEAR_TWICE
from notch_app.ui.card_view.view import CardView

__all__ = [
    "BODY_SCROLL_REASON",
    "MAX_BODY_HEIGHT",
    "SCREEN_SHARE",
    "UNCLEAR_ONCE",
    "UNCLEAR_TWICE",
    "CardView",
    "max_body_height",
]
