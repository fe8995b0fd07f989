"""The fence around widget pages: one off-the-record profile of Notch's own, a request
interceptor that refuses everything but each page's own document, and a page that refuses
navigation, popups, permissions, file choosers and blocking dialogs.

Each page is served from its own `notch-widget://w<token>/` URL by a scheme handler that
hands the document out once. The interceptor lets exactly those pending documents through
as main frames and blocks every other request it sees (http, https, ws, file, qrc, data,
another widget's URL), so "everything else is refused" is one rule, not a list of schemes.
The engine is imported by this module: only the first widget imports it.
"""

from __future__ import annotations

import re
import secrets
from typing import Any

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QObject, QTimer, QUrl
from PySide6.QtWebEngineCore import (
    QWebEngineDownloadRequest,
    QWebEngineFileSystemAccessRequest,
    QWebEngineFullScreenRequest,
    QWebEnginePage,
    QWebEnginePermission,
    QWebEngineProfile,
    QWebEngineRegisterProtocolHandlerRequest,
    QWebEngineSettings,
    QWebEngineUrlRequestInfo,
    QWebEngineUrlRequestInterceptor,
    QWebEngineUrlRequestJob,
    QWebEngineUrlScheme,
    QWebEngineUrlSchemeHandler,
)
from PySide6.QtWidgets import QApplication

from notch_app.ui.web.engine_flags import apply_chromium_flags

SCHEME = "notch-widget"
BODY_GRACE_MS = 2000
"""How long a served document's body is kept after its request job ends."""

CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'unsafe-inline' 'unsafe-eval'; "
    "style-src 'unsafe-inline'; img-src data: blob:; font-src data:; media-src data: blob:; "
    "connect-src 'none'; frame-src 'none'; child-src 'none'; worker-src 'none'; "
    "object-src 'none'; form-action 'none'; base-uri 'none'"
)
"""A second layer behind the interceptor: the page may run inline code and show inline
media, and may load nothing by URL. A <meta> first in the document (Qt's scheme handler
drops a Content-Security-Policy response header, measured: no violation was reported)."""

_DOCTYPE = re.compile(r"\A\s*<!doctype[^>]*>", re.IGNORECASE)

NO_PEER_CONNECTIONS_SCRIPT = r"""
(function () {
  "use strict";
  var names = Object.getOwnPropertyNames(window);
  for (var i = 0; i < names.length; i++) {
    if (/^(webkit)?RTC|^WebTransport/.test(names[i])) {
      try { delete window[names[i]]; } catch (e) {}
    }
  }
})();
"""
"""Run in the page's own world before any of its scripts, in every frame: WebRTC and
WebTransport are not there to call. A courtesy that fails early and plainly, not the fence
(a page can find a constructor again in a frame made before this ran): the engine's flags
are what keep WebRTC off the network (engine_flags.NETWORK_FENCE)."""


def widget_document(html: str, mode: str) -> str:
    """The page's HTML as served: the CSP and the colour scheme (so unstyled text reads on
    the card) as its first elements, after the doctype, which must stay first."""
    policy = CONTENT_SECURITY_POLICY.replace('"', "&quot;")
    head = (
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
        f'<meta name="color-scheme" content="{"light" if mode == "light" else "dark"}">'
    )
    found = _DOCTYPE.match(html)
    if found:
        return html[: found.end()] + head + html[found.end() :]
    return head + html


_OFF = (
    QWebEngineSettings.WebAttribute.JavascriptCanOpenWindows,
    QWebEngineSettings.WebAttribute.JavascriptCanAccessClipboard,
    QWebEngineSettings.WebAttribute.JavascriptCanPaste,
    QWebEngineSettings.WebAttribute.LocalContentCanAccessFileUrls,
    QWebEngineSettings.WebAttribute.LocalContentCanAccessRemoteUrls,
    QWebEngineSettings.WebAttribute.PluginsEnabled,
    QWebEngineSettings.WebAttribute.PdfViewerEnabled,
    QWebEngineSettings.WebAttribute.FullScreenSupportEnabled,
    QWebEngineSettings.WebAttribute.ScreenCaptureEnabled,
    QWebEngineSettings.WebAttribute.HyperlinkAuditingEnabled,
    QWebEngineSettings.WebAttribute.DnsPrefetchEnabled,
    QWebEngineSettings.WebAttribute.AllowRunningInsecureContent,
    QWebEngineSettings.WebAttribute.AllowGeolocationOnInsecureOrigins,
    QWebEngineSettings.WebAttribute.AllowWindowActivationFromJavaScript,
    QWebEngineSettings.WebAttribute.ErrorPageEnabled,
    QWebEngineSettings.WebAttribute.FocusOnNavigationEnabled,
    QWebEngineSettings.WebAttribute.AutoLoadIconsForPage,
    QWebEngineSettings.WebAttribute.TouchIconsEnabled,
    QWebEngineSettings.WebAttribute.NavigateOnDropEnabled,  # a dropped file would load
    QWebEngineSettings.WebAttribute.SpatialNavigationEnabled,
    QWebEngineSettings.WebAttribute.BackForwardCacheEnabled,
)
_ON = (
    QWebEngineSettings.WebAttribute.JavascriptEnabled,
    QWebEngineSettings.WebAttribute.AutoLoadImages,  # data: images only; the rest is refused
    QWebEngineSettings.WebAttribute.WebRTCPublicInterfacesOnly,
    QWebEngineSettings.WebAttribute.PlaybackRequiresUserGesture,
    # Off the record, so in memory only, and each page is its own origin: nothing shared.
    QWebEngineSettings.WebAttribute.LocalStorageEnabled,
)


class WidgetDocuments(QWebEngineUrlSchemeHandler):
    """The documents waiting to be loaded, each under its own token; handed out once."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._pending: dict[str, bytes] = {}
        self._serving: set[QBuffer] = set()
        """The bodies being handed out. Chromium reads a body on its IO thread and lets go
        of it only after the job object is gone on this one, so a body is dropped a while
        after its job's end, never with it (a body parented to the job could be freed
        under a read when a page closes mid-load)."""

    def add(self, html: str, mode: str) -> QUrl:
        """Keep `html` for one load, with the CSP and the theme's colour scheme declared
        before anything of the page, and return the URL to load it from."""
        token = "w" + secrets.token_hex(12)
        self._pending[token] = widget_document(html, mode).encode("utf-8")
        return QUrl(f"{SCHEME}://{token}/")

    def forget(self, url: QUrl) -> None:
        """Drop a document that will not be loaded (its widget closed first)."""
        self._pending.pop(url.host(), None)

    def is_pending(self, url: QUrl) -> bool:
        """True for the exact URL of a document not yet handed out."""
        return (
            url.scheme() == SCHEME
            and url.host() in self._pending
            and url.toString() == f"{SCHEME}://{url.host()}/"
        )

    def requestStarted(self, job: QWebEngineUrlRequestJob) -> None:
        url = job.requestUrl()
        html = self._pending.pop(url.host(), None) if self.is_pending(url) else None
        if html is None or bytes(job.requestMethod().data()) != b"GET":
            job.fail(QWebEngineUrlRequestJob.Error.RequestDenied)
            return
        body = QBuffer()
        body.setData(QByteArray(html))
        body.open(QIODevice.OpenModeFlag.ReadOnly)
        self._serving.add(body)
        job.destroyed.connect(lambda *_: self._release_later(body))
        job.reply(QByteArray(b"text/html;charset=utf-8"), body)

    def _release_later(self, body: QBuffer) -> None:
        QTimer.singleShot(BODY_GRACE_MS, self, lambda: self._serving.discard(body))

    @property
    def serving(self) -> int:
        """How many bodies are still held (a diagnostic for tests)."""
        return len(self._serving)


class RefuseAllButTheDocument(QWebEngineUrlRequestInterceptor):
    """Blocks every request except a page's own pending document, loaded as a main frame."""

    def __init__(self, documents: WidgetDocuments, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._documents = documents
        self.refused = 0
        """How many requests were blocked (all pages); a diagnostic, never shown."""

    def interceptRequest(self, info: QWebEngineUrlRequestInfo) -> None:
        allowed = (
            info.resourceType() == QWebEngineUrlRequestInfo.ResourceType.ResourceTypeMainFrame
            and self._documents.is_pending(info.requestUrl())
        )
        if not allowed:
            self.refused += 1
        info.block(not allowed)


class SandboxEngine:
    """The profile every widget page shares (created on the first widget, then warm)."""

    def __init__(self) -> None:
        scheme = QWebEngineUrlScheme(SCHEME.encode())
        scheme.setSyntax(QWebEngineUrlScheme.Syntax.Host)
        # A secure context (as VoiceOS's widget frames are: crypto.randomUUID works); the
        # powerful features that unlocks are all denied below.
        scheme.setFlags(QWebEngineUrlScheme.Flag.SecureScheme)
        QWebEngineUrlScheme.registerScheme(scheme)
        app = QApplication.instance()
        # No storage name: off the record (no disk cache, cookies or storage on disk).
        self.profile = QWebEngineProfile(app)
        self.documents = WidgetDocuments(self.profile)
        self.interceptor = RefuseAllButTheDocument(self.documents, self.profile)
        profile = self.profile
        profile.setHttpCacheType(QWebEngineProfile.HttpCacheType.MemoryHttpCache)
        profile.setPersistentCookiesPolicy(
            QWebEngineProfile.PersistentCookiesPolicy.NoPersistentCookies
        )
        profile.setPersistentPermissionsPolicy(
            QWebEngineProfile.PersistentPermissionsPolicy.AskEveryTime
        )
        profile.setSpellCheckEnabled(False)
        profile.setPushServiceEnabled(False)
        profile.cookieStore().setCookieFilter(lambda request: False)
        profile.installUrlSchemeHandler(SCHEME.encode(), self.documents)
        profile.setUrlRequestInterceptor(self.interceptor)
        profile.downloadRequested.connect(_cancel_download)
        settings = profile.settings()
        for attribute in _OFF:
            settings.setAttribute(attribute, False)
        for attribute in _ON:
            settings.setAttribute(attribute, True)
        settings.setUnknownUrlSchemePolicy(
            QWebEngineSettings.UnknownUrlSchemePolicy.DisallowUnknownUrlSchemes
        )


def _cancel_download(download: QWebEngineDownloadRequest) -> None:
    download.cancel()


_engine: SandboxEngine | None = None


def sandbox_engine() -> SandboxEngine:
    """The shared widget engine, started on first use (Chromium flags applied just before)."""
    global _engine
    if _engine is None:
        apply_chromium_flags()
        _engine = SandboxEngine()
    return _engine


class SandboxPage(QWebEnginePage):
    """A widget page: it loads its one document and then stays there. Navigation, new
    windows, permissions, file choosers, full screen and protocol handlers are refused;
    alert/confirm/prompt answer "no" at once instead of opening a blocking dialog."""

    def __init__(self, engine: SandboxEngine, parent: QObject | None = None) -> None:
        super().__init__(engine.profile, parent)
        self._loaded_once = False
        self.permissionRequested.connect(_deny_permission)
        self.fullScreenRequested.connect(_reject_full_screen)
        self.fileSystemAccessRequested.connect(_reject_file_system)
        self.registerProtocolHandlerRequested.connect(_reject_protocol_handler)

    def acceptNavigationRequest(
        self, url: QUrl | str, type: QWebEnginePage.NavigationType, isMainFrame: bool
    ) -> bool:
        target = QUrl(url)
        if not isMainFrame:
            # Inline frames may hold only what the page writes into them itself.
            return target.toString() in ("about:blank", "about:srcdoc")
        if self._loaded_once:
            return False
        self._loaded_once = True
        return target.scheme() == SCHEME

    def createWindow(self, type: QWebEnginePage.WebWindowType) -> QWebEnginePage | None:  # type: ignore[override]
        return None

    def chooseFiles(
        self,
        mode: QWebEnginePage.FileSelectionMode,
        oldFiles: Any,
        acceptedMimeTypes: Any,
    ) -> list[str]:
        return []

    def javaScriptAlert(self, securityOrigin: QUrl | str, msg: str) -> None:
        return None

    def javaScriptConfirm(self, securityOrigin: QUrl | str, msg: str) -> bool:
        return False

    def javaScriptPrompt(
        self, securityOrigin: QUrl | str, msg: str, defaultValue: str
    ) -> tuple[bool, str]:
        return False, ""

    def javaScriptConsoleMessage(
        self,
        level: QWebEnginePage.JavaScriptConsoleMessageLevel,
        message: str,
        lineNumber: int,
        sourceID: str,
    ) -> None:
        return None  # a page's console is its author's, not Notch's log


def _deny_permission(permission: QWebEnginePermission) -> None:
    permission.deny()


def _reject_full_screen(request: QWebEngineFullScreenRequest) -> None:
    request.reject()


def _reject_file_system(request: QWebEngineFileSystemAccessRequest) -> None:
    request.reject()


def _reject_protocol_handler(request: QWebEngineRegisterProtocolHandlerRequest) -> None:
    request.reject()
