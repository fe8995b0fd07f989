"""Hearing runs on a thread of its own: finding utterances and recognizing them never
blocks the notch. The thread exists only while "Answer by voice" is on."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QObject, QThread, Signal, Slot

from notch_app.ui.voice.recognizer import Heard
from notch_app.ui.voice.utterances import UtteranceFinder


class _Recognizer(Protocol):
    def hear(self, pcm: bytes) -> Heard: ...


class _HearingWorker(QObject):
    ready = Signal()
    failed = Signal(str)
    speechStarted = Signal(float)
    heard = Signal(str, str, str, float)
    """(words, verdict, heard_by, when the utterance's end was found: time.monotonic())."""

    def __init__(self, whisper_model: Path | None) -> None:
        super().__init__()
        self._whisper_model = whisper_model
        self._recognizer: _Recognizer | None = None
        self._finder: UtteranceFinder | None = None
        self._epoch = 0

    @Slot()
    def load(self) -> None:
        try:
            if self._whisper_model is not None:
                from notch_app.ui.voice.whisper_backend import WhisperRecognizer

                self._recognizer = WhisperRecognizer(self._whisper_model)
            else:
                from notch_app.ui.voice.recognizer import ReplyRecognizer

                self._recognizer = ReplyRecognizer()
        except Exception as exc:  # a missing model is said on the card, never a crash
            self.failed.emit(str(exc))
            return
        self.ready.emit()

    @Slot(int)
    def listen(self, epoch: int) -> None:
        self._epoch = epoch
        self._finder = UtteranceFinder()

    @Slot()
    def pause(self) -> None:
        self._finder = None

    @Slot(int, bytes)
    def feed(self, epoch: int, pcm: bytes) -> None:
        finder = self._finder
        if finder is None or epoch != self._epoch:
            return  # audio from before this listening began
        was_speaking = finder.in_speech
        ended = finder.feed(pcm)
        start = finder.speech_start_s
        if not was_speaking and start is not None:
            self.speechStarted.emit(start)
        if not ended or self._recognizer is None:
            return
        found = time.monotonic()
        self._finder = None  # one reply per listening
        if not was_speaking and start is None:
            self.speechStarted.emit(ended[0].start_s)
        said = self._recognizer.hear(ended[0].pcm)
        self.heard.emit(said.words, said.verdict, said.heard_by, found)


class Hearing(QObject):
    """The UI thread's face of the hearing thread."""

    ready = Signal()
    failed = Signal(str)
    speechStarted = Signal(float)
    """An utterance began, this many seconds after listening began."""
    heard = Signal(str, str, str, float)
    """(words, verdict, heard_by, monotonic time its end was found)."""
    _listen = Signal(int)
    _pause = Signal()
    _feed = Signal(int, bytes)
    _load = Signal()

    def __init__(self, whisper_model: Path | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._thread = QThread()
        self._thread.setObjectName("notch-voice-hearing")
        self._worker = _HearingWorker(whisper_model)
        self._worker.moveToThread(self._thread)
        self._listen.connect(self._worker.listen)
        self._pause.connect(self._worker.pause)
        self._feed.connect(self._worker.feed)
        self._load.connect(self._worker.load)
        self._worker.ready.connect(self.ready)
        self._worker.failed.connect(self.failed)
        self._worker.speechStarted.connect(self.speechStarted)
        self._worker.heard.connect(self.heard)
        self._epoch = 0
        self._thread.start()
        self._load.emit()

    def listen(self) -> None:
        """Count what is heard from now on (a new utterance finder)."""
        self._epoch += 1
        self._listen.emit(self._epoch)

    def pause(self) -> None:
        """Discard what is heard until `listen` (the read-back plays)."""
        self._epoch += 1
        self._pause.emit()

    def feed(self, pcm: bytes) -> None:
        self._feed.emit(self._epoch, pcm)

    def close(self) -> None:
        """End the hearing thread (voice turned off, or Notch quits)."""
        self._thread.quit()
        self._thread.wait(5000)
        self._worker.heard.disconnect()
