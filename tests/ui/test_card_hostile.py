"""Hostile input: markdown that tries HTML, scripts and local files; images that try to
leave the integration folder; megabyte strings; very large views."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QTimer, QUrl
from PySide6.QtGui import QTextDocument
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QLabel, QPlainTextEdit

from notch_app.ui.card_driver import CardDriver, click
from notch_app.ui.widgets.code_view import MAX_CODE_CHARS
from notch_app.ui.widgets.image_view import ImageView
from notch_app.ui.widgets.label_text import MAX_SHOWN_CHARS
from notch_app.ui.widgets.markdown_view import MarkdownView, link_allowed

HOSTILE_MD = (
    "<b>bold?</b> <img src='/etc/passwd'> <script>alert(1)</script>\n\n"
    "[run me](javascript:alert(1)) [file](file:///etc/passwd) [ok](https://example.com/x)\n\n"
    "![x](/etc/passwd)"
)


LINK = "https://example.com/x"


def _markdown_card(qtbot: Any, card: Any) -> tuple[Any, MarkdownView]:
    view = card([{"type": "markdown", "text": HOSTILE_MD}], {}, {})
    qtbot.addWidget(view)
    md = view.findChild(MarkdownView)
    assert md is not None
    return view, md


def test_raw_html_shows_as_literal_text(qtbot: Any, card: Any) -> None:
    view, _md = _markdown_card(qtbot, card)
    text = CardDriver(view).visible_text()
    assert "<b>bold?</b>" in text
    assert "<script>alert(1)</script>" in text
    assert "run me" in text


def test_local_images_are_never_read(qtbot: Any, card: Any) -> None:
    view, md = _markdown_card(qtbot, card)
    view.show()
    qtbot.waitExposed(view)
    md.grab()  # drawn
    # Qt asked for the image and got a placeholder: nothing came from disk.
    assert any("/etc/passwd" in r for r in md.refused_resources)
    cached = md.document().resource(
        QTextDocument.ResourceType.ImageResource.value, QUrl("/etc/passwd")
    )
    assert cached is None or not isinstance(cached, bytes | bytearray)
    img = md.loadResource(QTextDocument.ResourceType.ImageResource.value, QUrl("/etc/passwd"))
    assert img.width() == 24  # the placeholder, never the file


def test_only_web_and_mail_links_open_and_only_after_a_second_click(
    qtbot: Any,
    card: Any,
    link_at: Any,
) -> None:
    bad = ("javascript:alert(1)", "file:///etc/passwd", "data:text/html,x", "/etc/passwd")
    links = " ".join(f"[link {i}]({href})" for i, href in enumerate((*bad, LINK)))
    view = card([{"type": "markdown", "text": links}], {}, {})
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    md = view.findChild(MarkdownView)
    assert md is not None
    opened: list[str] = []
    view.link_prompt.opener = opened.append
    clicked: list[str] = []
    md.anchorClicked.connect(lambda url: clicked.append(url.toString()))
    for href in bad:
        assert not link_allowed(href)
        click(md, link_at(md, href))
        assert view.link_prompt.pending is None
    assert clicked == list(bad)  # each was clicked, and none went further
    assert link_allowed("mailto:sam@example.com")
    click(md, link_at(md, LINK))
    assert opened == []  # shown first
    assert view.link_prompt.pending == "https://example.com/x"
    assert "https://example.com/x" in CardDriver(view).visible_text()
    view.link_prompt.open_button.click()
    assert opened == ["https://example.com/x"]


def test_images_never_leave_the_integration_folder(qtbot: Any, tmp_path: Path, card: Any) -> None:
    folder = tmp_path / "integration"
    folder.mkdir()
    outside = tmp_path / "secret.png"
    outside.write_bytes(b"not really")
    (folder / "link.png").symlink_to(outside)
    for src in ("../secret.png", str(outside), "link.png", "file:///etc/passwd", "~/x.png"):
        view = card([{"type": "image", "src": src, "alt": "Alt words"}], {}, {}, base_dir=folder)
        qtbot.addWidget(view)
        image = view.findChild(ImageView)
        assert image.source_kind == "placeholder", src
        assert "Alt words" in CardDriver(view).visible_text()


def test_remote_images_only_from_declared_domains(qtbot: Any, card: Any) -> None:
    view = card(
        [
            {"type": "image", "src": "https://evil.example.net/a.png", "alt": "A"},
            {"type": "image", "src": "http://cdn.example.com/a.png", "alt": "B"},
        ],
        {},
        {},
        network_domains=("*.example.com",),
    )
    qtbot.addWidget(view)
    images = view.findChildren(ImageView)
    assert [i.source_kind for i in images] == ["placeholder", "placeholder"]
    assert "not declared" in (images[0].refusal or "")
    assert "https" in (images[1].refusal or "")


def test_a_megabyte_string_does_not_freeze_the_card(qtbot: Any, card: Any) -> None:
    """Behaviour, not a stopwatch: every label shows a bounded excerpt, the big field is
    a bounded read-only preview, the event loop keeps turning, typing elsewhere works and
    the value is sent whole."""
    big = "x" * 1_000_000
    view = card(
        [
            {"type": "text", "text": "Body: {{body}}"},
            {"type": "keyValue", "items": [{"label": "Body", "value": "{{body}}"}]},
            {"type": "textField", "bind": "{{body}}", "label": "Body"},
            {"type": "textField", "bind": "{{title}}", "label": "Title"},
        ],
        {"body": {"type": "string"}, "title": {"type": "string"}},
        {"body": big, "title": ""},
    )
    qtbot.addWidget(view)
    turns: list[str] = []
    QTimer.singleShot(0, lambda: turns.append("turned"))  # queued behind the first paint
    view.show()
    qtbot.waitExposed(view)
    # The event loop got past showing and painting the card (a generous bound: it only
    # fails if the card never lets go).
    qtbot.waitUntil(lambda: bool(turns), timeout=20_000)

    # Nothing on screen holds the megabyte: labels carry a bounded excerpt ...
    longest = max(len(w.text()) for w in view.findChildren(QLabel))
    assert longest <= MAX_SHOWN_CHARS + MAX_SHOWN_CHARS // 20 + 1
    # ... and the field is a read-only panel holding what fits, saying how much does not,
    # and confirm stays closed: a yes never covers what could not be shown.
    body = view.input_widget("body")
    assert isinstance(body, QPlainTextEdit) and body.isReadOnly()
    preview = body.toPlainText()
    assert len(preview) < MAX_CODE_CHARS + 2000
    assert "800,000 more characters, too long to show here" in preview
    assert "Body is too long to show whole" in view.state().blockers()
    assert view.height() < 900  # bounded on screen

    # Typing into another field still works, key by key.
    QTest.keyClicks(view.input_widget("title"), "Notes")
    assert view.state().value("title") == "Notes"

    # The megabyte is replaced whole (a paste) and sent whole: nothing was cut.
    CardDriver(view).set("body", big + "y")
    assert view.state().final_arguments()["body"] == big + "y"
    assert view.state().final_arguments()["title"] == "Notes"


@pytest.mark.timing  # a time bound: runs alone (tests/conftest.py)
def test_a_500_block_view_builds_in_reasonable_time(qtbot: Any, card: Any) -> None:
    children = [{"type": "text", "text": f"Line {i} of {{{{who}}}}"} for i in range(480)]
    children += [{"type": "textField", "bind": "{{who}}", "label": f"Who {i}"} for i in range(18)]
    started = time.perf_counter()
    view = card(children, {"who": {"type": "string"}}, {"who": "sam"})
    qtbot.addWidget(view)
    view.show()
    build = time.perf_counter() - started
    assert build < 5.0, build
    started = time.perf_counter()
    CardDriver(view).set("who", "lee")
    assert time.perf_counter() - started < 1.0
    assert "Line 479 of lee" in CardDriver(view).visible_text()
    assert view.height() < 900  # the body scrolls
