"""A card's headline: the action and its key facts in one plain sentence.

"Send email to Sam Lee (sam@example.com) and 2 others", "Pay €1,250.00 to Studio Nord
GmbH", "Book Design review · Tue 3 Jun, 14:00–14:30 (in 2 days)", "Delete 3 files in
~/Downloads", "Run `make` in ~/code/app". With it, the words of the confirm button: the
verb and its object ("Send to 3 people", "Pay €1,250.00").

An integration author writes it in the view (`confirmation.headline`, with bindings);
where they don't, it is generated from the tool's title and the arguments, found by what
they are called and hold (recipients, an amount beside a currency, a start time, paths,
a command). Either way every value is the final argument value, shown as the card shows
it: amounts with their currency in the person's locale, times humanised in the person's
zone, paths with the home folder as `~` and a shared folder said once, invisible
characters marked, each value cut to a length a line can hold.

`headline(tool, arguments)` never raises; a tool whose arguments say nothing it knows
gets its title. A card that follows the person's edits keeps a `LiveHeadline` (and a
`LiveFact` per folded value): each remembers which arguments it was made from, so a
keystroke in another field costs a few dictionary lookups, not a new sentence.

One module a concern: `names` (the argument names looked for), `text` (Headline, one
line, cut to fit), `manifest_words` (what a tool's manifest says, read once per tool),
`facts` (the arguments as read, each read noted), `generated`, `saying` (authored, else
generated) and `live`.
"""

from __future__ import annotations

from notch_app.card.argument_changes import Changes, Reads
from notch_app.card.headline.live import LiveFact, LiveHeadline
from notch_app.card.headline.manifest_words import amount_pairs
from notch_app.card.headline.saying import fact_words, headline
from notch_app.card.headline.text import (
    MAX_CONFIRM_CHARS,
    MAX_HEADLINE_CHARS,
    Headline,
    HeadlineFor,
)

__all__ = [
    "MAX_CONFIRM_CHARS",
    "MAX_HEADLINE_CHARS",
    "Changes",
    "Headline",
    "HeadlineFor",
    "LiveFact",
    "LiveHeadline",
    "Reads",
    "amount_pairs",
    "fact_words",
    "headline",
]
