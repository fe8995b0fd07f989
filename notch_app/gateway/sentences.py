"""What the model reads when a call did not run: one plain sentence it can act on."""

from __future__ import annotations

from notch_app.manifest.acting import leading_verb

_DONE = {
    "send": "sent", "delete": "deleted", "create": "created", "post": "posted",
    "book": "booked", "pay": "paid", "publish": "published", "cancel": "cancelled",
    "remove": "removed", "update": "updated", "transfer": "transferred", "buy": "bought",
    "order": "ordered", "write": "written", "move": "moved", "share": "shared",
}  # fmt: skip


def nothing_done(tool_name: str) -> str:
    """ "nothing was sent" for send_message; "nothing was run" when the verb is unknown."""
    return f"nothing was {_DONE.get(leading_verb(tool_name), 'run')}"


def refusal(outcome: str, title: str, tool_name: str, for_model: str = "") -> str:
    """The sentence for a call that ended without running: declined, blocked, expired,
    withdrawn or superseded. A call refused by one of the person's "refuses when" rules
    gets Notch's own sentence (`for_model`), which says what it can do instead."""
    if outcome == "blocked":
        # Imported here: policy loads pydantic, and notch mcp relays reads before that.
        from notch_app.runtime.policy_book.guards import REFUSED_BY_RULE

        if for_model.startswith(REFUSED_BY_RULE):
            return for_model
    what = f"“{title}”"
    nothing = nothing_done(tool_name)
    if outcome == "declined":
        return f"The person declined {what}; {nothing}. Do not retry unless they ask you to."
    if outcome == "blocked":
        return (
            f"The person has blocked {what} in Notch; {nothing}. Do not retry; if it is "
            "needed, ask them to allow it in Notch's settings."
        )
    if outcome == "expired":
        return f"Nobody answered the confirmation for {what} in time; {nothing}."
    if outcome == "superseded":
        return f"{what} was replaced by a newer request before the person decided; {nothing}."
    return f"The request for {what} was withdrawn before the person decided; {nothing}."


def notch_not_running(title: str, tool_name: str, where: str | None = None) -> str:
    """The sentence for an acting call with no Notch to ask; `where` is the client's own
    error (it names every place Notch was looked for)."""
    looked = f" ({where})" if where else ""
    return (
        f"Notch is not running, so nobody can confirm “{title}”; {nothing_done(tool_name)}. "
        f"Ask the person to start it with `notch run`, then try again.{looked}"
    )
