"""The recognizer on real speech (espeak-ng) and its setup errors: the short answers are
heard with the grammar; speech the grammar cannot account for is never a yes."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

pytest.importorskip(
    "pocketsphinx", reason="pocketsphinx is not installed (pip install -e '.[voice]')"
)
if shutil.which("espeak-ng") is None:
    pytest.skip(
        "espeak-ng is not installed (Debian: apt install espeak-ng; scripts/setup.sh does)",
        allow_module_level=True,
    )

from notch_app.ui.voice.approval_words import words_after_yes
from notch_app.ui.voice.input_choice import VoiceSetupError, voice_input_choice, words_seed
from notch_app.ui.voice.recognizer import ReplyRecognizer
from notch_app.ui.voice.utterances import Utterance, UtteranceFinder
from notch_app.ui.voice.wav_input import read_wav_16k_mono


@pytest.fixture(scope="module")
def recognizer() -> ReplyRecognizer:
    return ReplyRecognizer()


@pytest.fixture
def spoken(tmp_path: Path) -> Callable[[str], bytes]:
    """`spoken(text)`: the one utterance found in espeak-ng's rendering of `text`."""

    def say(text: str) -> bytes:
        path = tmp_path / "said.wav"
        subprocess.run(["espeak-ng", "-v", "en-us", "-w", str(path), text], check=True)
        finder = UtteranceFinder()
        pcm = bytes(16000) + read_wav_16k_mono(path) + bytes(32000)
        found: list[Utterance | None] = [*finder.feed(pcm)] or [finder.end()]
        assert len(found) == 1 and found[0] is not None
        return found[0].pcm

    return say


@pytest.mark.parametrize(
    ("said", "verdict"),
    [("yes", "yes"), ("no", "no"), ("cancel", "no"), ("okay", "yes")],
)
def test_short_answers_are_heard_with_the_grammar(
    recognizer: ReplyRecognizer, spoken: Callable[[str], bytes], said: str, verdict: str
) -> None:
    heard = recognizer.hear(spoken(said))
    assert (heard.verdict, heard.heard_by) == (verdict, "grammar")


@pytest.mark.parametrize("said", ["yes zebra garden", "yes, zebra cucumber", "yes flamingo window"])
def test_a_yes_with_card_words_is_heard_with_them(
    recognizer: ReplyRecognizer, spoken: Callable[[str], bytes], said: str
) -> None:
    heard = recognizer.hear(spoken(said))
    assert (heard.verdict, heard.heard_by) == ("yes", "grammar")
    assert words_after_yes(heard.words) == tuple(said.replace(",", "").split()[1:])


@pytest.mark.parametrize("said", ["yes", "okay", "yes send it"])
def test_a_yes_without_card_words_is_heard_without_any(
    recognizer: ReplyRecognizer, spoken: Callable[[str], bytes], said: str
) -> None:
    # The grammar holds every pair of the list after "yes": a bare yes must not be heard
    # as one (that would be a guess the person never made).
    heard = recognizer.hear(spoken(said))
    assert heard.verdict == "yes"
    assert not words_after_yes(heard.words)


@pytest.mark.parametrize(
    "said",
    ["send it to Sam instead", "no, make it shorter", "yes but change the subject"],
)
def test_speech_the_grammar_cannot_account_for_is_never_a_yes(
    recognizer: ReplyRecognizer, spoken: Callable[[str], bytes], said: str
) -> None:
    # The grammar alone hears "send it to Sam instead" as "send it": a false yes.
    heard = recognizer.hear(spoken(said))
    assert heard.heard_by == "free-form"
    assert heard.verdict != "yes"


def test_a_missing_voice_input_file_names_the_variable_and_the_fix(tmp_path: Path) -> None:
    with pytest.raises(VoiceSetupError, match=r"NOTCH_VOICE_INPUT=.*unset it"):
        voice_input_choice({"NOTCH_VOICE_INPUT": str(tmp_path / "nope.wav")})


def test_faster_whisper_is_used_only_from_a_local_model(tmp_path: Path) -> None:
    pytest.importorskip("faster_whisper", reason="faster-whisper is an extra (notch[whisper])")
    from notch_app.ui.voice.whisper_backend import WhisperRecognizer

    with pytest.raises(RuntimeError, match="cannot load the faster-whisper model"):
        WhisperRecognizer(tmp_path)  # an empty folder: refused, never downloaded


def test_the_words_seed_counts_only_without_a_microphone(tmp_path: Path) -> None:
    wav = tmp_path / "reply.wav"
    wav.write_bytes(b"")
    assert words_seed({"NOTCH_VOICE_WORDS_SEED": "7", "NOTCH_VOICE_INPUT": str(wav)}) == 7
    assert words_seed({}) is None
    with pytest.raises(VoiceSetupError, match=r"NOTCH_VOICE_WORDS_SEED is ignored.*unset it"):
        words_seed({"NOTCH_VOICE_WORDS_SEED": "7"})  # a microphone: always random words
    with pytest.raises(VoiceSetupError, match=r"NOTCH_VOICE_WORDS_SEED=x: not a whole number"):
        words_seed({"NOTCH_VOICE_WORDS_SEED": "x", "NOTCH_VOICE_INPUT": str(wav)})
