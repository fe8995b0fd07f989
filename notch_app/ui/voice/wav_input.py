"""A WAV file heard in place of the microphone: the test seam for the real recognizer.

It "plays" from `start()` (when the read-back starts playing), as a person in the room
would speak: what it holds in its first seconds arrives while the read-back is said (and is
discarded, as a microphone's would be). After its end it gives silence, like a quiet room.
It plays on the channel's clock: in real time on the wall clock, as fast as the recognizer
takes it on a test's `FileClock` (the same audio at the same moments of the file's time).
"""

from __future__ import annotations

import array
import sys
import wave
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from notch_app.ui.voice.clock import VoiceClock, WallClock
from notch_app.ui.voice.utterances import BYTES_PER_SECOND, SAMPLE_RATE

MAX_FILE_S = 120
"""Longer recordings are cut: the file is read into memory."""


class WavFileInput(QObject):
    """`audio(bytes)` every tick of the clock (~30 ms of audio), stamped in the file's own
    time; `failed(why)` for a file that is not a 16-bit PCM WAV."""

    audio = Signal(bytes)
    failed = Signal(str)

    def __init__(
        self, path: Path, parent: QObject | None = None, clock: VoiceClock | None = None
    ) -> None:
        super().__init__(parent)
        self._path = path
        self._pcm = b""
        self._sent = 0
        self._clock = clock or WallClock()
        self._began = 0.0
        self._ticks = self._clock.ticks(self, self._play_until)

    @property
    def is_open(self) -> bool:
        return self._ticks.isActive()

    def start(self) -> None:
        """Start "playing" the file from its beginning (again only after `stop`)."""
        if self._ticks.isActive():
            return
        try:
            self._pcm = read_wav_16k_mono(self._path)
        except (OSError, wave.Error, EOFError, ValueError) as exc:
            self.failed.emit(f"{self._path}: {exc}")
            return
        self._sent = 0
        self._began = self._clock.now()
        self._ticks.start()

    def stop(self) -> None:
        self._ticks.stop()

    def _play_until(self, now: float) -> None:
        """Hand on the audio from where it stopped up to `now` (silence past the end)."""
        due = int((now - self._began) * BYTES_PER_SECOND) & ~1
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
