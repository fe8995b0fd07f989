"""Break hints in long unbroken runs (`label_text.shown`): one after every 28 characters
of a run, none elsewhere, and the text a person reads is the text given."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from notch_app.ui.widgets.label_text import MAX_SHOWN_CHARS, shown, unshown

_ZWSP = "\u200b"


def _by_hand(text: str) -> str:
    # The rule written out one character at a time (what `shown` does with a regex).
    out: list[str] = []
    run = 0
    for ch in text:
        out.append(ch)
        run = 0 if ch.isspace() else run + 1
        if run == 28:
            out.append(_ZWSP)
            run = 0
    return "".join(out)


@given(st.text(alphabet=st.sampled_from("ab/é \t\n\u00a0\u2003\u3000\u0085\u200b"), max_size=300))
def test_a_hint_follows_every_28_characters_of_a_run(text: str) -> None:
    got = shown(text)
    assert got == (_by_hand(text) if len(text) >= 28 else text)
    if _ZWSP not in text:
        assert unshown(got) == text


def test_a_long_text_is_cut_then_hinted() -> None:
    text = "x" * (MAX_SHOWN_CHARS + 10)
    got = shown(text)
    assert unshown(got) == "x" * MAX_SHOWN_CHARS + "…"
    assert got.count(_ZWSP) == (MAX_SHOWN_CHARS + 1) // 28
