"""Hearing runs on a thread of its own: finding utterances and recognizing them never
blocks the notch. The thread exists only while "Answer by voice" is on; it is a daemon
thread, so a notch that quits mid-sentence never waits for it.

On a test's `FileClock` the file's time stands still while the thread has audio left to
take (it says when it has caught up): a slow decode never lets the file run ahead of what
was heard, as it cannot in real time."""

from __future__ import annotations

import queue
import threading
import time
from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QObject, Signal

from notch_app.ui.voice.clock import VoiceClock, WallClock
from notch_app.ui.voice.recognizer import Heard
from notch_app.ui.voice.utterances import UtteranceFinder

MAX_WAITING_CHUNKS = 400
"""Audio waiting for the hearing thread (~12 s at 30 ms a chunk); past it, chunks are
dropped rather than memory growing behind a stalled recognizer."""


class _Recognizer(Protocol):
    def hear(self, pcm: bytes) -> Heard: ...


class Hearing(QObject):
    """The UI thread's face of the hearing thread. Its signals are delivered on the UI
    thread (queued: the emitting object lives there)."""

    ready = Signal()
    failed = Signal(str)
    speechStarted = Signal(float)
    """An utterance began, this many seconds after listening began."""
    heard = Signal(str, str, str, float)
    """(words, verdict, heard_by, monotonic time its end was found)."""
    caughtUp = Signal(int)
    """The thread took this many messages and has none left (only on a clock that waits
    for it, a test's FileClock)."""

    def __init__(
        self,
        whisper_model: Path | None = None,
        parent: QObject | None = None,
        clock: VoiceClock | None = None,
    ) -> None:
        super().__init__(parent)
        self._whisper_model = whisper_model
        self._inbox: queue.Queue[tuple[str, int, bytes]] = queue.Queue(MAX_WAITING_CHUNKS)
        self._epoch = 0
        self._clock = clock or WallClock()
        self._keeps_pace = not self._clock.real_time
        self._sent = 0  # messages put in the inbox (the UI thread's count)
        if self._keeps_pace:
            self.caughtUp.connect(self._on_caught_up)
        self._thread = threading.Thread(target=self._run, name="notch-voice-hearing", daemon=True)
        self._thread.start()

    def listen(self) -> None:
        """Count what is heard from now on (a new utterance finder)."""
        self._epoch += 1
        self._send("listen")

    def pause(self) -> None:
        """Discard what is heard until `listen` (the read-back plays)."""
        self._epoch += 1
        self._send("pause")

    def feed(self, pcm: bytes) -> None:
        self._send("feed", pcm)

    def close(self) -> None:
        """End the hearing thread (voice turned off, or Notch quits)."""
        self._epoch += 1
        self._send("close")
        self._clock.release(self)  # a closed thread never catches up

    def _send(self, what: str, pcm: bytes = b"") -> None:
        if what != "feed":  # a control word always gets through (the thread drains fast)
            self._inbox.put((what, self._epoch, pcm), timeout=1)
        else:
            try:  # a stalled recognizer loses audio, never memory
                self._inbox.put_nowait((what, self._epoch, pcm))
            except queue.Full:
                return
        self._sent += 1
        self._clock.hold(self)

    def _on_caught_up(self, taken: int) -> None:
        if taken == self._sent:  # else more was sent since: its own caughtUp follows
            self._clock.release(self)

    # ---- the hearing thread ------------------------------------------------------

    def _run(self) -> None:
        recognizer = self._load()
        finder: UtteranceFinder | None = None
        epoch = -1
        taken = 0
        while True:
            what, sent_in, pcm = self._inbox.get()
            if what == "close":
                return
            if what == "listen":
                finder, epoch = UtteranceFinder(), sent_in
            elif what == "pause":
                finder = None
            elif finder is not None and sent_in == epoch and recognizer is not None:
                finder = self._hear(finder, recognizer, pcm)
            taken += 1
            if self._keeps_pace and self._inbox.empty():
                self.caughtUp.emit(taken)  # after what it heard: queued in that order

    def _load(self) -> _Recognizer | None:
        try:
            if self._whisper_model is not None:
                from notch_app.ui.voice.whisper_backend import WhisperRecognizer

                recognizer: _Recognizer = WhisperRecognizer(self._whisper_model)
            else:
                from notch_app.ui.voice.recognizer import ReplyRecognizer

                recognizer = ReplyRecognizer()
        except Exception as exc:  # a missing model is said on the card, never a crash
            self.failed.emit(str(exc))
            return None
        self.ready.emit()
        return recognizer

    def _hear(
        self, finder: UtteranceFinder, recognizer: _Recognizer, pcm: bytes
    ) -> UtteranceFinder | None:
        """Feed one chunk; returns the finder to go on with (None once a reply was heard:
        one reply per listening)."""
        was_speaking = finder.in_speech
        ended = finder.feed(pcm)
        start = finder.speech_start_s
        if not was_speaking and (start is not None or ended):
            self.speechStarted.emit(start if start is not None else ended[0].start_s)
        if not ended:
            return finder
        found = time.monotonic()
        said = recognizer.hear(ended[0].pcm)
        self.heard.emit(said.words, said.verdict, said.heard_by, found)
        return None
