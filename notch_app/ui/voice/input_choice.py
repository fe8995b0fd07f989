"""Which audio input and which recognizer a voice round uses, from this run's environment.

`NOTCH_VOICE_INPUT=/path/reply.wav` points the microphone at a WAV file instead (the test
seam: the real recognizer hears a real recording, played from the moment the read-back
starts, as a person in the room would speak). `NOTCH_VOICE_WHISPER_MODEL=/path/to/model`
uses faster-whisper with that local model (never downloaded) in place of PocketSphinx.

`NOTCH_VOICE_WORDS_SEED=N` (tests only) makes the words each card shows for a spoken yes
repeatable, so that a test can record "yes" and the words before Notch starts. It counts
only together with `NOTCH_VOICE_INPUT`, that is, when no microphone is heard at all: with a
microphone the words always come from the system's secure random source. It is read from
Notch's own environment at start; nothing on the socket can set or read it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

VOICE_INPUT_ENV = "NOTCH_VOICE_INPUT"
WHISPER_MODEL_ENV = "NOTCH_VOICE_WHISPER_MODEL"
WORDS_SEED_ENV = "NOTCH_VOICE_WORDS_SEED"


class VoiceSetupError(Exception):
    """The voice setup named in the environment cannot be used; the message says the fix."""


@dataclass(frozen=True, slots=True)
class VoiceInputChoice:
    """Where a voice round hears the person, and with what."""

    wav_file: Path | None = None
    """A WAV file heard in place of the microphone (tests, bug reports), else None."""
    whisper_model: Path | None = None
    """A local faster-whisper model folder, else None (PocketSphinx)."""


def voice_input_choice(environ: Mapping[str, str] | None = None) -> VoiceInputChoice:
    """Read this run's choice from the environment. Raises VoiceSetupError naming the
    variable and the fix when a named file or folder is missing."""
    env = os.environ if environ is None else environ
    wav = env.get(VOICE_INPUT_ENV, "").strip()
    model = env.get(WHISPER_MODEL_ENV, "").strip()
    wav_path = Path(wav).expanduser() if wav else None
    model_path = Path(model).expanduser() if model else None
    if wav_path is not None and not wav_path.is_file():
        raise VoiceSetupError(
            f"{VOICE_INPUT_ENV}={wav}: no such file; point it at a WAV recording or unset it "
            "to use the microphone"
        )
    if model_path is not None and not model_path.exists():
        raise VoiceSetupError(
            f"{WHISPER_MODEL_ENV}={model}: no such model folder; point it at a local "
            "faster-whisper model (Notch never downloads one) or unset it to use PocketSphinx"
        )
    return VoiceInputChoice(wav_file=wav_path, whisper_model=model_path)


def words_seed(environ: Mapping[str, str] | None = None) -> int | None:
    """The test seed for the card words, or None (secure random words). Raises
    VoiceSetupError naming the variable and the fix when it is set but cannot count: not a
    whole number, or set while a microphone is heard (no `NOTCH_VOICE_INPUT`)."""
    env = os.environ if environ is None else environ
    seed = env.get(WORDS_SEED_ENV, "").strip()
    if not seed:
        return None
    if not env.get(VOICE_INPUT_ENV, "").strip():
        raise VoiceSetupError(
            f"{WORDS_SEED_ENV} is ignored: it counts only for tests that set "
            f"{VOICE_INPUT_ENV} (with a microphone the words are always random); unset it"
        )
    try:
        return int(seed)
    except ValueError:
        raise VoiceSetupError(
            f"{WORDS_SEED_ENV}={seed}: not a whole number; set a number or unset it"
        ) from None
