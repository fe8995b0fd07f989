"""One card's question and answer by voice, and the voice channel the rounds share.

A round: say the read-back; discard what the input captures while it plays (Notch never
hears its own voice); then listen. Speech already going on when the question ended began
before it: that attempt is dropped and the question is said again, once. Unclear words or
silence ask once more, then the round gives up and the card waits for a click. A yes, no
or revision goes to the overlay (`answered`), which decides by the same rules as a click.

A yes goes to the overlay only with the card's words (`approval_words`: "yes, walrus
garden"), which the card shows and the read-back never says: a bare yes, or a yes with
other words, is told to say the words and asked again. A no, a cancel or a change needs no
words (declining is always safe). After MAX_WRONG_WORDS yeses with wrong words, no spoken
yes approves until the person decides a card by hand.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from notch_app.ui.voice.approval_words import WORDS_PER_CARD, words_after_yes
from notch_app.ui.voice.clock import VoiceClock, WallClock
from notch_app.ui.voice.hearing import Hearing
from notch_app.ui.voice.input_choice import VoiceInputChoice, VoiceSetupError
from notch_app.ui.voice.microphone import Microphone
from notch_app.ui.voice.speaker import ReadBackSpeaker
from notch_app.ui.voice.wav_input import WavFileInput

BARGE_IN_S = 0.15
"""Speech found this soon after the question ended was already going on before it."""
LISTEN_MS = 6000
"""Silence this long after the question counts as an unclear answer."""
MAX_ASKS = 2
"""The question is said at most twice: once, and once more after an unclear answer."""
MAX_WRONG_WORDS = 3
"""Spoken yeses with other words than the card's, since the person last decided a card by
hand or said the right words: at this many, a spoken yes approves nothing until they
decide one by hand. A guess is right once in 271 pairs; this bounds how many are tried."""

SAY_THE_WORDS = "Say yes and the words on the card."
WRONG_WORDS = "Those are not the words on this card. " + SAY_THE_WORDS
PAUSED = (
    f"A spoken yes is paused after {MAX_WRONG_WORDS} wrong words: approve on screen, or say no."
)
NO_WORDS = "This card cannot be approved by voice: approve on screen, or say no."


class VoiceChannel(QObject):
    """What every round uses while "Answer by voice" is on: the speaker, the input (the
    microphone or a WAV file), the hearing thread and the clock they all wait on. Made on
    the first voiced card, closed when the setting goes off.

    `clock`: the wall clock unless a test gives its `FileClock` (the notch's own
    construction only); raises VoiceSetupError for a FileClock with a microphone, which
    is heard in real time or not at all."""

    def __init__(
        self,
        choice: VoiceInputChoice,
        parent: QObject | None = None,
        clock: VoiceClock | None = None,
    ) -> None:
        super().__init__(parent)
        self.clock: VoiceClock = clock or WallClock()
        if not self.clock.real_time and choice.wav_file is None:
            raise VoiceSetupError(
                "a test's file clock plays only a WAV input: set NOTCH_VOICE_INPUT to one "
                "(a microphone is heard in real time)"
            )
        self.speaker = ReadBackSpeaker(self, self.clock)
        self.input: Microphone | WavFileInput = (
            WavFileInput(choice.wav_file, self, self.clock) if choice.wav_file else Microphone(self)
        )
        self.hearing = Hearing(choice.whisper_model, self, self.clock)
        self.wrong_words = 0
        """Yeses heard with other words than their card's since the last one with the
        right words or the last decision by hand (see MAX_WRONG_WORDS)."""

    def decided_by_hand(self) -> None:
        """The person decided a card on screen (click, key, typed reply): a spoken yes
        approves again."""
        self.wrong_words = 0

    def close(self) -> None:
        """Stop speaking and listening, close the input, end the hearing thread."""
        self.speaker.stop()
        self.input.stop()
        self.hearing.close()


class AnswerRound(QObject):
    """Asks one card's question and hears the answer; `start()` once, `stop()` when the
    card leaves the screen."""

    heard = Signal(str)
    """Words as Notch understood them (or why it cannot listen), for the card to show."""
    told = Signal(str)
    """Why a spoken yes did not approve ("Say yes and the words on the card."), for the
    card to show under its words."""
    answered = Signal(str, str, float)
    """(verdict "yes" | "no" | "revise", the words, monotonic time the utterance's end was
    found). The overlay calls `refused()` when it cannot take a yes now."""
    ended = Signal()
    """The round stopped listening for good (answered, gave up, or cannot listen)."""

    def __init__(self, channel: VoiceChannel, read_back: str, card_words: str | None) -> None:
        """`card_words`: the words the card shows for a spoken yes ("zebra garden"); None
        for a card that shows none (no spoken yes approves it)."""
        super().__init__(channel)
        self._channel = channel
        self._read_back = read_back
        self._card_words = tuple(card_words.split()) if card_words else None
        self._asks = 0
        self._listening = False
        self._done = False
        # Silence after the question is counted on the channel's clock (a test's file time).
        self._listen_timer = channel.clock.one_shot(self, self._ask_again)
        self.question_ended_at: float | None = None
        """When the last read-back finished playing, on the channel's clock."""

    def start(self) -> None:
        """Open the input and say the question."""
        ch = self._channel
        ch.speaker.started.connect(ch.input.start)
        ch.speaker.finished.connect(self._on_question_ended)
        ch.speaker.failed.connect(self._cannot)
        ch.input.audio.connect(self._on_audio)
        ch.input.failed.connect(self._cannot)
        ch.hearing.failed.connect(self._cannot)
        ch.hearing.speechStarted.connect(self._on_speech_started)
        ch.hearing.heard.connect(self._on_heard)
        if ch.wrong_words >= MAX_WRONG_WORDS:
            self.told.emit(PAUSED)
        self._ask()  # the input opens as the question starts to play

    def stop(self) -> None:
        """Stop speaking and listening now (the card was decided, replaced or parked)."""
        if self._done:
            return
        self._done = True
        self._listening = False
        self._listen_timer.stop()
        ch = self._channel
        ch.speaker.started.disconnect(ch.input.start)
        for signal, slot in (
            (ch.speaker.finished, self._on_question_ended),
            (ch.speaker.failed, self._cannot),
            (ch.input.audio, self._on_audio),
            (ch.input.failed, self._cannot),
            (ch.hearing.failed, self._cannot),
            (ch.hearing.speechStarted, self._on_speech_started),
            (ch.hearing.heard, self._on_heard),
        ):
            signal.disconnect(slot)
        ch.speaker.stop()
        ch.hearing.pause()
        ch.input.stop()
        self.ended.emit()

    def listen_now(self) -> None:
        """Push-to-talk: stop the read-back and listen at once (also after a round gave up)."""
        if self._done:
            return
        self._channel.speaker.stop()
        self._channel.input.start()
        self._on_question_ended()

    def refused(self, why: str) -> None:
        """The overlay could not take the answer (a yes while confirm is gated or held):
        say why on the card and ask once more."""
        self.heard.emit(why)
        self._ask_again()

    @property
    def listening(self) -> bool:
        return self._listening

    @property
    def asks(self) -> int:
        """How many times the question was said (at most MAX_ASKS)."""
        return self._asks

    def _ask(self) -> None:
        self._asks += 1
        self._listening = False
        self._listen_timer.stop()
        self._channel.hearing.pause()
        self._channel.speaker.say(self._read_back)

    def _ask_again(self) -> None:
        if self._done:
            return
        if self._asks < MAX_ASKS:
            self._ask()
        else:
            self.stop()  # the card waits for a click

    def _on_question_ended(self) -> None:
        if self._done:
            return
        self.question_ended_at = self._channel.clock.now()
        self._listening = True
        self._channel.hearing.listen()
        self._listen_timer.start(LISTEN_MS)

    def _on_audio(self, pcm: bytes) -> None:
        # Captured while the read-back plays: discarded, never heard as an answer.
        if self._listening:
            self._channel.hearing.feed(pcm)

    def _on_speech_started(self, start_s: float) -> None:
        if not self._listening:
            return
        self._listen_timer.stop()
        if start_s < BARGE_IN_S:
            self._ask_again()  # they spoke before the question ended: not asked yet

    def _on_heard(self, words: str, verdict: str, _heard_by: str, found_at: float) -> None:
        if not self._listening:
            return
        self._listening = False
        self.heard.emit(words)
        why = self._yes_refused(words) if verdict == "yes" else None
        if why is not None:
            self.told.emit(why)
            self._ask_again()
        elif verdict in ("yes", "no", "revise"):
            self.answered.emit(verdict, words, found_at)
        else:
            self._ask_again()

    def _yes_refused(self, words: str) -> str | None:
        """Why a yes heard as `words` does not approve this card, or None when it carries
        the card's words."""
        channel = self._channel
        if self._card_words is None:
            return NO_WORDS
        if channel.wrong_words >= MAX_WRONG_WORDS:
            return PAUSED
        said = words_after_yes(words)
        if said is None or len(said) < WORDS_PER_CARD:
            return SAY_THE_WORDS  # a bare yes, another yes, or the words cut short
        if said != self._card_words:
            channel.wrong_words += 1
            return PAUSED if channel.wrong_words >= MAX_WRONG_WORDS else WRONG_WORDS
        channel.wrong_words = 0
        return None

    def _cannot(self, why: str) -> None:
        self.heard.emit(f"Can't answer by voice: {why}")
        self.stop()
