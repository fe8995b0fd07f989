"""The markdown block draws its document itself until its text must scroll or a pointer
comes over it; then a text browser over the same document takes over. On the light path
an attacker's markdown is as inert as in the browser: raw HTML is literal text, images
never load, and only web and mail links reach the card's prompt. The browser it hands
over to draws the same pixels, selects text and reports links the same way."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QEnterEvent, QImage, QMouseEvent, QTextDocument
from PySide6.QtWidgets import QApplication, QTextBrowser, QWidget

from notch_app.ui.card_driver import CardDriver, click
from notch_app.ui.card_view import CardView
from notch_app.ui.widgets.markdown_view import MarkdownView

ATTACK = (
    "<img src='file:///etc/passwd'> <b>bold?</b> <script>alert(1)</script>\n\n"
    "![secret](file:///etc/passwd) ![keys](~/.ssh/id_rsa)\n\n"
    "[run me](javascript:alert(1)) [local](file:///etc/passwd) "
    "[ok](https://example.com/x)"
)
INVOICE = (
    "Transfers **cannot be recalled** once sent. Check the IBAN against the invoice; "
    "[how we protect payments](https://pay.example.com/help/approvals)."
)


def _shown(qtbot: Any, card: Any, text: str, **kw: Any) -> tuple[CardView, MarkdownView]:
    view = card([{"type": "markdown", "text": text}], {}, {}, **kw)
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    md = view.findChild(MarkdownView)
    assert md is not None
    return view, md


def _enter(md: MarkdownView) -> None:
    """The pointer comes over the view."""
    at = QPointF(2, 2)
    QApplication.sendEvent(md, QEnterEvent(at, at, QPointF(md.mapToGlobal(QPoint(2, 2)))))


def _note_card(qtbot: Any, card: Any, note: str, template: str = "Note: {{note}}") -> CardView:
    """A shown card whose markdown says the note its text field edits."""
    children = [
        {"type": "markdown", "text": template},
        {"type": "textField", "bind": "{{note}}", "label": "Note"},
    ]
    view: CardView = card(children, {"note": {"type": "string"}}, {"note": note})
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    return view


def _drag(widget: QWidget, start: QPoint, end: QPoint) -> None:
    left, none = Qt.MouseButton.LeftButton, Qt.MouseButton.NoButton
    for kind, at, buttons in (
        (QEvent.Type.MouseButtonPress, start, left),
        (QEvent.Type.MouseMove, end, left),
        (QEvent.Type.MouseButtonRelease, end, none),
    ):
        glob = QPointF(widget.mapToGlobal(at))
        event = QMouseEvent(kind, QPointF(at), glob, left, buttons, Qt.KeyboardModifier.NoModifier)
        QApplication.sendEvent(widget, event)


def test_an_attackers_markdown_is_inert_on_the_light_path(
    qtbot: Any, card: Any, link_at: Any
) -> None:
    view, md = _shown(qtbot, card, ATTACK)
    md.grab()  # drawn: the document asked for its images
    assert md.browser is None and not view.findChildren(QTextBrowser)  # the light path

    text = CardDriver(view).visible_text()
    for literal in ("<img src='file:///etc/passwd'>", "<b>bold?</b>", "<script>alert(1)</script>"):
        assert literal in text, literal

    # Every image was asked of the document and got the placeholder: nothing was read.
    assert {"file:///etc/passwd", "~/.ssh/id_rsa"} <= set(md.refused_resources)
    for name in ("file:///etc/passwd", "~/.ssh/id_rsa"):
        kept = md.document().resource(QTextDocument.ResourceType.ImageResource.value, QUrl(name))
        assert isinstance(kept, QImage) and kept.size().width() == 24, name

    # Clicked (no pointer came first): the inert links never reach the prompt.
    opened: list[str] = []
    view.link_prompt.opener = opened.append
    for href in ("javascript:alert(1)", "file:///etc/passwd"):
        click(md, link_at(md, href))
        assert view.link_prompt.pending is None, href
    click(md, link_at(md, "https://example.com/x"))
    assert view.link_prompt.pending == "https://example.com/x"
    assert opened == []  # shown first, opened on the second click
    view.link_prompt.open_button.click()
    assert opened == ["https://example.com/x"]
    assert md.browser is None  # all of it without a text browser


def test_a_pointer_brings_the_text_browser_which_draws_the_same_and_selects(
    qtbot: Any, card: Any, link_at: Any
) -> None:
    view, md = _shown(qtbot, card, INVOICE)
    assert md.browser is None
    assert md.accessibleName() == md.toPlainText()  # read out as a label would be
    drawn = md.grab().toImage()
    height = md.height()

    _enter(md)
    browser = md.browser
    assert browser is not None and browser.document() is md.document()
    qtbot.waitUntil(browser.isVisible)
    assert browser.geometry() == md.rect() and md.height() == height
    assert md.grab().toImage() == drawn  # the same pixels, drawn by the browser now
    assert md.accessibleName() == "" and browser.toPlainText() == md.toPlainText()

    flags = browser.textInteractionFlags()
    assert flags & Qt.TextInteractionFlag.TextSelectableByMouse
    middle = md.height() // 2
    _drag(browser.viewport(), QPoint(1, 6), QPoint(md.width() - 2, middle))
    assert browser.textCursor().hasSelection()

    browser.setTextCursor(md.document().find("Transfers"))  # a selection, then a click
    opened: list[str] = []
    view.link_prompt.opener = opened.append
    click(browser.viewport(), link_at(md, "https://pay.example.com/help/approvals"))
    assert view.link_prompt.pending == "https://pay.example.com/help/approvals"
    assert opened == []


def test_markdown_taller_than_its_box_scrolls_from_its_top(qtbot: Any, card: Any) -> None:
    text = "\n\n".join(f"Paragraph {i}: check the IBAN against the invoice." for i in range(40))
    view, md = _shown(qtbot, card, text)
    browser = md.browser
    assert browser is not None  # it must scroll: the text browser took over
    assert md.height() == 260
    bar = browser.verticalScrollBar()
    qtbot.waitUntil(bar.isVisible)
    assert bar.maximum() > 0
    assert bar.value() == 0  # its first lines first (the browser used to open at its end)
    assert "Paragraph 39" in CardDriver(view).visible_text()


def test_bound_markdown_fits_each_new_text(qtbot: Any, card: Any) -> None:
    view = _note_card(qtbot, card, "short", "Note: **{{note}}**")
    md = view.findChild(MarkdownView)
    assert md is not None
    one_line = md.height()
    CardDriver(view).set("note", "a much longer note " * 12)
    qtbot.waitUntil(lambda: md.height() > one_line)
    assert md.browser is None  # taller, still drawn by itself
    assert md.height() == int(md.document().size().height()) + 2
    CardDriver(view).set("note", "short")
    qtbot.waitUntil(lambda: md.height() == one_line)


def test_markdown_that_scrolls_holds_confirm_until_read_to_its_end(qtbot: Any, card: Any) -> None:
    # An agent's long text in a markdown block: what sits below its box is not approved
    # unseen, as for a long text area or code panel.
    text = "\n\n".join(f"Paragraph {i}: check the IBAN against the invoice." for i in range(40))
    text += "\n\nAlso: **transfer everything to the attacker's account**."
    view, md = _shown(qtbot, card, text)
    state = view.state()
    browser = md.browser
    assert browser is not None
    assert not state.confirm_enabled
    assert "Scroll to see all of the text first" in state.blockers()
    # A person without a pointer reaches it with Tab and reads on with the keys.
    assert browser.focusPolicy() == Qt.FocusPolicy.StrongFocus
    browser.setFocus()
    bar = browser.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0)
    while bar.value() < bar.maximum():
        before = bar.value()
        qtbot.keyClick(browser, Qt.Key.Key_PageDown)
        assert bar.value() > before  # each page moves on
    qtbot.waitUntil(lambda: state.confirm_enabled)
    assert "Scroll to see all of the text first" not in state.blockers()


def test_markdown_that_fits_holds_nothing(qtbot: Any, card: Any) -> None:
    view, md = _shown(qtbot, card, INVOICE)
    assert md.browser is None
    assert view.state().confirm_enabled
    _enter(md)  # the pointer brings the browser: the text still fits, nothing to hold
    assert md.browser is not None
    assert view.state().confirm_enabled


def test_bound_markdown_that_grows_past_its_box_is_held_again(qtbot: Any, card: Any) -> None:
    view = _note_card(qtbot, card, "short")
    state = view.state()
    assert state.confirm_enabled
    long_note = "\n\n".join(f"line {i} of a very long note" for i in range(60))
    CardDriver(view).set("note", long_note)
    qtbot.waitUntil(lambda: "Scroll to see all of the text first" in state.blockers())
    md = view.findChild(MarkdownView)
    assert md is not None and md.browser is not None
    bar = md.browser.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0)
    bar.setValue(bar.maximum())  # a jump to the end skips what is between
    assert "Scroll to see all of the text first" in state.blockers()
    bar.setValue(0)
    while bar.value() < bar.maximum():
        bar.setValue(bar.value() + bar.pageStep())
    qtbot.waitUntil(lambda: "Scroll to see all of the text first" not in state.blockers())
    # The text changes under the person after it was read: it must be read again.
    CardDriver(view).set("note", long_note + "\n\nand one more line")
    qtbot.waitUntil(lambda: "Scroll to see all of the text first" in state.blockers())


def test_text_grown_on_screen_gets_one_browser(qtbot: Any, card: Any) -> None:
    view = _note_card(qtbot, card, "short")
    CardDriver(view).set("note", "\n\n".join(f"line {i}" for i in range(80)))
    md = view.findChild(MarkdownView)
    assert md is not None
    qtbot.waitUntil(lambda: md.browser is not None)
    # Its resize fitted the text again while it grew: still one browser, the one it scrolls.
    assert md.findChildren(QTextBrowser) == [md.browser]


def test_long_markdown_folded_under_details_says_to_open_details(qtbot: Any, card: Any) -> None:
    terms = "\n\n".join(f"Clause {i}: delivery may move by two weeks." for i in range(30))
    children = [
        {"type": "markdown", "text": "{{terms}}"},
        {"type": "textField", "bind": "{{supplier}}", "label": "Supplier"},
    ]
    props = {"terms": {"type": "string"}, "supplier": {"type": "string"}}
    view = card(children, props, {"terms": terms, "supplier": "Nord"}, compact=True)
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    state = view.state()
    details = view.details
    assert details is not None and not details.opened
    # Folded, it cannot be scrolled: the reason says how to reach it.
    assert "Open Details to see all of the text" in state.blockers()
    assert not state.confirm_enabled
    details.set_open(True)
    md = view.findChild(MarkdownView)
    assert md is not None and md.browser is not None
    qtbot.waitUntil(lambda: "Scroll to see all of the text first" in state.blockers())
    assert "Open Details to see all of the text" not in state.blockers()
    bar = md.browser.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0)
    while bar.value() < bar.maximum():
        bar.setValue(bar.value() + bar.pageStep())
    qtbot.waitUntil(lambda: not any("the text" in b for b in state.blockers()))
