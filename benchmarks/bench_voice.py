"""Answer by voice (issue 13): end of utterance → decision shown, with PocketSphinx here.

Two measurements, both on real parts (espeak-ng renders the replies, PocketSphinx hears
them):

1. the notch: a card with "Answer by voice" on, its audio input pointed at a WAV of the
   reply said 0.8 s after the read-back (NOTCH_VOICE_INPUT); from the moment the hearing
   thread found the utterance's end to the first look of the done note ("Approved ✓ …");
   grammar replies ("yes" with the card's words, read from the card as a person would,
   "no", "cancel") and a revision ("no, make it shorter", heard by the free-form model);
2. the recognizer alone: `ReplyRecognizer.hear` per utterance, grammar vs free-form.

The endpointer's own wait before it calls an utterance over (its window, ~0.3 s of
silence) comes before both and is reported apart.

    QT_QPA_PLATFORM=offscreen python benchmarks/bench_voice.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import wave
from pathlib import Path

from PySide6.QtWidgets import QApplication

GRAMMAR_REPLIES = ("yes {words}", "no", "cancel", "yes, {words}")
FREE_FORM_REPLIES = ("no, make it shorter", "send it to Sam instead")


def speech(text: str, path: Path) -> tuple[bytes, int]:
    subprocess.run(["espeak-ng", "-v", "en-us", "-w", str(path), text], check=True)
    with wave.open(str(path)) as said:
        return said.readframes(said.getnframes()), said.getframerate()


def reply_wav(folder: Path, question: str, reply: str) -> Path:
    q, rate = speech(question, folder / "q.wav")
    a, _ = speech(reply, folder / "a.wav")
    out = folder / f"{abs(hash(reply))}.wav"
    with wave.open(str(out), "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(rate)
        lead = len(q) // 2 + int(0.8 * rate)
        wav.writeframes(bytes(lead * 2) + a + bytes(rate * 2))
    return out


def through_the_notch(app: QApplication, folder: Path, reply: str) -> float:
    """ms from the utterance's end being found to the done note's first look."""
    from notch_app.app import BUNDLED_MANIFESTS
    from notch_app.runtime.catalog import Catalog
    from notch_app.runtime.presenter import ConfirmationRequest
    from notch_app.ui.overlay_cards import ManifestCardFactory
    from notch_app.ui.overlay_presenter import OverlayPresenter
    from notch_app.ui.overlay_settings import OverlaySettings

    catalog, _ = Catalog.load([BUNDLED_MANIFESTS])
    args = json.loads((BUNDLED_MANIFESTS / "elevenlabs" / "preview.json").read_text())
    arguments = dict(args["tools"]["generate_speech"]["args"], text="Hi")
    request = ConfirmationRequest("bench", "io.elevenlabs", "generate_speech", arguments)
    card = ManifestCardFactory(catalog)(request, None)
    question = card.widget.read_back()  # type: ignore[attr-defined]
    card.widget.deleteLater()

    class Sink:
        def decide(self, *args: object, **kwargs: object) -> None:
            return None

        def parked(self, call_id: str) -> None: ...
        def restored(self, call_id: str) -> None: ...
        def shown(self, call_id: str) -> None: ...

    settings = OverlaySettings(expand_ms=60, done_ms=200, park_after_s=0, answer_by_voice=True)
    presenter = OverlayPresenter(Sink(), ManifestCardFactory(catalog), settings)  # type: ignore[arg-type]
    shown_at: list[float] = []
    presenter.window.lookChanged.connect(
        lambda look: shown_at.append(time.monotonic()) if look == "done" else None
    )
    presenter.present(request)
    # The card's words for a spoken yes, read off the card (built by present), before the
    # card arms and its voice round opens the WAV.
    words = presenter.window.card.voice_words  # type: ignore[union-attr]
    os.environ["NOTCH_VOICE_INPUT"] = str(reply_wav(folder, question, reply.format(words=words)))
    deadline = time.monotonic() + 60
    while not shown_at and time.monotonic() < deadline:
        app.processEvents()
    found = getattr(presenter, "voice_answer_found_at", None)
    presenter._close_voice()
    presenter.window.close()
    presenter.window.deleteLater()
    if not shown_at or found is None:
        raise SystemExit(f"bench_voice: {reply!r} was not decided by voice ({found}, {shown_at})")
    return (shown_at[0] - found) * 1000


def recognizer_alone(folder: Path, rounds: int) -> dict[str, list[float]]:
    from notch_app.ui.voice.recognizer import ReplyRecognizer
    from notch_app.ui.voice.utterances import UtteranceFinder
    from notch_app.ui.voice.wav_input import read_wav_16k_mono

    recognizer = ReplyRecognizer()
    times: dict[str, list[float]] = {"grammar": [], "free-form": []}
    for reply in (*GRAMMAR_REPLIES, *FREE_FORM_REPLIES):
        speech(reply.format(words="zebra garden"), folder / "r.wav")
        pcm = bytes(16000) + read_wav_16k_mono(folder / "r.wav") + bytes(32000)
        finder = UtteranceFinder()
        said = finder.feed(pcm) or [finder.end()]
        assert said[0] is not None
        for _ in range(rounds):
            heard = recognizer.hear(said[0].pcm)
            times[heard.heard_by].append(heard.decode_ms)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    rounds = parser.parse_args().rounds
    app = QApplication.instance() or QApplication(sys.argv)
    assert isinstance(app, QApplication)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        alone = recognizer_alone(folder, rounds)
        for kind, ms in alone.items():
            print(
                f"recognizer alone, {kind}: p50 {statistics.median(ms):.0f} ms, "
                f"max {max(ms):.0f} ms ({len(ms)} utterances)"
            )
        grammar: list[float] = []
        for n in range(rounds):
            reply = GRAMMAR_REPLIES[n % len(GRAMMAR_REPLIES)]
            grammar.append(through_the_notch(app, folder, reply))
        free = [through_the_notch(app, folder, FREE_FORM_REPLIES[0]) for _ in range(2)]
    print(
        f"end of utterance → decision shown, grammar replies: p50 {statistics.median(grammar):.0f} ms "
        f"(target ≤ 300 ms), max {max(grammar):.0f} ms, {len(grammar)} rounds"
    )
    print(
        f"end of utterance → decision shown, free-form revision: p50 {statistics.median(free):.0f} ms"
    )
    print(f"load average: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
