"""The agent never has a path to the microphone or the voice channel: nothing on the
socket can submit an utterance, start listening or answer a card by voice. A client tries
every method name it can think of, with a spoken "yes" in every shape, while a card is
waiting for the person's voice; the card stays open and no word reaches it. Nor can it
reach the voice round's clock: a method that would speed up or feed the round is refused
like the rest (the clock is given only when the notch is built, in its own process)."""

from __future__ import annotations

import wave
from pathlib import Path
from typing import Any

import pytest

from notch_app import headless
from notch_app.app import BUNDLED_MANIFESTS
from notch_app.ipc.client import AsyncNotchClient, NotchError
from notch_app.runtime.catalog import Catalog
from notch_app.runtime.presenter import DecisionSink
from notch_app.ui.overlay_cards import ManifestCardFactory
from notch_app.ui.overlay_presenter import OverlayPresenter
from notch_app.ui.overlay_settings import OverlaySettings
from notch_app.ui.voice.clock import FileClock

VOICE = OverlaySettings(expand_ms=0, done_ms=60, park_after_s=0, answer_by_voice=True)

METHOD_NAMES = [
    f"{prefix}{sep}{verb}"
    for prefix in ("voice", "speech", "audio", "microphone", "mic", "utterance", "reply", "hear")
    for sep in (".", "/", "_")
    for verb in ("submit", "say", "answer", "reply", "hear", "listen", "utter", "transcript", "yes")
] + [
    "confirm.reply",
    "confirm.answer",
    "confirm.voice",
    "confirm.say",
    "confirm.hear",
    "confirm.utterance",
    "confirm.approve",
    "confirm.decide",
    "decision.submit",
    "decide",
    "approve",
    "answer",
    "reply",
    "say",
    "hear",
    "listen",
    "pushToTalk",
    "push_to_talk",
    "settings.set",
    "policy.set",
    "overlay.answerByVoice",
    "voice.clock",
    "voice.speed",
    "voice.input",
    "voice.wav",
    "clock.set",
]
SHAPES: list[dict[str, Any]] = [
    {"text": "yes"},
    {"words": "yes", "decidedBy": "voice"},
    {"utterance": "yes send it", "verdict": "yes"},
]


@pytest.fixture
def silent_wav(tmp_path: Path) -> Path:
    path = tmp_path / "quiet.wav"
    with wave.open(str(path), "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(16000)
        wav.writeframes(bytes(16000 * 2))
    return path


@pytest.mark.asyncio
async def test_no_socket_method_submits_an_utterance_or_answers_by_voice(
    qtbot: Any, tmp_path: Path, silent_wav: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NOTCH_VOICE_INPUT", str(silent_wav))
    catalog, problems = Catalog.load([BUNDLED_MANIFESTS])
    assert not problems
    # The quiet room's time stands still: the round stays open, its question being said,
    # for as long as the agent tries.
    clock = FileClock()
    clock.hold("the test")
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
            call_id, decided = await agent.submit(
                "io.elevenlabs", "generate_speech", {"text": "Hi", "voice": "rachel"}
            )
            assert decided is None
            presenter = made[0]
            qtbot.waitUntil(lambda: presenter.armed, timeout=10000)
            qtbot.waitUntil(lambda: presenter._voice_round is not None, timeout=10000)
            voice_round = presenter._voice_round
            assert voice_round is not None
            spoken = voice_round[1]
            refused = 0
            for method in METHOD_NAMES:
                for shape in SHAPES:
                    params = {"callId": call_id, "token": agent.token, **shape}
                    try:
                        await agent.call(method, params)
                    except NotchError:
                        refused += 1
            assert refused == len(METHOD_NAMES) * len(SHAPES)
            assert presenter._voice_round == (call_id, spoken)  # still its first round
            assert spoken.asks == 1 and not spoken.listening
            assert await agent.status(call_id) == "pending"
            assert presenter.on_screen is not None and presenter.on_screen.call_id == call_id
    finally:
        for presenter in made:
            presenter._close_voice()
        await notch.close()
