"""Markdown that cannot reach out: raw HTML shows as literal text, images never load,
links are only reported (the card shows the target and opens it after a second click).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QSize, Qt, QUrl, Signal
from PySide6.QtGui import (
    QColor,
    QImage,
    QPainter,
    QPalette,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
)
from PySide6.QtWidgets import QFrame, QSizePolicy, QTextBrowser, QWidget

ALLOWED_LINK_SCHEMES = frozenset({"https", "http", "mailto"})
_FEATURES = QTextDocument.MarkdownFeature(
    QTextDocument.MarkdownFeature.MarkdownDialectGitHub.value
    | QTextDocument.MarkdownFeature.MarkdownNoHTML.value
)


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


class MarkdownView(QTextBrowser):
    """Read-only markdown, sized to its content up to `max_height` (then it scrolls)."""

    linkRequested = Signal(str)

    def __init__(self, max_height: int = 260, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("Markdown")
        self._doc = SafeDocument(self)
        self.setDocument(self._doc)
        self._doc.setDocumentMargin(0)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self._max_height = max_height
        self.anchorClicked.connect(self._on_anchor)

    @property
    def refused_resources(self) -> list[str]:
        return list(self._doc.refused)

    def set_link_color(self, color: str) -> None:
        """Links take the theme's link colour (Qt reads it from the palette, not QSS)."""
        pal = self.palette()
        pal.setColor(QPalette.ColorRole.Link, QColor(color))
        self.setPalette(pal)
        self._link_color = QColor(color)

    def set_markdown(self, text: str) -> None:
        self._doc.setMarkdown(text, _FEATURES)
        self._tint_links()
        self._fit()

    def _tint_links(self) -> None:
        # The markdown importer colours links from the application palette; recolour them
        # with the card's theme so they stay readable on the glass.
        color = getattr(self, "_link_color", None)
        if color is None:
            return
        block = self._doc.begin()
        while block.isValid():
            it = block.begin()
            while not it.atEnd():
                fragment = it.fragment()
                if fragment.isValid() and fragment.charFormat().isAnchor():
                    cursor = QTextCursor(self._doc)
                    cursor.setPosition(fragment.position())
                    cursor.setPosition(
                        fragment.position() + fragment.length(), QTextCursor.MoveMode.KeepAnchor
                    )
                    fmt = QTextCharFormat()
                    fmt.setForeground(color)
                    cursor.mergeCharFormat(fmt)
                it += 1
            block = block.next()

    def loadResource(self, type: int, name: QUrl | str) -> Any:
        return self._doc.loadResource(type, name)

    def _on_anchor(self, url: QUrl) -> None:
        # Inert unless the scheme is allowed; the card shows the target before opening.
        text = url.toString()
        if link_allowed(text):
            self.linkRequested.emit(text)

    def _fit(self) -> None:
        width = max(self.viewport().width(), 50)
        self._doc.setTextWidth(width)
        h = int(self._doc.size().height()) + 2
        self.setFixedHeight(min(h, self._max_height))
        self.setVerticalScrollBarPolicy(
            Qt.ScrollBarPolicy.ScrollBarAsNeeded
            if h > self._max_height
            else Qt.ScrollBarPolicy.ScrollBarAlwaysOff
        )

    def resizeEvent(self, event: Any) -> None:
        super().resizeEvent(event)
        self._fit()

    def sizeHint(self) -> QSize:
        return QSize(200, self.height())
