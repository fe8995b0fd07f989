"""The default microphone, as 16 kHz mono 16-bit audio (QtMultimedia's QAudioSource).

Opened only while a card is being answered by voice, and closed as soon as it is not.
"""

from __future__ import annotations

from PySide6.QtCore import QIODevice, QObject, Signal
from PySide6.QtMultimedia import QAudioFormat, QAudioSource, QMediaDevices

from notch_app.ui.voice.utterances import SAMPLE_RATE


class Microphone(QObject):
    """`audio(bytes)` as it is captured; `failed(why)` when there is no microphone."""

    audio = Signal(bytes)
    failed = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._source: QAudioSource | None = None
        self._device: QIODevice | None = None

    @property
    def is_open(self) -> bool:
        return self._source is not None

    def start(self) -> None:
        """Open the default microphone (emits `failed` when there is none)."""
        if self._source is not None:
            return
        device = QMediaDevices.defaultAudioInput()
        if device.isNull():
            self.failed.emit("no microphone found")
            return
        fmt = QAudioFormat()
        fmt.setSampleRate(SAMPLE_RATE)
        fmt.setChannelCount(1)
        fmt.setSampleFormat(QAudioFormat.SampleFormat.Int16)
        if not device.isFormatSupported(fmt):
            self.failed.emit(f"the microphone {device.description()!r} cannot record 16 kHz mono")
            return
        source = QAudioSource(device, fmt, self)
        stream = source.start()
        if stream is None:
            self.failed.emit(f"the microphone {device.description()!r} could not be opened")
            source.deleteLater()
            return
        stream.readyRead.connect(lambda: self.audio.emit(bytes(stream.readAll().data())))
        self._source, self._device = source, stream

    def stop(self) -> None:
        """Close the microphone."""
        source, self._source, self._device = self._source, None, None
        if source is not None:
            source.stop()
            source.deleteLater()
