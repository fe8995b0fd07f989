"""Markdown that cannot reach out: raw HTML shows as literal text, images never load,
links are only reported (the card shows the target and opens it after a second click).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QPointF, QSize, Qt, QUrl, Signal
from PySide6.QtGui import (
    QAbstractTextDocumentLayout,
    QColor,
    QEnterEvent,
    QFont,
    QGuiApplication,
    QImage,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QResizeEvent,
    QScreen,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextOption,
)
from PySide6.QtWidgets import QFrame, QSizePolicy, QStyle, QTextBrowser, QWidget

ALLOWED_LINK_SCHEMES = frozenset({"https", "http", "mailto"})
_FEATURES = QTextDocument.MarkdownFeature(
    QTextDocument.MarkdownFeature.MarkdownDialectGitHub.value
    | QTextDocument.MarkdownFeature.MarkdownNoHTML.value
)

_UNLAID_WIDTH = 640 - 2
"""The width the text is fitted to before the view is first laid out: a parentless
widget is 640 px wide, and the text browser the view used to be measured its viewport,
still inside its default 1 px frame until its first resize. Kept so that cards lay out
exactly as they did."""

_KEPT = 256
"""Texts whose links and heights are kept: a tool's markdown is the same on each of its
cards, fitted at the same few widths (kept per text, font and width, for the screen's
dpi; forgotten when that changes)."""
_KEPT_CHARS = 4000  # longer texts are not kept: they scroll, their browser lays them out
_HEIGHTS: dict[tuple[str, str, int], int] = {}
_LINKS: dict[str, tuple[tuple[int, int], ...]] = {}
_FONT_KEYS: list[tuple[QFont, str]] = []  # the few fonts a view is in, with their keys
_watching_screens = False


def link_allowed(url: str) -> bool:
    """True for https, http and mailto URLs; every other scheme (javascript:, file:,
    data:, relative paths) is inert."""
    q = QUrl(url)
    return (
        q.isValid()
        and q.scheme().lower() in ALLOWED_LINK_SCHEMES
        and bool(q.host() or q.scheme().lower() == "mailto")
    )


def _placeholder_image() -> QImage:
    img = QImage(24, 16, QImage.Format.Format_ARGB32_Premultiplied)
    img.fill(QColor(128, 128, 128, 60))
    p = QPainter(img)
    p.setPen(QColor(128, 128, 128, 160))
    p.drawRect(0, 0, 23, 15)
    p.end()
    return img


class SafeDocument(QTextDocument):
    """A QTextDocument that never reads a resource: every image is a placeholder.

    `refused` records what was asked for, so tests can prove nothing was read.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.refused: list[str] = []

    def loadResource(self, type: int, name: QUrl | str) -> Any:
        if len(self.refused) < 100:
            self.refused.append(name.toString() if isinstance(name, QUrl) else name)
        if type == QTextDocument.ResourceType.ImageResource.value:
            return _placeholder_image()
        return None


def _links_of(doc: QTextDocument) -> tuple[tuple[int, int], ...]:
    """The (start, end) of each link of `doc`."""
    links: list[tuple[int, int]] = []
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            if fragment.isValid() and fragment.charFormat().isAnchor():
                start = fragment.position()
                links.append((start, start + fragment.length()))
            it += 1
        block = block.next()
    return tuple(links)


def _tint_links(doc: QTextDocument, text: str, color: QColor) -> None:
    """Recolour the links of `doc` (made from `text`) with `color`: the markdown importer
    colours them from the application palette; the card's theme keeps them readable on
    the glass."""
    links = _LINKS.get(text)
    if links is None:
        links = _links_of(doc)
        if len(text) <= _KEPT_CHARS:
            if len(_LINKS) >= _KEPT:
                _LINKS.clear()
            _LINKS[text] = links
    if not links:
        return
    fmt = QTextCharFormat()
    fmt.setForeground(color)
    cursor = QTextCursor(doc)
    for start, end in links:
        cursor.setPosition(start)
        cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
        cursor.mergeCharFormat(fmt)


def _font_key(font: QFont) -> str:
    for known, key in _FONT_KEYS:  # a comparison costs less than a key
        if known == font:
            return key
    if len(_FONT_KEYS) >= 8:
        _FONT_KEYS.clear()
    key = font.key()
    _FONT_KEYS.append((QFont(font), key))
    return key


def _forget_heights(*_: object) -> None:
    _HEIGHTS.clear()


def _watch_screens() -> None:
    """Heights are kept for the primary screen's dpi (the one a document without a paint
    device lays out in): forget them when it changes, or the primary screen does."""
    global _watching_screens
    app = QGuiApplication.instance()
    if _watching_screens or not isinstance(app, QGuiApplication):
        return
    _watching_screens = True

    def watch(screen: QScreen | None) -> None:
        _forget_heights()
        if screen is not None:
            screen.logicalDotsPerInchChanged.connect(_forget_heights)

    app.primaryScreenChanged.connect(watch)
    watch(app.primaryScreen())


class _Browser(QTextBrowser):
    """The text browser a MarkdownView puts over itself when its text scrolls or the
    pointer comes over it: the same document, drawn the same way, with what a text
    browser adds (selection, Copy, the link under the pointer, a scroll bar)."""

    def __init__(self, view: MarkdownView) -> None:
        super().__init__(view)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.setGeometry(view.rect())
        self.setDocument(view.document())

    def loadResource(self, type: int, name: QUrl | str) -> Any:
        return self.document().loadResource(type, name)


class MarkdownView(QWidget):
    """Read-only markdown, sized to its content up to `max_height` (then it scrolls).

    While its text fits and no pointer has come over it, the view draws its document
    itself (as a text browser would: same font, palette, wrapping and width), which
    costs a card a fraction of a text browser's scroll area, viewport and scroll bars.
    A text browser over the same document takes over for good when the text has to
    scroll or the pointer first comes over it, to select, copy or hover a link. A click
    on a link is said by `anchorClicked`, then by `linkRequested` if its scheme is allowed.
    """

    linkRequested = Signal(str)
    anchorClicked = Signal(QUrl)

    def __init__(
        self,
        max_height: int = 260,
        parent: QWidget | None = None,
        *,
        open_link: Callable[[str], None] | None = None,
    ) -> None:
        """`open_link` is called with each allowed link clicked (as `linkRequested`)."""
        super().__init__(parent)
        self.setObjectName("Markdown")
        self._doc = SafeDocument(self)
        self._doc.setDocumentMargin(0)
        option = self._doc.defaultTextOption()  # a text browser's wrapping
        option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        self._doc.setDefaultTextOption(option)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self._max_height = max_height
        self._width = _UNLAID_WIDTH
        self._text = ""
        self._font: QFont | None = None
        self._font_key = ""
        self._open_link = open_link
        self._browser: _Browser | None = None
        self._link_color: QColor | None = None
        self._pressed = ""
        self.scrolls_first: Callable[[QTextBrowser], None] | None = None
        """Called once, with the text browser, when the text first has to scroll inside
        its box: the card holds its confirm until all of it has been in view."""
        self._scrolled_once = False
        self.reset_seen: Callable[[], None] | None = None
        """Called when the text changes under the person after it first scrolled: what
        they saw of the old text no longer counts."""

    @property
    def refused_resources(self) -> list[str]:
        return list(self._doc.refused)

    @property
    def browser(self) -> QTextBrowser | None:
        """The text browser over the view, once the text scrolls or a pointer came."""
        return self._browser

    def document(self) -> QTextDocument:
        return self._doc

    def toPlainText(self) -> str:
        return self._doc.toPlainText()

    def set_link_color(self, color: str) -> None:
        """Links take the theme's link colour (Qt reads it from the palette, not QSS)."""
        self._link_color = QColor(color)
        if self._browser is not None:
            self._browser.setPalette(self._link_palette())

    def set_markdown(self, text: str) -> None:
        changed = text != self._text
        self._doc.setMarkdown(text, _FEATURES)
        self._text = text
        if self._link_color is not None:
            _tint_links(self._doc, text, self._link_color)
        if self._browser is None:  # read out as a label's text; the browser says its own
            self.setAccessibleName(self._doc.toPlainText())
        self._fit()
        if changed and self._scrolled_once and self.reset_seen is not None:
            self.reset_seen()

    def loadResource(self, type: int, name: QUrl | str) -> Any:
        return self._doc.loadResource(type, name)

    def _clicked(self, url: QUrl) -> None:
        # Inert unless the scheme is allowed; the card shows the target before opening.
        self.anchorClicked.emit(url)
        text = url.toString()
        if link_allowed(text):
            self.linkRequested.emit(text)
            if self._open_link is not None:
                self._open_link(text)

    def _link_palette(self) -> QPalette:
        palette = self.palette()
        if self._link_color is not None:
            palette.setColor(QPalette.ColorRole.Link, self._link_color)
        return palette

    def _sync_font(self) -> None:
        # The document takes the view's font, as a text browser's does on a FontChange.
        font = self.font()
        if self._font is None or font != self._font:
            self._doc.setDefaultFont(font)
            self._font = font
            self._font_key = _font_key(font)

    def _fit(self) -> None:
        self._sync_font()
        browser = self._browser
        width = max(browser.viewport().width() if browser is not None else self._width, 50)
        self._doc.setTextWidth(width)
        h = self._height_at(width) if browser is None else int(self._doc.size().height()) + 2
        self.setFixedHeight(min(h, self._max_height))
        # On screen, that resize fits the text again at once (`resizeEvent`), which may
        # have put the browser over the view already: one browser, never two stacked.
        browser = self._browser
        if h > self._max_height and browser is None:
            browser = self._take_over()
        if browser is not None:
            scrolls = h > self._max_height
            browser.setVerticalScrollBarPolicy(
                Qt.ScrollBarPolicy.ScrollBarAsNeeded
                if scrolls
                else Qt.ScrollBarPolicy.ScrollBarAlwaysOff
            )
            if scrolls and not self._scrolled_once:
                self._scrolled_once = True
                if self.scrolls_first is not None:
                    self.scrolls_first(browser)

    def _height_at(self, width: int) -> int:
        """The document's height at `width` (+2, as the text browser's fit had), kept per
        text, font and width: the document itself is laid out when it is drawn."""
        text = self._text
        if len(text) > _KEPT_CHARS:
            return int(self._doc.size().height()) + 2
        if not _watching_screens:
            _watch_screens()
        key = (text, self._font_key, width)
        h = _HEIGHTS.get(key)
        if h is None:
            if len(_HEIGHTS) >= _KEPT:
                _HEIGHTS.clear()
            h = _HEIGHTS[key] = int(self._doc.size().height()) + 2
        return h

    def _take_over(self) -> _Browser:
        """Put the text browser over the view (once): it draws and scrolls from now on."""
        if self._browser is not None:
            return self._browser
        browser = _Browser(self)
        browser.setPalette(self._link_palette())
        browser.anchorClicked.connect(self._clicked)
        self._browser = browser
        self.setAccessibleName("")  # the browser's text is read out, not twice
        browser.show()
        self.update()
        return browser

    # ---- events ------------------------------------------------------------------------

    def resizeEvent(self, event: QResizeEvent) -> None:
        if self._browser is not None:
            self._browser.setGeometry(self.rect())
        self._width = self.width()
        self._fit()

    def enterEvent(self, event: QEnterEvent) -> None:
        if self._browser is None:
            self._take_over()
        super().enterEvent(event)

    def paintEvent(self, event: QPaintEvent) -> None:
        if self._browser is not None:
            return
        self._sync_font()
        painter = QPainter(self)
        context = QAbstractTextDocumentLayout.PaintContext()
        context.palette = self._link_palette()
        context.clip = event.rect().toRectF()
        painter.setClipRect(event.rect(), Qt.ClipOperation.IntersectClip)
        self._doc.documentLayout().draw(painter, context)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        # Without a pointer over it first (a synthesized click): links still work.
        left = event.button() == Qt.MouseButton.LeftButton
        self._pressed = self._anchor_at(event.position()) if left else ""
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        pressed, self._pressed = self._pressed, ""
        left = event.button() == Qt.MouseButton.LeftButton
        if left and pressed and self._anchor_at(event.position()) == pressed:
            self._clicked(QUrl(pressed))
        super().mouseReleaseEvent(event)

    def _anchor_at(self, pos: QPointF) -> str:
        return str(self._doc.documentLayout().anchorAt(pos))

    # ---- size --------------------------------------------------------------------------

    def sizeHint(self) -> QSize:
        return QSize(200, self.height())

    def minimumSizeHint(self) -> QSize:
        # A scroll area's: room for both scroll bars, as the text browser had.
        style = self.style()
        extent = style.pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent, None, self)
        least = style.pixelMetric(QStyle.PixelMetric.PM_ScrollBarSliderMin, None, self)
        side = 3 * extent + least
        return QSize(side, side)
