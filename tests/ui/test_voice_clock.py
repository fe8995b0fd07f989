"""The FileClock the voice tests run on keeps real time's meaning: a WAV is handed on in
the file's own time, audio up to a timer's moment arrives before the timer fires (to the
sample), silence follows the file, and nothing moves while something holds the clock."""

from __future__ import annotations

import wave
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject

from notch_app.ui.voice.clock import FileClock
from notch_app.ui.voice.utterances import BYTES_PER_SECOND
from notch_app.ui.voice.wav_input import WavFileInput


def _wav(path: Path, seconds: float) -> bytes:
    """A 16 kHz mono WAV whose samples count up (never 0), so every byte has its place."""
    frames = int(seconds * 16000)
    pcm = b"".join(((n % 30000) + 1).to_bytes(2, "little") for n in range(frames))
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(16000)
        out.writeframes(pcm)
    return pcm


def test_audio_up_to_a_timers_moment_arrives_before_it_fires(qtbot: Any, tmp_path: Path) -> None:
    pcm = _wav(tmp_path / "file.wav", 1.0)
    clock = FileClock()
    owner = QObject()
    heard = bytearray()
    at_end: list[int] = []
    wav = WavFileInput(tmp_path / "file.wav", owner, clock)
    wav.audio.connect(heard.extend)
    read_back_ends = clock.one_shot(owner, lambda: at_end.append(len(heard)))
    read_back_ends.start(437)  # the read-back's length, as the speaker starts it
    wav.start()
    qtbot.waitUntil(lambda: len(heard) >= 2 * BYTES_PER_SECOND, timeout=5000)
    wav.stop()
    assert at_end == [int(0.437 * BYTES_PER_SECOND) & ~1]
    assert bytes(heard[: len(pcm)]) == pcm  # the file as it is, in order
    assert not any(heard[len(pcm) :])  # then a quiet room


def test_nothing_moves_while_the_clock_is_held(qtbot: Any, tmp_path: Path) -> None:
    _wav(tmp_path / "file.wav", 0.5)
    clock = FileClock()
    owner = QObject()
    heard = bytearray()
    wav = WavFileInput(tmp_path / "file.wav", owner, clock)
    wav.audio.connect(heard.extend)
    clock.hold("rendering")
    wav.start()
    for _ in range(20):  # turns of the event loop, where the file's time would move
        QCoreApplication.processEvents()
    assert clock.now() == 0.0 and not heard
    clock.release("rendering")
    qtbot.waitUntil(lambda: len(heard) >= BYTES_PER_SECOND, timeout=5000)
    wav.stop()
    assert not clock.held
