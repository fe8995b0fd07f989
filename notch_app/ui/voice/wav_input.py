"""A WAV file heard in place of the microphone: the test seam for the real recognizer.

It "plays" in real time from `start()` (when the read-back starts playing), as a person
in the room would speak: what it holds in its first seconds arrives while the read-back is
said (and is discarded, as a
microphone's would be). After its end it gives silence, like a quiet room.
"""

from __future__ import annotations

import array
import sys
import time
import wave
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal

from notch_app.ui.voice.utterances import BYTES_PER_SECOND, SAMPLE_RATE

TICK_MS = 30
MAX_FILE_S = 120
"""Longer recordings are cut: the file is read into memory."""


class WavFileInput(QObject):
    """`audio(bytes)` every ~30 ms, paced by the clock; `failed(why)` for a file that is
    not a 16-bit PCM WAV."""

    audio = Signal(bytes)
    failed = Signal(str)

    def __init__(self, path: Path, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._path = path
        self._pcm = b""
        self._sent = 0
        self._began = 0.0
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._tick)

    @property
    def is_open(self) -> bool:
        return self._timer.isActive()

    def start(self) -> None:
        """Start "playing" the file from its beginning (again only after `stop`)."""
        if self._timer.isActive():
            return
        try:
            self._pcm = read_wav_16k_mono(self._path)
        except (OSError, wave.Error, EOFError, ValueError) as exc:
            self.failed.emit(f"{self._path}: {exc}")
            return
        self._sent = 0
        self._began = time.monotonic()
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    def _tick(self) -> None:
        due = int((time.monotonic() - self._began) * BYTES_PER_SECOND) & ~1
        if due <= self._sent:
            return
        chunk = self._pcm[self._sent : due]
        silence = bytes(due - self._sent - len(chunk))
        self._sent = due
        self.audio.emit(chunk + silence)


def read_wav_16k_mono(path: Path) -> bytes:
    """The file's audio as 16 kHz mono s16le. Raises ValueError naming what is wrong."""
    with wave.open(str(path), "rb") as recording:
        if recording.getsampwidth() != 2:
            raise ValueError("not 16-bit PCM; convert it, e.g. sox IN -b 16 OUT.wav")
        channels = recording.getnchannels()
        rate = recording.getframerate()
        frames = min(recording.getnframes(), rate * MAX_FILE_S)
        samples = array.array("h", recording.readframes(frames))
    if sys.byteorder == "big":
        samples.byteswap()
    if channels > 1:
        samples = array.array(
            "h",
            (sum(samples[i : i + channels]) // channels for i in range(0, len(samples), channels)),
        )
    if rate != SAMPLE_RATE and samples:
        # Linear interpolation: plenty for speech recognition at 16 kHz.
        step = rate / SAMPLE_RATE
        last = len(samples) - 1
        out = array.array("h")
        for n in range(int(len(samples) / step)):
            x = n * step
            i = int(x)
            j = min(i + 1, last)
            out.append(int(samples[i] + (samples[j] - samples[i]) * (x - i)))
        samples = out
    if sys.byteorder == "big":
        samples.byteswap()
    return samples.tobytes()
