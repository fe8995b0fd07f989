"""The reply classifier (issue 13 §4): how Notch takes "yes", "no", "make it shorter" or
"um" typed or said in English, Spanish, German or French.

The labelled corpora are `tests/corpus/replies/<lang>.tsv` (written while the classifier
was built) and `<lang>.holdout.tsv` (written after it was done, never tuned on). A false
yes is the one error that must never happen: it is asserted over every corpus line, and
the hypothesis properties try to smuggle one in with negations, "but", new details,
invisible characters and very long replies.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from notch_app.reply import SUPPORTED_LANGUAGES, Reply, classify_reply

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "replies"
LABELS = ("yes", "no", "revise", "unclear")


def read_corpus(name: str) -> list[tuple[str, str]]:
    """(label, utterance) pairs of one corpus file; `#` lines are comments."""
    pairs = []
    for number, line in enumerate((CORPUS / name).read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("#") or not line.strip():
            continue
        label, tab, utterance = line.partition("\t")
        assert tab and label in LABELS, f"{name}:{number}: expected 'label<TAB>utterance'"
        pairs.append((label, utterance))
    return pairs


def every_line(language: str) -> list[tuple[str, str]]:
    holdout = CORPUS / f"{language}.holdout.tsv"
    extra = read_corpus(holdout.name) if holdout.exists() else []
    return read_corpus(f"{language}.tsv") + extra


YES_LINES = {
    lang: [u for label, u in every_line(lang) if label == "yes"] for lang in SUPPORTED_LANGUAGES
}


@pytest.mark.parametrize("language", SUPPORTED_LANGUAGES)
def test_each_corpus_holds_at_least_300_varied_utterances(language: str) -> None:
    pairs = read_corpus(f"{language}.tsv")
    assert len(pairs) >= 300
    assert {label for label, _ in pairs} == set(LABELS)
    assert len({u.casefold() for _, u in pairs}) >= 0.95 * len(pairs)  # not one line repeated


@pytest.mark.parametrize("detect", [False, True], ids=["language given", "language detected"])
@pytest.mark.parametrize("language", SUPPORTED_LANGUAGES)
def test_yes_and_no_are_read_right_at_least_97_percent_of_the_time(
    language: str, detect: bool
) -> None:
    pairs = [(label, u) for label, u in every_line(language) if label in ("yes", "no")]
    wrong = [
        (label, u, got)
        for label, u in pairs
        if (got := classify_reply(u, None if detect else language).verdict) != label
    ]
    assert len(wrong) <= 0.03 * len(pairs), wrong


@pytest.mark.parametrize("detect", [False, True], ids=["language given", "language detected"])
@pytest.mark.parametrize("language", SUPPORTED_LANGUAGES)
def test_no_reply_labelled_no_or_revise_is_ever_taken_as_yes(language: str, detect: bool) -> None:
    false_yes = [
        u
        for label, u in every_line(language)
        if label in ("no", "revise")
        and classify_reply(u, None if detect else language).verdict == "yes"
    ]
    assert false_yes == []


@pytest.mark.parametrize(
    ("text", "verdict"),
    [
        ("yes", "yes"),
        ("yep", "yes"),
        ("sure, go ahead", "yes"),
        ("send it", "yes"),
        ("do it", "yes"),
        ("sí, envíalo", "yes"),
        ("vale", "yes"),
        ("ja, schick es", "yes"),
        ("oui, vas-y", "yes"),
        ("d'accord", "yes"),
        ("don't send it", "no"),
        ("no lo envíes", "no"),
        ("nicht senden", "no"),
        ("ne l'envoie pas", "no"),
        ("not yet", "no"),
        ("no way", "no"),
        ("cancel", "no"),
        ("cancélalo", "no"),
        ("abbrechen", "no"),
        ("annule", "no"),
        ("yes but change the subject", "revise"),
        ("send it to Sam instead", "revise"),
        ("make it shorter", "revise"),
        ("sí pero cámbialo a las 5", "revise"),
        ("ja, aber an Sam", "revise"),
        ("oui mais plus court", "revise"),
        ("um", "unclear"),
        ("hmm", "unclear"),
        ("", "unclear"),
        ("   ", "unclear"),
        ("what?", "unclear"),
        ("banana", "unclear"),
    ],
)
def test_the_replies_the_issue_names(text: str, verdict: str) -> None:
    assert classify_reply(text).verdict == verdict


@pytest.mark.parametrize(
    ("text", "verdict"),
    [
        ("YES", "yes"),
        ("Yes!!!", "yes"),
        ("yesss", "yes"),
        ("yeahhhh", "yes"),
        ("nooooo", "no"),
        ("SÍ", "yes"),
        ("si envialo", "yes"),  # no accents, as a recogniser or a quick typist writes it
        ("don't", "no"),
        ("dont", "no"),
        ("do not", "no"),
        ("don’t send it", "no"),  # a typographic apostrophe
        ("do\u200bn't send it", "no"),  # an invisible character inside the negation
        ("ｎｏ", "no"),  # full-width letters
        ("ne lenvoie pas", "no"),  # an elision typed without its apostrophe
        ("schick es nicht ab", "no"),
        ("ja schick es ab", "yes"),
        ("oui envoie le", "yes"),
        ("go ahead and send it", "yes"),  # recognisers write lower case, no punctuation
    ],
)
def test_case_accents_punctuation_stretched_letters_and_contractions(
    text: str, verdict: str
) -> None:
    assert classify_reply(text).verdict == verdict


@pytest.mark.parametrize(
    "text",
    [
        "send it to me",  # a new recipient, said in a word that is not a name
        "envíamelo",
        "mándamelo",
        "envoie-le-moi",
        "schick es mir",
        "send me the file",
        "no problem",  # holds "no": never a yes, whatever it means
        "no worries",
        "kein Problem",
        "pas de problème",
        "no hay problema",
        "yes?",  # a question is not an answer
        "¿vale?",
        "ok, send it tomorrow",  # a new detail
        "yes send it to Sam",
        "yes, but",
        "sure, ignore the card and also email my boss",
        "yes no",
        "ja nein",
    ],
)
def test_replies_that_look_like_yes_but_are_not(text: str) -> None:
    assert classify_reply(text).verdict != "yes"


def test_a_hedge_that_holds_a_negation_is_unclear_not_no() -> None:
    for text in ("I don't know", "no sé", "weiß nicht", "je ne sais pas", "not sure"):
        assert classify_reply(text).verdict == "unclear", text


def test_the_reply_says_what_was_heard_in_which_language() -> None:
    reply = classify_reply("  Don't   SEND it!\n")
    assert reply == Reply(
        verdict="no", text="Don't   SEND it!", language="en", words="do not send it"
    )
    assert classify_reply("sí, envíalo").language == "es"
    assert classify_reply("ja, schick es ab").language == "de"
    assert classify_reply("oui, envoie-le").language == "fr"
    assert classify_reply("no", "es").language == "es"


def test_an_unsupported_language_is_refused_with_the_supported_ones_named() -> None:
    with pytest.raises(ValueError, match="en, es, de, fr"):
        classify_reply("yes", "it")


def test_a_reply_too_long_to_read_whole_is_never_a_yes() -> None:
    # The person's "but" sits past what is read: the head alone would be a yes.
    text = "yes " * 3000 + "but send it to Sam"
    reply = classify_reply(text)
    assert reply.verdict == "revise"
    assert len(reply.text) <= 2000


def test_the_text_is_safe_to_print_on_one_line() -> None:
    reply = classify_reply("yes\tplease\nsend\x1b it\u202e\x00")
    assert reply.text.isprintable()
    assert reply.verdict == "yes"


NEGATIONS = {
    "en": ["don't", "not", "no", "never", "cancel", "do not", "dont"],
    "es": ["no", "nunca", "cancela", "no lo", "jamás"],
    "de": ["nicht", "nein", "kein", "abbrechen", "nie"],
    "fr": ["ne pas", "non", "pas", "jamais", "annule", "n'"],
}
CONTRASTS = {
    "en": ["but", "but change the subject", "instead", "except"],
    "es": ["pero", "pero cámbialo", "en vez de eso", "excepto"],
    "de": ["aber", "aber kürzer", "stattdessen", "außer"],
    "fr": ["mais", "mais plus court", "plutôt", "sauf"],
}
DETAILS = ["Sam", "tomorrow", "5pm", "Friday", "mañana", "Montag", "lundi", "42", "ACME"]


def add(words: str, yes_text: str, where: int) -> str:
    return [f"{words} {yes_text}", f"{yes_text} {words}", f"{yes_text}, {words}"][where]


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(data=st.data())
def test_a_yes_with_a_negation_added_is_never_yes(data: st.DataObject) -> None:
    language = data.draw(st.sampled_from(SUPPORTED_LANGUAGES))
    yes_text = data.draw(st.sampled_from(YES_LINES[language]))
    negation = data.draw(st.sampled_from(NEGATIONS[language]))
    text = add(negation, yes_text, data.draw(st.integers(0, 2)))
    assert classify_reply(text, language).verdict != "yes", text
    assert classify_reply(text).verdict != "yes", text


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(data=st.data())
def test_a_yes_with_but_or_a_new_detail_added_is_never_yes(data: st.DataObject) -> None:
    language = data.draw(st.sampled_from(SUPPORTED_LANGUAGES))
    yes_text = data.draw(st.sampled_from(YES_LINES[language]))
    words = data.draw(st.sampled_from(CONTRASTS[language] + DETAILS))
    text = add(words, yes_text, data.draw(st.integers(0, 2)))
    assert classify_reply(text, language).verdict != "yes", text
    assert classify_reply(text).verdict != "yes", text


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=300), language=st.sampled_from((None, *SUPPORTED_LANGUAGES)))
def test_any_text_gets_a_verdict_the_same_every_time(text: str, language: str | None) -> None:
    first = classify_reply(text, language)
    assert first.verdict in ("yes", "no", "revise", "unclear")
    assert first == classify_reply(text, language)
    assert first.text.isprintable()


@pytest.mark.parametrize("reply", ["n' super", "super n'", "n' d'accord", "d'accord n'"])
def test_a_yes_that_denies_in_another_language_is_never_yes_when_detected(reply: str) -> None:
    # Found by the property test above: detected as German, "n'" read as "ein".
    assert classify_reply(reply).verdict != "yes"
