"""An image on a card, from a source the card may use, else a placeholder with its alt text.

Allowed sources: `data:` URIs; files inside the integration's folder (resolved, symlinks
followed, anything escaping the folder refused); `https://` URLs on a domain the
integration declares in `permissions`, fetched asynchronously by QNetworkAccessManager
(never on the UI thread), at most MAX_IMAGE_BYTES and FETCH_TIMEOUT_MS.
"""

from __future__ import annotations

import base64
import binascii
from pathlib import Path
from urllib.parse import unquote_to_bytes, urlsplit

from PySide6.QtCore import QByteArray, QRectF, QSize, Qt, QUrl
from PySide6.QtGui import QImage, QImageReader, QPainter, QPaintEvent, QPixmap
from PySide6.QtNetwork import QNetworkAccessManager, QNetworkReply, QNetworkRequest
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from notch_app.ui.theme import Look, style_text
from notch_app.ui.widgets.shapes import paint_round

MAX_IMAGE_BYTES = 2 * 1024 * 1024
FETCH_TIMEOUT_MS = 5000
_MAX_DECODE_MB = 64  # a tiny PNG can claim a gigapixel canvas; Qt refuses above this


class ImageRefused(ValueError):
    """Why an image source is not shown (the reason is for tests and logs, never the card)."""


def domain_allowed(host: str, domains: tuple[str, ...]) -> bool:
    """`host` equals a declared domain, or is under a declared `*.example.com`."""
    host = host.lower().rstrip(".")
    for d in domains:
        d = d.lower().rstrip(".")
        if d.startswith("*."):
            if host.endswith(d[1:]) and host != d[2:]:
                return True
            if host == d[2:]:
                return True
        elif host == d:
            return True
    return False


def decode_data_uri(src: str) -> bytes:
    """The bytes of a `data:image/...` URI. Raises ImageRefused for anything else."""
    head, sep, payload = src.partition(",")
    if not sep or not head.lower().startswith("data:image/"):
        raise ImageRefused("only data:image/... URIs are shown")
    try:
        data = (
            base64.b64decode(payload, validate=False)
            if head.lower().endswith(";base64")
            else unquote_to_bytes(payload)
        )
    except (binascii.Error, ValueError) as exc:
        raise ImageRefused("the data: URI is not valid base64") from exc
    if len(data) > MAX_IMAGE_BYTES:
        raise ImageRefused("the image is larger than 2 MB")
    return data


def read_local(src: str, base_dir: Path | None) -> bytes:
    """The bytes of a file inside `base_dir`. Raises ImageRefused for absolute paths,
    `..` escapes, symlinks pointing outside, missing or oversized files."""
    if base_dir is None:
        raise ImageRefused("no integration folder to read images from")
    if src.startswith(("/", "\\", "~")) or ":" in src:
        raise ImageRefused("image paths are relative to the integration folder")
    root = base_dir.resolve()
    target = (root / src).resolve()
    if not target.is_relative_to(root):
        raise ImageRefused("the image path leaves the integration folder")
    try:
        if target.stat().st_size > MAX_IMAGE_BYTES:
            raise ImageRefused("the image is larger than 2 MB")
        return target.read_bytes()
    except OSError as exc:
        raise ImageRefused(f"cannot read the image ({exc.strerror})") from exc


def decode_image(data: bytes) -> QImage:
    QImageReader.setAllocationLimit(_MAX_DECODE_MB)
    image = QImage.fromData(QByteArray(data))
    if image.isNull():
        raise ImageRefused("not an image Qt can read")
    return image


class ImageView(QWidget):
    """Shows one image scaled to `height`, or a placeholder with the alt text."""

    _network: QNetworkAccessManager | None = None

    def __init__(
        self,
        alt: str,
        height: int,
        max_width: int,
        base_dir: Path | None,
        network_domains: tuple[str, ...],
        parent: QWidget | None = None,
        *,
        look: Look | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("ImageFrame")
        self._look = look
        self._alt = alt
        self._height = height
        self._max_width = max_width
        self._base_dir = base_dir
        self._domains = network_domains
        self._reply: QNetworkReply | None = None
        self.refusal: str | None = None
        self.source_kind = "placeholder"
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self._label = QLabel()
        self._label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self._label.setObjectName("ImagePlaceholder")
        self._label.setAccessibleName(alt)
        self._label.setWordWrap(True)
        if look is not None:
            style_text(self._label, "ImagePlaceholder", look)
        layout.addWidget(self._label)
        self.setFixedHeight(height)
        self._placeholder()

    def paintEvent(self, event: QPaintEvent) -> None:
        # The frame behind the image (or its placeholder), in the theme's colours.
        if self._look is not None:
            p = QPainter(self)
            paint_round(p, QRectF(self.rect()), self._look.radius["image"],
                        self._look.color("placeholder_fill"))  # fmt: skip

    def _placeholder(self) -> None:
        self.source_kind = "placeholder"
        self._label.setPixmap(QPixmap())
        self._label.setText(self._alt)
        self.setToolTip(self._alt)

    def _show(self, image: QImage, kind: str) -> None:
        pix = QPixmap.fromImage(image)
        pix.setDevicePixelRatio(1.0)
        scaled = pix.scaled(
            QSize(self._max_width, self._height),
            Qt.AspectRatioMode.KeepAspectRatio,
            Qt.TransformationMode.SmoothTransformation,
        )
        self._label.setText("")
        self._label.setPixmap(scaled)
        self.source_kind = kind
        self.refusal = None

    def set_source(self, src: str) -> None:
        """Show `src` if it is allowed, else the placeholder (the reason in `refusal`)."""
        if self._reply is not None:
            self._reply.abort()
            self._reply = None
        self._placeholder()
        try:
            if src.lower().startswith("data:"):
                self._show(decode_image(decode_data_uri(src)), "data")
            elif src.lower().startswith(("https://", "http://")):
                self._fetch(src)
            else:
                self._show(decode_image(read_local(src, self._base_dir)), "file")
        except ImageRefused as exc:
            self.refusal = str(exc)
            self._placeholder()

    def _fetch(self, src: str) -> None:
        parts = urlsplit(src)
        if parts.scheme.lower() != "https":
            raise ImageRefused("remote images load only over https")
        if not parts.hostname or not domain_allowed(parts.hostname, self._domains):
            raise ImageRefused("the image's domain is not declared in permissions")
        if ImageView._network is None:
            ImageView._network = QNetworkAccessManager()
        request = QNetworkRequest(QUrl(src))
        request.setTransferTimeout(FETCH_TIMEOUT_MS)
        request.setAttribute(
            QNetworkRequest.Attribute.RedirectPolicyAttribute,
            QNetworkRequest.RedirectPolicy.NoLessSafeRedirectPolicy,
        )
        reply = ImageView._network.get(request)
        self._reply = reply
        self.refusal = "loading"
        reply.downloadProgress.connect(lambda got, _total: self._guard_size(reply, got))
        reply.finished.connect(lambda: self._fetched(reply))

    def _guard_size(self, reply: QNetworkReply, received: int) -> None:
        if received > MAX_IMAGE_BYTES:
            self.refusal = "the image is larger than 2 MB"
            reply.abort()

    def _fetched(self, reply: QNetworkReply) -> None:
        reply.deleteLater()
        if reply is not self._reply:
            return
        self._reply = None
        if reply.error() != QNetworkReply.NetworkError.NoError:
            if self.refusal == "loading":
                self.refusal = f"could not load the image ({reply.errorString()})"
            return
        # A redirect may have left the declared domains: check where the bytes came from.
        host = reply.url().host()
        if not domain_allowed(host, self._domains):
            self.refusal = "the image was redirected off the declared domains"
            return
        try:
            data = bytes(reply.read(MAX_IMAGE_BYTES + 1).data())
            if len(data) > MAX_IMAGE_BYTES:
                raise ImageRefused("the image is larger than 2 MB")
            self._show(decode_image(data), "network")
        except ImageRefused as exc:
            self.refusal = str(exc)
