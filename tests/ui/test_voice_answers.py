"""Answering a card by voice, through the real parts: espeak-ng renders the person's reply
to a WAV file, Notch's audio input is pointed at it (NOTCH_VOICE_INPUT, the recognizer's
file input) and the real PocketSphinx recognizer hears it; the overlay decides as a click
would, and the agent gets the decision over the real socket.

The file plays on a `FileClock` (notch_app/ui/voice/clock.py): in its own time, as fast as
the recognizer takes it, with the read-back lasting its length in that time. What is said
before the read-back ends is discarded as in real time, to the sample; the one test that
waits in real time is tests/e2e/test_voice_e2e.py. Skipped only where espeak-ng or
pocketsphinx cannot be installed."""

from __future__ import annotations

import shutil
import subprocess
import sys
import wave
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from notch_app import headless
from notch_app.app import BUNDLED_MANIFESTS
from notch_app.card.read_back import read_back
from notch_app.ipc.client import AsyncNotchClient
from notch_app.runtime.catalog import Catalog
from notch_app.runtime.presenter import ConfirmationRequest, DecisionSink
from notch_app.ui.card_view import CardView
from notch_app.ui.overlay_cards import ManifestCardFactory
from notch_app.ui.overlay_presenter import OverlayPresenter
from notch_app.ui.overlay_settings import OverlaySettings

pytest.importorskip(
    "pocketsphinx", reason="pocketsphinx is not installed (pip install -e '.[voice]')"
)
if shutil.which("espeak-ng") is None:
    pytest.skip(
        "espeak-ng is not installed (Debian: apt install espeak-ng; scripts/setup.sh does)",
        allow_module_level=True,
    )

from notch_app.ui.voice.answer_round import SAY_THE_WORDS, WRONG_WORDS
from notch_app.ui.voice.approval_words import WORDS, WordPicker
from notch_app.ui.voice.clock import FileClock

SPEECH = "io.elevenlabs"
ARGS = {"text": "Hi", "voice": "rachel"}
VOICE = OverlaySettings(expand_ms=60, done_ms=60, park_after_s=0, answer_by_voice=True)
AFTER_QUESTION_S = 1.2
"""The reply starts this long after the read-back has played (its length is measured)."""
NEXT_ANSWER_AFTER_S = 3.0
"""A later reply starts this long after the question would have been said again: hearing
the earlier one's end (~0.4 s) and a margin; well inside the 6 s Notch listens after it."""
SEED = 1812
"""NOTCH_VOICE_WORDS_SEED for the socket tests: the words are known before Notch starts."""
TEST = "the test"
"""Holds a test's FileClock until the test watches the round (see `_watch`)."""


def _speech(text: str, path: Path) -> tuple[bytes, int]:
    subprocess.run(["espeak-ng", "-v", "en-us", "-w", str(path), text], check=True)
    with wave.open(str(path)) as said:
        return said.readframes(said.getnframes()), said.getframerate()


def _silence(seconds: float, rate: int) -> bytes:
    return bytes(int(seconds * rate) * 2)


@pytest.fixture
def reply_wav(tmp_path: Path) -> Callable[..., Path]:
    """`reply_wav(read_back, reply, offset_s, *later)`: a WAV of `reply` said `offset_s`
    seconds after the read-back would have ended (negative: before), as heard from the
    moment Notch starts saying it; each of `later` is said after the question is asked
    again (the reply before it was not taken)."""

    def make(read_back: str, reply: str, offset_s: float, *later: str) -> Path:
        question, rate = _speech(read_back, tmp_path / "question.wav")
        asked_s = len(question) / (2 * rate)
        answer, answer_rate = _speech(reply, tmp_path / "answer.wav")
        assert rate == answer_rate
        audio = _silence(max(0.0, asked_s + offset_s), rate) + answer
        for n, text in enumerate(later):
            again, _ = _speech(text, tmp_path / f"later{n}.wav")
            audio += _silence(asked_s + NEXT_ANSWER_AFTER_S, rate) + again
        out = tmp_path / "reply.wav"
        with wave.open(str(out), "wb") as wav:
            wav.setnchannels(1)
            wav.setsampwidth(2)
            wav.setframerate(rate)
            wav.writeframes(audio + _silence(2, rate))
        return out

    return make


def _card_words(presenter: OverlayPresenter) -> str:
    """The words the card on screen shows for a spoken yes, read from its label (the
    only place they are)."""
    view = presenter.window.card
    assert isinstance(view, CardView) and view.voice_words_line is not None
    pill = view.voice_words_line.pill.text()
    assert pill.startswith("yes, ")
    return pill.removeprefix("yes, ")


def _other_words(words: str) -> str:
    """Two list words that are not the card's (its first word, then another)."""
    first, second = words.split()
    return f"{first} {next(w for w in WORDS if w not in (first, second))}"


@pytest.fixture
def mail(preview_args: Any) -> Callable[..., ConfirmationRequest]:
    """A card with a short read-back ("Generate speech: text 'Hi'; voice rachel?")."""

    def request(call_id: str, **changes: Any) -> ConfirmationRequest:
        args = preview_args("elevenlabs", "generate_speech") | {"text": "Hi"} | changes
        return ConfirmationRequest(call_id, SPEECH, "generate_speech", args)

    return request


def _read_back_of(request: ConfirmationRequest, bundled_factory: Any, qtbot: Any) -> str:
    built = bundled_factory()(request, None)
    qtbot.addWidget(built.widget)
    assert isinstance(built.widget, CardView)
    return built.widget.read_back()


@pytest.fixture
def voice_overlay(
    sink: Any, bundled_factory: Any, qtbot: Any
) -> Iterator[Callable[[], tuple[OverlayPresenter, FileClock]]]:
    """`voice_overlay()`: the notch with "Answer by voice" on and its FileClock, which
    stands still until the test lets it go (`_watch`); the hearing thread ends with the
    test."""
    made: list[OverlayPresenter] = []

    def make() -> tuple[OverlayPresenter, FileClock]:
        clock = FileClock()
        clock.hold(TEST)
        presenter = OverlayPresenter(sink, bundled_factory(), VOICE, voice_clock=clock)
        qtbot.addWidget(presenter.window)
        qtbot.addWidget(presenter.side_notch)
        made.append(presenter)
        return presenter, clock

    yield make
    for presenter in made:
        presenter._close_voice()  # the hearing thread ends with the test


@dataclass
class Watched:
    """What one card's voice round did, in order."""

    round: Any
    told: list[tuple[str, int, str | None]] = field(default_factory=list)
    """(the note on the card, decisions made by then, the card on screen then)."""
    heard: list[str] = field(default_factory=list)
    ended: bool = False


def _watch(qtbot: Any, presenter: OverlayPresenter, clock: FileClock, sink: Any) -> Watched:
    """Wait for the card's voice round (its file's time stands still until then), watch
    what it says on the card, then let the file play."""
    qtbot.waitUntil(lambda: presenter._voice_round is not None, timeout=10000)
    assert presenter._voice_round is not None
    spoken = presenter._voice_round[1]
    view = presenter.window.card
    assert isinstance(view, CardView) and view.voice_words_line is not None
    line = view.voice_words_line
    watched = Watched(spoken)

    def told(_note: str) -> None:  # after the card showed it (connected after the notch)
        front = presenter.on_screen.call_id if presenter.on_screen else None
        watched.told.append((line.note_text, len(sink.of("decide")), front))

    def ended() -> None:
        watched.ended = True

    spoken.told.connect(told)
    spoken.heard.connect(watched.heard.append)
    spoken.ended.connect(ended)
    clock.release(TEST)
    return watched


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("reply", "outcome", "reason"),
    [
        ("yes {words}", "approved", None),
        ("yes, {words}", "approved", None),
        ("no", "declined", None),
        ("cancel", "declined", None),
        ("no, make it shorter", "declined", "revise"),
    ],
)
async def test_a_spoken_reply_answers_the_card(
    qtbot: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    reply_wav: Any,
    reply: str,
    outcome: str,
    reason: str | None,
) -> None:
    # The real service and socket: the agent gets the spoken answer as its decision. The
    # card's words come from NOTCH_VOICE_WORDS_SEED (it counts with NOTCH_VOICE_INPUT
    # only), so the reply is recorded before Notch starts, as the e2e tests do.
    catalog, problems = Catalog.load([BUNDLED_MANIFESTS])
    assert not problems
    words = WordPicker(SEED).pick()
    tool = catalog.tool(SPEECH, "generate_speech")
    assert tool is not None
    question = read_back(tool, ARGS)
    wav = reply_wav(question, reply.format(words=words), AFTER_QUESTION_S)
    monkeypatch.setenv("NOTCH_VOICE_INPUT", str(wav))
    monkeypatch.setenv("NOTCH_VOICE_WORDS_SEED", str(SEED))
    clock = FileClock()
    clock.hold(TEST)
    made: list[OverlayPresenter] = []

    def overlay(sink: DecisionSink) -> OverlayPresenter:
        presenter = OverlayPresenter(sink, ManifestCardFactory(catalog), VOICE, voice_clock=clock)
        made.append(presenter)
        return presenter

    notch = await headless.start(
        tmp_path / "s" / "notch.sock", tmp_path / "data", presenter=overlay, catalog=catalog
    )
    try:
        async with AsyncNotchClient(notch.server.path) as agent:
            call_id, decided = await agent.submit(SPEECH, "generate_speech", ARGS)
            assert decided is None
            presenter = made[0]
            qtbot.waitUntil(lambda: presenter.on_screen is not None, timeout=10000)
            assert _card_words(presenter) == words  # the seed's words, shown on the card
            clock.release(TEST)
            decision = await agent.await_decision(call_id, timeout=60)
            qtbot.waitUntil(lambda: presenter.window.look == "idle", timeout=5000)
    finally:
        for presenter in made:
            presenter._close_voice()
        await notch.close()
    assert decision.outcome == outcome
    assert decision.decided_by == "voice"
    assert decision.words
    assert decision.reason == reason
    if reason == "revise":
        assert decision.feedback
    if outcome == "approved":  # the words that approved it, kept once it is decided
        assert decision.arguments == ARGS
        assert decision.words == f"yes {words}"
    else:
        assert decision.arguments is None


@pytest.mark.parametrize("bare", ["yes", "yes send it"])
def test_a_yes_without_the_card_words_is_told_to_say_them(
    qtbot: Any,
    sink: Any,
    bundled_factory: Any,
    mail: Any,
    reply_wav: Any,
    monkeypatch: pytest.MonkeyPatch,
    voice_overlay: Any,
    bare: str,
) -> None:
    # The played "yes" of the attack run: heard after the question, it approves nothing;
    # the card says why and asks again, and the yes with its words then approves.
    request = mail("bare")
    presenter, clock = voice_overlay()
    presenter.present(request)
    words = _card_words(presenter)
    read_back = _read_back_of(request, bundled_factory, qtbot)
    wav = reply_wav(read_back, bare, AFTER_QUESTION_S, f"yes {words}")
    monkeypatch.setenv("NOTCH_VOICE_INPUT", str(wav))
    spoken = _watch(qtbot, presenter, clock, sink)
    qtbot.waitUntil(lambda: bool(sink.of("decide")), timeout=40000)
    # Said on the card while it was still on screen and nothing was decided.
    assert spoken.told == [(SAY_THE_WORDS, 0, "bare")]
    assert sink.of("decide")[0][1:3] == ("bare", True)
    assert sink.of("decide")[0][5] == "voice"
    assert sink.of("words")[0][2] == f"yes {words}"
    qtbot.waitUntil(lambda: presenter.window.look == "idle", timeout=5000)


def test_a_yes_with_other_words_does_not_approve(
    qtbot: Any,
    sink: Any,
    bundled_factory: Any,
    mail: Any,
    reply_wav: Any,
    monkeypatch: pytest.MonkeyPatch,
    voice_overlay: Any,
) -> None:
    request = mail("guess")
    presenter, clock = voice_overlay()
    presenter.present(request)
    words = _card_words(presenter)
    read_back = _read_back_of(request, bundled_factory, qtbot)
    wav = reply_wav(read_back, f"yes {_other_words(words)}", AFTER_QUESTION_S, "no")
    monkeypatch.setenv("NOTCH_VOICE_INPUT", str(wav))
    spoken = _watch(qtbot, presenter, clock, sink)
    qtbot.waitUntil(lambda: bool(sink.of("decide")), timeout=40000)
    assert spoken.told == [(WRONG_WORDS, 0, "guess")]
    # Declining needs no words, and the card stayed open for it.
    assert sink.of("decide")[0][1:3] == ("guess", False)
    assert sink.of("decide")[0][5] == "voice"
    assert sink.of("words")[0][2] == "no"
    qtbot.waitUntil(lambda: presenter.window.look == "idle", timeout=5000)


def test_a_yes_said_before_the_read_back_ended_does_not_approve(
    qtbot: Any,
    sink: Any,
    bundled_factory: Any,
    mail: Any,
    reply_wav: Any,
    monkeypatch: pytest.MonkeyPatch,
    voice_overlay: Any,
) -> None:
    request = mail("early")
    presenter, clock = voice_overlay()
    presenter.present(request)
    # The yes, with the card's words, ends well before the question does: heard while
    # Notch speaks, discarded.
    said = f"yes {_card_words(presenter)}"
    wav = reply_wav(_read_back_of(request, bundled_factory, qtbot), said, -2.0)
    monkeypatch.setenv("NOTCH_VOICE_INPUT", str(wav))
    spoken = _watch(qtbot, presenter, clock, sink)
    qtbot.waitUntil(lambda: spoken.ended, timeout=30000)
    # Asked twice, heard nothing after either question: the card waits for a click.
    assert spoken.round.asks == 2
    assert spoken.heard == [] and spoken.told == []
    assert not sink.of("decide")
    assert presenter.on_screen is not None and presenter.on_screen.call_id == "early"
    view = presenter.window.card
    assert isinstance(view, CardView) and view.press("cancel")
    qtbot.waitUntil(lambda: bool(sink.of("decide")), timeout=5000)
    assert sink.of("decide")[0][1:3] == ("early", False)
    assert sink.of("decide")[0][5] != "voice"
    qtbot.waitUntil(lambda: presenter.window.look == "idle", timeout=5000)


def test_a_spoken_yes_on_a_card_whose_confirm_is_closed_does_not_approve(
    qtbot: Any,
    sink: Any,
    bundled_factory: Any,
    mail: Any,
    reply_wav: Any,
    monkeypatch: pytest.MonkeyPatch,
    voice_overlay: Any,
) -> None:
    request = mail("gated", text="")  # nothing to say: Generate is closed
    presenter, clock = voice_overlay()
    presenter.present(request)
    said = f"yes {_card_words(presenter)}"
    wav = reply_wav(_read_back_of(request, bundled_factory, qtbot), said, AFTER_QUESTION_S)
    monkeypatch.setenv("NOTCH_VOICE_INPUT", str(wav))
    spoken = _watch(qtbot, presenter, clock, sink)
    qtbot.waitUntil(lambda: any(h.startswith("Not yet") for h in spoken.heard), timeout=40000)
    qtbot.waitUntil(lambda: spoken.ended, timeout=30000)  # asked again, then gave up
    assert not sink.of("decide")


def test_a_file_clock_never_paces_a_microphone(
    qtbot: Any,
    sink: Any,
    mail: Any,
    monkeypatch: pytest.MonkeyPatch,
    voice_overlay: Any,
    capfd: pytest.CaptureFixture[str],
) -> None:
    # A microphone is heard in real time or not at all: with no WAV input, a notch built
    # with a FileClock opens no voice round (and no microphone), and says why.
    monkeypatch.delenv("NOTCH_VOICE_INPUT", raising=False)
    presenter, clock = voice_overlay()
    clock.release(TEST)
    presenter.present(mail("mic"))
    qtbot.waitUntil(lambda: presenter.armed, timeout=10000)
    qtbot.waitUntil(lambda: "file clock plays only a WAV input" in capfd.readouterr().err)
    assert presenter._voice is None and presenter._voice_round is None


IDLE_PROBE = """
import sys, threading
from PySide6.QtWidgets import QApplication
from PySide6.QtCore import QEventLoop, QThread, QTimer
app = QApplication([])
from notch_app.ui.overlay_presenter import OverlayPresenter
from notch_app.ui.overlay_settings import OverlaySettings
from notch_app.runtime.presenter import ConfirmationRequest
import json, pathlib
from notch_app.app import BUNDLED_MANIFESTS
from notch_app.runtime.catalog import Catalog
from notch_app.ui.overlay_cards import ManifestCardFactory
catalog, _ = Catalog.load([BUNDLED_MANIFESTS])
args = json.loads((BUNDLED_MANIFESTS / "mail" / "preview.json").read_text())["tools"]["send_email"]["args"]
class Sink:
    def decide(self, *a, **k): return None
    def parked(self, c): pass
    def restored(self, c): pass
    def shown(self, c): pass
threads = threading.active_count()
p = OverlayPresenter(Sink(), ManifestCardFactory(catalog), OverlaySettings(expand_ms=0, park_after_s=0))
p.present(ConfirmationRequest("c1", "dev.notch.examples.mail", "send_email", dict(args)))
# Wait for arming on Qt's loop, looking every 10 ms (a loop of processEvents spun a core
# for the whole arming delay), for at most 5 s.
waiting = QEventLoop()
look = QTimer(interval=10)
look.timeout.connect(lambda: p.armed and waiting.quit())
look.start()
QTimer.singleShot(5000, waiting.quit)
waiting.exec()
look.stop()
assert p.armed, "the card never armed"
p.push_to_talk()
for _ in range(50): app.processEvents()
loaded = [m for m in ("pocketsphinx", "PySide6.QtMultimedia", "notch_app.ui.voice.answer_round") if m in sys.modules]
print(json.dumps({"loaded": loaded, "threads": threading.active_count() - threads}))
"""


def test_with_voice_off_no_audio_module_is_loaded_and_no_thread_started(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", IDLE_PROBE],
        capture_output=True,
        text=True,
        timeout=120,
        env={"QT_QPA_PLATFORM": "offscreen", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == '{"loaded": [], "threads": 0}'
