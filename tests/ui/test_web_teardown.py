"""Widget pages closed while they load: Chromium reads a page's document on its own IO
thread, so the document's body must outlive the request job (freed with it, a close
mid-load could pull it out from under a read and crash the whole notch). Each page here
is closed at a different point of its load; the process must live on, and every body
must be let go of afterwards."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QCoreApplication, QEvent

web = pytest.importorskip("notch_app.ui.web")
if not web.web_engine_available():
    pytest.skip("QtWebEngine is not installed (the web extra)", allow_module_level=True)

# Chromium runs in this module's own pytest process (tests/conftest.py); it is started,
# and its module imported, inside the tests only.
pytestmark = pytest.mark.web_engine


def sandbox_engine() -> Any:
    from notch_app.ui.web.sandbox import sandbox_engine as engine

    return engine()


PAGE = "<!doctype html><meta charset=utf-8><p>" + "x" * 200_000 + "</p>"


def _page() -> Any:
    widget = web.make_html_widget(PAGE, data={}, theme="dark", height=80, label="Page")
    widget.resize(400, 80)
    widget.show()
    return widget


def _delete_now(widget: Any) -> None:
    widget.close()
    widget.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def test_pages_closed_at_every_point_of_their_load_leave_nothing_behind(qtbot: Any) -> None:
    documents = sandbox_engine().documents
    for _ in range(3):
        _delete_now(_page())  # before its document was asked for
        # Once the bodies of earlier pages are let go, a held body is this page's own.
        qtbot.waitUntil(lambda: documents.serving == 0, timeout=20_000)
        widget = _page()
        qtbot.waitUntil(lambda: documents.serving > 0, timeout=20_000)
        _delete_now(widget)  # while its document is being served
    widget = _page()
    with qtbot.waitSignal(widget.ready, timeout=20_000):
        pass  # the engine still serves a page after all that
    _delete_now(widget)
    qtbot.waitUntil(lambda: documents.serving == 0, timeout=20_000)


def test_a_body_is_held_past_its_jobs_end(qtbot: Any) -> None:
    documents = sandbox_engine().documents
    qtbot.waitUntil(lambda: documents.serving == 0, timeout=20_000)
    widget = _page()
    qtbot.waitUntil(lambda: documents.serving == 1, timeout=20_000)
    _delete_now(widget)
    assert documents.serving == 1  # not freed with the page
    qtbot.waitUntil(lambda: documents.serving == 0, timeout=20_000)
