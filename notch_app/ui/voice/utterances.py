"""Where a spoken reply starts and ends in a stream of audio (PocketSphinx's endpointer).

Audio everywhere in `notch_app.ui.voice` is 16 kHz mono signed 16-bit little-endian PCM.
"""

from __future__ import annotations

from dataclasses import dataclass

from pocketsphinx import Endpointer

SAMPLE_RATE = 16000
BYTES_PER_SECOND = SAMPLE_RATE * 2
MAX_UTTERANCE_S = 12.0
"""A reply is a sentence; a longer stretch of speech is cut here (memory stays bounded)."""


@dataclass(frozen=True, slots=True)
class Utterance:
    """One stretch of speech: its audio and when it started and ended, in seconds since
    listening started."""

    pcm: bytes
    start_s: float
    end_s: float


class UtteranceFinder:
    """Feed audio as it arrives; get each utterance once its end is heard."""

    def __init__(self) -> None:
        self._endpointer = Endpointer(sample_rate=SAMPLE_RATE)
        self._frame_bytes: int = self._endpointer.frame_bytes
        self._pending = bytearray()
        self._speech = bytearray()
        self._start_s: float | None = None

    @property
    def in_speech(self) -> bool:
        """True while someone is speaking (an utterance has started and not ended)."""
        return self._start_s is not None

    @property
    def speech_start_s(self) -> float | None:
        """When the utterance in progress started (seconds since listening started)."""
        return self._start_s

    def feed(self, pcm: bytes) -> list[Utterance]:
        """Take more audio; return the utterances that ended in it (usually none)."""
        self._pending += pcm
        ended: list[Utterance] = []
        step = self._frame_bytes
        while len(self._pending) >= step:
            frame = bytes(self._pending[:step])
            del self._pending[:step]
            speech = self._endpointer.process(frame)
            if speech is not None:
                if self._start_s is None:
                    self._start_s = float(self._endpointer.speech_start)
                if len(self._speech) < MAX_UTTERANCE_S * BYTES_PER_SECOND:
                    self._speech += speech
            if self._start_s is not None and not self._endpointer.in_speech:
                ended.append(self._finish(float(self._endpointer.speech_end)))
        return ended

    def end(self) -> Utterance | None:
        """The input ended: the utterance in progress, if any, ends here."""
        if self._start_s is None:
            return None
        rest = self._endpointer.end_stream(bytes(self._pending[: self._frame_bytes]))
        self._pending.clear()
        if rest is not None:
            self._speech += rest
        return self._finish(float(self._endpointer.speech_end))

    def _finish(self, end_s: float) -> Utterance:
        start = self._start_s if self._start_s is not None else end_s
        said = Utterance(bytes(self._speech), start, max(end_s, start))
        self._speech.clear()
        self._start_s = None
        return said
