"""What the person said, offline: PocketSphinx with its bundled English model.

A reply is first heard with the small grammar (`grammar.REPLY_GRAMMAR`: fast, and right on
the short answers); a phone decoder checks that the phrase accounts for the sounds heard.
Speech the grammar cannot account for ("no, make it shorter") is heard again with the
free-form model, and its words go to the agent as a revision. A false yes is the one error
that must never happen: speech outside the grammar is never a yes. A yes approves only with
the card's words (`approval_words`, checked by the answer round); the grammar holds every
pair of them after "yes", so a wrong pair is heard as itself.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Literal

from pocketsphinx import Decoder, get_model_path

from notch_app.reply import Verdict, classify_reply
from notch_app.ui.voice.approval_words import WORDS_PER_CARD, words_after_yes
from notch_app.ui.voice.grammar import NO_PHRASES, PHRASES, REPLY_GRAMMAR

HeardBy = Literal["grammar", "free-form", "whisper"]

PHONE_SLACK_RATIO = 1.6
PHONE_SLACK = 2
"""The grammar's phrase must account for the phones the phone decoder heard, give or take
this much: "send it" heard for "send it to Sam instead" leaves twice the sounds unexplained."""

_NOT_PHONES = frozenset({"SIL", "+NSN+", "+SPN+", "+BREATH+", "+COUGH+", "+NOISE+"})


@dataclass(frozen=True, slots=True)
class Heard:
    """One recognized reply: the words, how Notch takes them, and how it heard them."""

    words: str
    verdict: Verdict
    heard_by: HeardBy
    decode_ms: float


class ReplyRecognizer:
    """Loads the English model once (about 2 s; do it off the UI thread) and hears replies.

    Raises RuntimeError (from PocketSphinx) when its model cannot be loaded."""

    def __init__(self) -> None:
        decoder = Decoder(samprate=16000, loglevel="FATAL")
        decoder.add_jsgf_string("reply", REPLY_GRAMMAR)
        decoder.add_allphone_file("phones", f"{get_model_path()}/en-us-phone.lm.bin")
        self._decoder = decoder

    def hear(self, pcm: bytes) -> Heard:
        """Recognize one utterance (16 kHz mono s16le) and classify it."""
        began = time.perf_counter()
        said = self._decode("reply", pcm)
        if _is_phrase_start(said) and self._accounts_for(said, pcm):
            return Heard(said, _verdict_of(said), "grammar", _ms(began))
        free = self._decode("_default", pcm)
        verdict = classify_reply(free).verdict if free else "unclear"
        if verdict not in ("no", "revise") or _led_by_yes(said) or _led_by_yes(free):
            # More was said than a plain answer: a "no ..." is a revision, anything else
            # (a yes among other words) is asked again, never taken as a yes. A reply led
            # by "yes" is asked again too, never sent back as a change: mostly the card's
            # words heard cut short ("yes zebra" of "yes zebra garden"), which the
            # free-form model does not know (it turned "yes walrus yellow", a pair since
            # taken off the list, into "yeah it's not you", and British English "yes
            # garden motorcycle" into "yeah it's gotten so"). A change starts with "no".
            verdict = "revise" if said in NO_PHRASES and free else "unclear"
        return Heard(free or said, verdict, "free-form", _ms(began))

    def _decode(self, search: str, pcm: bytes) -> str:
        decoder = self._decoder
        decoder.activate_search(search)
        decoder.start_utt()
        decoder.process_raw(pcm, full_utt=True)
        decoder.end_utt()
        hyp = decoder.hyp()
        return " ".join(str(hyp.hypstr).split()) if hyp is not None else ""

    def _accounts_for(self, phrase: str, pcm: bytes) -> bool:
        expected = 0
        for word in phrase.split():
            spelled = self._decoder.lookup_word(word)
            expected += len(spelled.split()) if spelled else 3
        heard = [p for p in self._decode("phones", pcm).split() if p not in _NOT_PHONES]
        return len(heard) <= expected * PHONE_SLACK_RATIO + PHONE_SLACK


def _is_phrase_start(said: str) -> bool:
    """A whole grammar phrase, or its first words ("yes send" of "yes send it", "yes zebra"
    of "yes zebra garden": the decoder ended on the best path so far); never anything the
    grammar does not hold."""
    words = said.split()
    card_words = words_after_yes(said)
    if card_words is not None and len(card_words) <= WORDS_PER_CARD:
        return True
    return bool(words) and any(p.split()[: len(words)] == words for p in PHRASES)


def _led_by_yes(said: str) -> bool:
    """True for words whose first is a yes ("yes send", "yeah it's not you")."""
    return said.split()[:1] in (["yes"], ["yeah"], ["yep"])


def _verdict_of(phrase: str) -> Verdict:
    """A grammar phrase's verdict. "yes" with card words is a yes (whether they are this
    card's words is the answer round's check), never the change the classifier would read
    in words it does not know."""
    return "yes" if words_after_yes(phrase) is not None else classify_reply(phrase).verdict


def _ms(began: float) -> float:
    return (time.perf_counter() - began) * 1000
