"""faster-whisper as the recognizer, only when the person configured a local model.

Notch never downloads a model and does not install faster-whisper by default (the `whisper`
extra does): `NOTCH_VOICE_WHISPER_MODEL=/path/to/model` names a folder already on disk.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from notch_app.reply import Verdict, classify_reply
from notch_app.ui.voice.approval_words import words_after_yes
from notch_app.ui.voice.recognizer import Heard


class WhisperRecognizer:
    """Hears replies with a local faster-whisper model (CPU, int8).

    Raises RuntimeError naming the fix when faster-whisper is not installed or the model
    folder cannot be loaded."""

    def __init__(self, model_dir: Path) -> None:
        try:
            from faster_whisper import WhisperModel
        except ImportError:
            raise RuntimeError(
                "faster-whisper is not installed; pip install 'notch[whisper]' or unset "
                "NOTCH_VOICE_WHISPER_MODEL"
            ) from None
        try:
            # local_files_only: a model name that is not a folder here is an error, never
            # a download.
            self._model: Any = WhisperModel(
                str(model_dir), device="cpu", compute_type="int8", local_files_only=True
            )
        except Exception as exc:
            raise RuntimeError(
                f"{model_dir}: cannot load the faster-whisper model: {exc}"
            ) from None

    def hear(self, pcm: bytes) -> Heard:
        """Recognize one utterance (16 kHz mono s16le) and classify it."""
        import numpy

        began = time.perf_counter()
        audio = numpy.frombuffer(pcm, dtype="<i2").astype("float32") / 32768.0
        segments, _info = self._model.transcribe(audio, language="en", beam_size=1)
        words = " ".join(" ".join(str(s.text) for s in segments).split())
        verdict: Verdict = "unclear"
        if words_after_yes(words) is not None:
            verdict = "yes"  # "Yes, zebra garden.": the answer round checks the words
        elif words:
            verdict = classify_reply(words).verdict
        return Heard(words, verdict, "whisper", (time.perf_counter() - began) * 1000)
