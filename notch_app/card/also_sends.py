""" "Also sends": what the call carries that the card does not show.

Nothing runs without the person's yes to exactly what runs, so every argument value the
call would send that no visible block binds or displays is listed in an automatic section
under the card's content — including a field that `visibleIf` hides (its proposed value is
what goes; see `CardState.final_arguments`). The UI draws the entries; it may fold the
section behind an expand control only below a size limit, never hide it.

Blank values (absent, null, "", [], {}) are not listed: they send nothing a person could
approve or refuse. Secrets read as the mask, never in clear.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

from notch_app.card.coerce import is_blank
from notch_app.card.display_text import lookalike_warnings, mark_invisible
from notch_app.card.interpolate import display_value
from notch_app.card.state import CardState
from notch_app.manifest.facts import covers, partly_shows
from notch_app.manifest.schema import navigator_for

MAX_ENTRIES: Final = 200
"""Entries listed before the rest are summed up in one last entry (`path` "…")."""


@dataclass(frozen=True, slots=True)
class AlsoSent:
    """One argument the call carries that the card does not show."""

    path: str
    """The dotted argument path (`bcc`, `meeting.organizer.name`, `items.3`)."""
    label: str
    """A name for people: the property's schema `title`, else the label of the (hidden)
    input bound to it, else the path in words (`recipient_iban` → "Recipient iban")."""
    text: str
    """The value as the card shows it (`display_value`, invisibles marked, secrets masked)."""
    warnings: tuple[str, ...] = ()
    """Look-alike warnings for the value (see `display_text.lookalike_warnings`)."""
    hidden_input: bool = False
    """An input is bound to it but visibleIf hides it now (the proposed value goes)."""


def also_sends(state: CardState) -> list[AlsoSent]:
    """Every argument path `state`'s call would send right now that the card neither
    binds nor displays in a visible block, in argument order; blank values are left out.

    A path is covered when a visible block shows it or one of its ancestors; when a block
    shows only part of an object or list (`{{user.name}}`), the other parts are listed one
    by one. Recompute after each change (subscribe to the state). Never raises."""
    shown = state.shown_now()
    final = state.arguments()  # read, not executed: no copy
    out: list[AlsoSent] = []
    for path in _unshown(final, "", shown, frozenset(shown)):
        if len(out) == MAX_ENTRIES:
            out.append(AlsoSent("…", "More", "more arguments are sent than listed here"))
            break
        value = state.display_lookup(path)
        text = display_value(value)
        binding = state.input_for(path)
        out.append(
            AlsoSent(
                path=path,
                label=_label(state, path),
                text=mark_invisible(text),
                warnings=tuple(lookalike_warnings(text)),
                hidden_input=binding is not None,
            )
        )
    return out


def _unshown(value: Any, prefix: str, shown: list[str], exact: frozenset[str]) -> Iterator[str]:
    if isinstance(value, Mapping):
        children: list[tuple[str, Any]] = [(str(k), v) for k, v in value.items()]
    elif isinstance(value, list):
        children = [(str(i), v) for i, v in enumerate(value)]
    else:
        return
    for key, child in children:
        path = f"{prefix}.{key}" if prefix else key
        # A path shown as it is (most are) is found in the set, not against every path.
        if is_blank(child) or path in exact or any(covers(s, path) for s in shown):
            continue
        if isinstance(child, Mapping | list) and any(partly_shows(s, path) for s in shown):
            yield from _unshown(child, path, shown, exact)  # the card shows a part: the rest
        else:
            yield path  # (a scalar where the card reads inside one shows none of it)


def argument_label(state: CardState, path: str) -> str:
    """The name people read for the argument at `path` (as an "Also sends" entry's)."""
    return _label(state, path)


def _label(state: CardState, path: str) -> str:
    schema = navigator_for(state.tool.input_schema).at(path)
    title = schema.get("title") if schema is not None else None
    if isinstance(title, str) and title.strip():
        return mark_invisible(title.strip())
    binding = state.input_for(path)
    if binding is not None:
        return binding.label
    words = [seg.replace("_", " ").replace("-", " ") for seg in path.split(".")]
    words = [f"#{int(w) + 1}" if w.isdigit() else w for w in words]
    first = words[0][:1].upper() + words[0][1:]
    return mark_invisible(" › ".join([first, *words[1:]]))


__all__ = ["MAX_ENTRIES", "AlsoSent", "also_sends", "argument_label"]
