"""The read-back, spoken by espeak-ng and played on the default audio output.

The moment it has played to its end matters: only words after it answer the card. Where
no audio output exists (a server, CI) the rendered speech is "played" on a timer of its
own length, so that moment is the same as with speakers. On a test's `FileClock` it always
is, in the file's time, and that time stands still while espeak-ng renders.
"""

from __future__ import annotations

import io
import shutil
import wave

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QObject, QProcess, Signal
from PySide6.QtMultimedia import QAudio, QAudioFormat, QAudioSink, QMediaDevices

from notch_app.ui.voice.clock import VoiceClock, WallClock

ESPEAK = "espeak-ng"
VOICE = "en-us"
MAX_READ_BACK_CHARS = 600
"""A read-back is one sentence; a longer text is cut (an agent cannot make Notch talk for
minutes)."""


class ReadBackSpeaker(QObject):
    """Says one text at a time; `finished` once it has played to its end, `failed(why)`
    when it cannot be said (espeak-ng missing or broken)."""

    started = Signal()
    """The read-back began to play (rendering is done)."""
    finished = Signal()
    failed = Signal(str)

    def __init__(self, parent: QObject | None = None, clock: VoiceClock | None = None) -> None:
        super().__init__(parent)
        self._process: QProcess | None = None
        self._sink: QAudioSink | None = None
        self._buffer: QBuffer | None = None
        self._clock = clock or WallClock()
        self._played = self._clock.one_shot(self, self.finished.emit)
        """Ends a read-back played on no device, after its own length."""
        self.last_duration_s = 0.0
        """How long the last read-back lasted when played."""

    def say(self, text: str) -> None:
        """Render `text` and play it; any read-back still playing stops first."""
        self.stop()
        if shutil.which(ESPEAK) is None:
            self.failed.emit("espeak-ng is not installed (Debian: apt install espeak-ng)")
            return
        process = QProcess(self)
        process.finished.connect(lambda *_: self._rendered(process))
        process.errorOccurred.connect(lambda _e: self._not_rendered(process))
        self._clock.hold(self)  # rendering takes no time of a test's file
        # Ours before it starts: a start that fails at once is then released and stopped.
        self._process = process
        # The text goes on stdin, never on the command line: an argument that starts with
        # "-" would be an option.
        process.start(ESPEAK, ["-v", VOICE, "--stdout"])
        process.write(" ".join(text.split())[:MAX_READ_BACK_CHARS].encode() + b"\n")
        process.closeWriteChannel()

    def stop(self) -> None:
        """Stop rendering or playing (the card went away)."""
        self._played.stop()
        self._clock.release(self)
        if self._process is not None:
            process, self._process = self._process, None
            process.finished.disconnect()
            process.errorOccurred.disconnect()
            process.kill()
            process.deleteLater()
        if self._sink is not None:
            sink, self._sink = self._sink, None
            sink.stateChanged.disconnect()
            sink.stop()
            sink.deleteLater()
        self._buffer = None

    def _rendered(self, process: QProcess) -> None:
        if process is not self._process:
            return
        self._process = None
        self._clock.release(self)
        data = bytes(process.readAllStandardOutput().data())
        process.deleteLater()
        try:
            with wave.open(io.BytesIO(data)) as rendered:
                rate = rendered.getframerate()
                pcm = rendered.readframes(rendered.getnframes())
        except (wave.Error, EOFError):
            self.failed.emit("espeak-ng gave no speech")
            return
        self.last_duration_s = len(pcm) / (2 * rate)
        device = QMediaDevices.defaultAudioOutput() if self._clock.real_time else None
        if device is None or device.isNull():
            self._played.start(max(1, round(self.last_duration_s * 1000)))
            self.started.emit()
            return
        fmt = QAudioFormat()
        fmt.setSampleRate(rate)
        fmt.setChannelCount(1)
        fmt.setSampleFormat(QAudioFormat.SampleFormat.Int16)
        buffer = QBuffer(self)
        buffer.setData(QByteArray(pcm))
        buffer.open(QIODevice.OpenModeFlag.ReadOnly)
        sink = QAudioSink(device, fmt, self)
        sink.stateChanged.connect(self._on_sink_state)
        self._buffer, self._sink = buffer, sink
        sink.start(buffer)
        self.started.emit()

    def _not_rendered(self, process: QProcess) -> None:
        if process is self._process:
            self._clock.release(self)
        self.failed.emit(process.errorString())

    def _on_sink_state(self, state: QAudio.State) -> None:
        # Idle: every byte played; Stopped while still ours: the device went away.
        if state in (QAudio.State.IdleState, QAudio.State.StoppedState) and self._sink:
            self.stop()
            self.finished.emit()
