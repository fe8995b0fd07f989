"""Answering a card by voice: Notch says the card's read-back, then listens for the reply.

Opt-in ("Answer by voice" in Settings, off by default) and offline: the read-back is spoken
by espeak-ng, the reply is heard on the default microphone and recognized by PocketSphinx's
bundled English model (a small grammar for yes / no / cancel / "change it", the free-form
model for revisions), or by faster-whisper when the person configured a local model.

One module per job: `speaker` (the read-back), `microphone` and `wav_input` (where the
audio comes from), `utterances` (where a reply starts and ends), `recognizer` (what was
said), `whisper_backend` (the optional recognizer), `answer_round` (one card's question and
answer), `input_choice` (which input and recognizer this run uses), `clock` (what a round
waits on: the wall clock, or a test's file time). Nothing here is imported
while the setting is off: the overlay imports `answer_round` on the first card it voices.
"""
