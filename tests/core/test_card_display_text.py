"""Values on a card show every character that is sent, and warn about look-alike letters.

The attacks from issue 9: a right-to-left override in a payee name reverses the text on
screen, and a Cyrillic "а" in `sam@exаmple.com` looks identical to the Latin one.
"""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from notch_app.card.display_text import (
    BIDI_CONTROLS,
    is_invisible,
    lookalike_warnings,
    mark,
    mark_invisible,
    shown_text,
)


def test_a_right_to_left_override_is_shown_not_obeyed() -> None:
    # "invoice‮fdp.exe" draws as "invoiceexe.pdf" when the override is obeyed.
    assert mark_invisible("invoice\u202efdp.exe") == "invoice⟨U+202E⟩fdp.exe"


@pytest.mark.parametrize("ch", sorted(BIDI_CONTROLS))
def test_every_bidi_control_is_marked(ch: str) -> None:
    assert mark_invisible(f"a{ch}b") == f"a⟨U+{ord(ch):04X}⟩b"


@pytest.mark.parametrize(
    "ch",
    ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\u180e", "\u3164",
     "\u2800", "\x00", "\x1b", "\U000e0041", "\u2028", "\ufe0e"],
)  # fmt: skip
def test_invisible_characters_are_marked(ch: str) -> None:
    assert mark_invisible(f"pay{ch}pal") == f"pay⟨U+{ord(ch):04X}⟩pal"


def test_ordinary_text_emoji_and_line_breaks_are_left_alone() -> None:
    for text in ["Zoë pays 1 000 €", "Привет", "👩\u200d💻 coder", "❤\ufe0f", "a\nb\tc", "東京"]:
        assert mark_invisible(text) == text


@given(st.text())
def test_no_invisible_character_survives_marking(text: str) -> None:
    marked = mark_invisible(text)
    for i, ch in enumerate(marked):
        if is_invisible(ch) and ch not in ("\u200d", "\ufe0f"):
            pytest.fail(f"{unicodedata.name(ch, hex(ord(ch)))} at {i} survived")
    assert not (set(marked) & BIDI_CONTROLS)


def test_the_cyrillic_a_in_an_email_domain_is_named() -> None:
    assert lookalike_warnings("sam@ex\u0430mple.com") == [
        "‘ex\u0430mple.com’ mixes Latin and Cyrillic letters that look alike"
    ]


@pytest.mark.parametrize(
    ("text", "scripts"),
    [
        ("\u0440aypal.com", "Latin and Cyrillic"),  # Cyrillic р
        ("G\u03bfogle", "Latin and Greek"),  # Greek ο
        ("DE89 37O4 0044 0532 0130 00 \u0410CME", "Latin and Cyrillic"),  # payee name
        ("P\u0430ul Smith", "Latin and Cyrillic"),
    ],
)
def test_mixed_script_lookalikes_are_flagged(text: str, scripts: str) -> None:
    [warning] = lookalike_warnings(text)
    assert f"mixes {scripts} letters that look alike" in warning


def test_full_width_and_mathematical_letters_are_flagged_alone() -> None:
    [full] = lookalike_warnings("\uff30\uff41\uff59\uff30\uff41\uff4c")
    assert "full-width letters that look like Latin ones" in full
    [maths] = lookalike_warnings("\U0001d40f\U0001d41a\U0001d432")
    assert "mathematical letters" in maths


@pytest.mark.parametrize(
    "text",
    ["Иван Петров", "Αθήνα", "Pokémon Straße", "sam@example.com", "東京 Tower", "DE89 3704 0044"],
)
def test_text_in_one_script_or_honest_mixes_is_not_flagged(text: str) -> None:
    assert lookalike_warnings(text) == []


def test_a_warning_never_carries_the_invisible_trick_itself() -> None:
    [warning] = lookalike_warnings("ex\u0430m\u202eple.com")
    assert "\u202e" not in warning and "⟨U+202E⟩" in warning


def test_shown_text_gives_both() -> None:
    shown = shown_text("to sam@ex\u0430mple.com\u200b")
    assert shown.text == "to sam@ex\u0430mple.com⟨U+200B⟩"
    assert len(shown.warnings) == 1


def test_ascii_lines_take_the_short_way_and_say_the_same_as_each_character() -> None:
    # Plain ASCII over several lines skips the character walk (issue 19: a mail body
    # walked character by character on every card); a control character still shows.
    for code in range(128):
        text = f"Hi Sam,\n\tline{chr(code)}two\n"
        one_by_one = "".join(mark(ch) if is_invisible(ch) else ch for ch in text)
        assert mark_invisible(text) == one_by_one, code


def test_text_python_calls_printable_is_marked_the_same_the_short_way() -> None:
    # One printable line of any script skips the character walk (issue 19: curly quotes
    # and a € sign on every card); the printable characters that draw nothing must not.
    printable_invisible = [
        chr(cp)
        for cp in range(0x110000)
        if not 0xD800 <= cp <= 0xDFFF and chr(cp).isprintable() and is_invisible(chr(cp))
    ]
    assert "\u2800" in printable_invisible and "\ufe00" in printable_invisible
    for ch in printable_invisible:
        assert mark_invisible(f"“a{ch}b”") == f"“a{mark(ch)}b”", hex(ord(ch))


@given(st.text(max_size=40))
def test_the_short_ways_say_what_each_character_says(text: str) -> None:
    def one_by_one(text: str) -> str:
        if text.isascii() and text.isprintable():
            return text
        out = []
        for i, ch in enumerate(text):
            kept = (ch == "\ufe0f" and i > 0 and unicodedata.category(text[i - 1]) == "So") or (
                ch == "\u200d"
                and 0 < i < len(text) - 1
                and unicodedata.category(
                    text[i - 1] if text[i - 1] != "\ufe0f" or i < 2 else text[i - 2]
                )
                == "So"
                and unicodedata.category(text[i + 1]) == "So"
            )
            out.append(ch if kept or not is_invisible(ch) else mark(ch))
        return "".join(out)

    assert mark_invisible(text) == one_by_one(text)
