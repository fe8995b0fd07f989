"""Answering a card by voice ("Answer by voice", off by default): the round that reads the
card's question aloud once it is armed, listens, and decides as a click would.

A spoken yes approves only while the card's confirm gate is open and the card is armed,
and only with the words the card shows for it (picked at random per card, kept in this
process). Nothing of it exists until a card is voiced: the audio modules load on first
use, and the channel (speaker, input, hearing thread) closes when the setting goes off.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut

from notch_app.ui.card_widget import CardWidget
from notch_app.ui.overlay.state import Entry, OverlayState

if TYPE_CHECKING:  # the voice modules load on the first voiced card only
    from notch_app.ui.voice.clock import VoiceClock

PUSH_TO_TALK = "Ctrl+Shift+Space"
"""While a card is shown and "Answer by voice" is on: stop the read-back and listen now."""


class OverlayVoice(OverlayState):
    """The presenter's voice rounds: one per card, following the card on screen."""

    def _init_voice(self, clock: VoiceClock | None) -> None:
        """`clock`: what voice rounds wait on; the wall clock unless a test builds the
        notch with its `FileClock` (never from the environment or the socket)."""
        # "Answer by voice" (off by default): nothing of it exists until a card is voiced.
        self._voice: Any = None  # notch_app.ui.voice.answer_round.VoiceChannel
        self._voice_round: tuple[str, Any] | None = None  # (callId, AnswerRound)
        self._voice_clock = clock
        self._voiced_call_id: str | None = None  # one spoken round per card
        # Picks each card's words for a spoken yes (approval_words.WordPicker), made on
        # the first card built while voice is on.
        self._word_picker: Any = None
        # A bound method, never a lambda, on this object's own signal: that cycle would
        # keep a dropped presenter (and its timers) alive.
        self.armedChanged.connect(self._on_armed_for_voice)
        self.window.lookChanged.connect(lambda _look: self._follow_voice())
        self.window.cardMoved.connect(self._follow_voice)
        self._push_to_talk = QShortcut(QKeySequence(PUSH_TO_TALK), self.window)
        self._push_to_talk.setContext(Qt.ShortcutContext.ApplicationShortcut)
        self._push_to_talk.activated.connect(self.push_to_talk)

    def push_to_talk(self) -> None:
        """Listen now for the card on screen (Ctrl+Shift+Space): the read-back stops, or
        Notch listens again after it gave up. Only while "Answer by voice" is on."""
        front = self._front()
        if front is None or not self._settings.answer_by_voice:
            return
        if self._voice_round is None or self._voice_round[0] != front.call_id:
            self._start_voice_round(front)
        elif not self._voice_round[1].listening:
            self._voice_round[1].stop()
            self._start_voice_round(front)
        if self._voice_round is not None:
            self._voice_round[1].listen_now()

    def _on_armed_for_voice(self, _call_id: str, _armed: bool) -> None:
        self._follow_voice()

    def _follow_voice(self) -> None:
        """The voice round follows the card on screen: it starts once the card is armed
        (fully in view), stops when the card leaves; the channel (speaker, input, hearing
        thread) closes when the setting goes off. Audio modules load on first use only."""
        front = self._front()
        on = self._settings.answer_by_voice
        if self._voice_round is not None and (
            not on or front is None or self._voice_round[0] != front.call_id
        ):
            (_cid, old), self._voice_round = self._voice_round, None
            old.stop()
        if not on:
            self._close_voice()
            self._take_voice_words()
            return
        if (
            front is not None
            and self._voice_round is None
            and self.armed
            and front.call_id != self._voiced_call_id
        ):
            self._start_voice_round(front)

    def _close_voice(self) -> None:
        """Stop the round and close the channel (its hearing thread ends)."""
        if self._voice_round is not None:
            (_cid, spoken), self._voice_round = self._voice_round, None
            spoken.stop()
        if self._voice is not None:
            channel, self._voice = self._voice, None
            channel.close()

    def _start_voice_round(self, entry: Entry) -> None:
        card = entry.view
        if card is None:
            return
        try:
            from notch_app.ui.voice.answer_round import AnswerRound, VoiceChannel
            from notch_app.ui.voice.input_choice import VoiceSetupError, voice_input_choice
        except ImportError as exc:  # the voice extra or the system's audio is missing
            print(f"notch: answer by voice is not available: {exc}", file=sys.stderr)
            return

        self._voiced_call_id = entry.call_id
        if self._voice is None:
            try:
                self._voice = VoiceChannel(voice_input_choice(), self, self._voice_clock)
            except VoiceSetupError as exc:
                print(f"notch: answer by voice: {exc}", file=sys.stderr)
                return
        card_words = self._give_voice_words(card)
        spoken = AnswerRound(self._voice, card.read_back(), card_words)
        call_id = entry.call_id
        show_heard, show_note = card.show_heard, card.show_voice_note
        spoken.heard.connect(lambda words: self._show_heard(call_id, show_heard, words))
        spoken.told.connect(lambda note: self._show_heard(call_id, show_note, note))
        spoken.answered.connect(
            lambda verdict, words, at: self._on_voice_answer(call_id, verdict, words, at)
        )
        self._voice_round = (call_id, spoken)
        spoken.start()

    def _give_voice_words(self, card: CardWidget) -> str:
        """The words `card` shows for a spoken yes, picked at random now if it shows none
        yet. They stay in this process (never in an event, the log or the read-back)."""
        shown = card.voice_words
        if shown is not None:
            return shown
        if self._word_picker is None:
            from notch_app.ui.voice.approval_words import WordPicker
            from notch_app.ui.voice.input_choice import VoiceSetupError, words_seed

            try:
                seed = words_seed()
            except VoiceSetupError as exc:
                print(f"notch: answer by voice: {exc}", file=sys.stderr)
                seed = None
            self._word_picker = WordPicker(seed)
        words = str(self._word_picker.pick())
        card.show_voice_words(words)
        return words

    def _take_voice_words(self) -> None:
        """Voice went off: no card offers words that nothing listens for."""
        for entry in (*self._queue, *self._parked):
            if entry.view is not None:
                entry.view.show_voice_words(None)

    def _show_heard(self, call_id: str, show: Callable[[str | None], None], words: str) -> None:
        # The person's own words growing the card are their input, not a swap: confirm
        # stays armed (as for typing in it).
        self._person_input = (call_id, time.monotonic())
        show(words)

    def _on_voice_answer(self, call_id: str, verdict: str, words: str, found_at: float) -> None:
        """A spoken yes / no / revision for the card on screen, decided as a click would
        be: a yes only while its confirm gate is open and the card is armed."""
        entry = self._front()
        spoken = self._voice_round[1] if self._voice_round else None
        if entry is None or entry.call_id != call_id or entry.saving or entry.view is None:
            return
        final: dict[str, Any] | None = None
        edited: list[str] = []
        if verdict == "yes":
            gate = entry.view.state()
            if not gate.confirm_enabled:
                why = "; ".join(gate.blockers()) or "confirm is not available"
                if spoken is not None:
                    spoken.refused(f"Not yet: {why}.")
                return
            if not self.armed:
                if spoken is not None:
                    spoken.refused("Not yet: look the card over for a moment.")
                return
            final, edited = self._final_of(entry)
        self.voice_answer_found_at = found_at  # benchmarks: end of utterance → decision shown
        entry.saving = True

        def decide() -> bool | None:
            if verdict == "revise":
                self._sent_back[call_id] = words
                return self._sink.decide(
                    call_id, False, None, [], "voice", reason="revise", feedback=words, words=words
                )
            return self._sink.decide(call_id, verdict == "yes", final, edited, "voice", words=words)

        self._hand_over(entry, verdict == "yes", decide)
