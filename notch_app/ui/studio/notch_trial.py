"""Try in the notch: the studio's card sent to a running `notch run` as a real request
(the public client, on a worker thread, so the studio never blocks), so the author sees
the drop-down, focus and keys as a person will; the decision comes back as one line.

The running Notch asks with the integration as *it* loaded it: the folder must be among
its integrations (`notch run --manifests PARENT`), and a manifest edited since it started
shows as it was then (Settings → Reload picks the edit up).
"""

from __future__ import annotations

import contextlib
import threading
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from PySide6.QtCore import QObject, Signal

from notch_app.ipc.blocking import NotchClient
from notch_app.ipc.client import (
    NotchError,
    NotchNotRunning,
    NotchRequestError,
    NotchUntrusted,
)
from notch_app.runtime.decision import Decision

ASKER: Final = "notch preview"
"""Who the notch says is asking, in its header ("notch preview → Mail · Send email")."""


def decision_line(decision: Decision) -> str:
    """One line for a decision, as the author reads it."""
    if decision.runs:
        edited = ", ".join(decision.edited_paths) or "nothing"
        return (
            f"{decision.outcome}: it would run (edited: {edited}; "
            f"digest {decision.digest or 'none'})"
        )
    return f"{decision.outcome}: nothing runs" + (
        f" ({decision.message})" if decision.message else ""
    )


def failure_line(exc: Exception, integration: str, folder: Path) -> str:
    """What went wrong, and what to do, in one line."""
    if isinstance(exc, NotchNotRunning):
        return (
            "Notch is not running: start it with `notch run --manifests "
            f"{folder.parent}` in a terminal, then try again"
        )
    if isinstance(exc, NotchUntrusted):
        return f"Not sent: {exc}"
    if isinstance(exc, NotchRequestError):
        if "unknown integration" in exc.message or "has no tool" in exc.message:
            return (
                f"The running Notch has not loaded {integration} as it is here: restart it "
                f"with `notch run --manifests {folder.parent}` (or Settings → Reload). "
                f"It said: {exc.message}"
            )
        return f"The running Notch refused the request: {exc.message}"
    if isinstance(exc, NotchError):
        return f"Lost the running Notch: {exc}"
    return f"Could not ask the running Notch: {type(exc).__name__}: {exc}"


class NotchTrial(QObject):
    """Sends one card at a time to a running Notch; `answered(line)` fires (on the UI
    thread) with the decision or the reason there is none."""

    answered = Signal(str)

    def __init__(self, socket_path: Path | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._socket_path = socket_path
        self._lock = threading.Lock()
        self._client: NotchClient | None = None

    @property
    def busy(self) -> bool:
        """True while a request waits for the person's decision."""
        with self._lock:
            return self._client is not None

    def send(self, integration: str, tool: str, arguments: Mapping[str, Any], folder: Path) -> bool:
        """Ask the running Notch about `tool` with `arguments`, on a worker thread.
        Returns False (and sends nothing) while an earlier request is still open."""
        with self._lock:
            if self._client is not None:
                return False
            client = NotchClient(self._socket_path, reconnect_for=0.0)
            self._client = client
        worker = threading.Thread(
            target=self._ask,
            args=(client, integration, tool, dict(arguments), folder),
            name="notch-preview-trial",
            daemon=True,  # a request the person never answers must not keep the studio open
        )
        worker.start()
        return True

    def close(self) -> None:
        """Stop waiting (the studio is closing); an open request stays in the notch."""
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()

    def _ask(
        self,
        client: NotchClient,
        integration: str,
        tool: str,
        arguments: dict[str, Any],
        folder: Path,
    ) -> None:
        try:
            decision = client.confirm(
                integration,
                tool,
                arguments,
                call_id=f"preview-{uuid.uuid4().hex[:12]}",
                context={"agent": ASKER},
            )
            line = decision_line(decision)
        except Exception as exc:  # every failure is a line for the author, never a crash
            line = failure_line(exc, integration, folder)
        finally:
            client.close()
            with self._lock:
                if self._client is client:
                    self._client = None
        # The studio may have closed while the person decided: then nobody is told.
        with contextlib.suppress(RuntimeError):
            self.answered.emit(line)
