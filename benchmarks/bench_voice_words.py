"""The card words for a spoken yes (issue 18): is every pair heard as itself?

Every ordered pair of `approval_words.WORDS`, said as "yes A B" and "yes, A B" by
espeak-ng, goes through the real recognizer (`ReplyRecognizer`: the reply grammar, the
phone check, the free-form model) exactly as the hearing thread would give it one
utterance. Each is counted as:

- heard: "yes A B" came back as the card's pair (it approves);
- cut short: a yes with fewer words (the person is told to say the words, asked again);
- other pair: a yes with another pair (a wrong guess: it counts towards the pause);
- declined: a no or a change (the card would be declined: the worst miss);
- unclear: asked again.

Exit status 1 when any pair is heard as another pair or declined with the first voice
(en-us, the voice the tests use).

    python benchmarks/bench_voice_words.py [--voices en-us en-us+f3 en-us+m3 en-gb]
"""

from __future__ import annotations

import argparse
import collections
import itertools
import subprocess
import sys
import tempfile
from pathlib import Path


def utterances(text: str, voice: str, folder: Path) -> list[bytes]:
    from notch_app.ui.voice.utterances import UtteranceFinder
    from notch_app.ui.voice.wav_input import read_wav_16k_mono

    path = folder / "said.wav"
    subprocess.run(["espeak-ng", "-v", voice, "-w", str(path), text], check=True)
    finder = UtteranceFinder()
    found = finder.feed(bytes(16000) + read_wav_16k_mono(path) + bytes(32000))
    end = finder.end()
    return [u.pcm for u in (*found, *([end] if end else []))]


def measure(voice: str, folder: Path) -> tuple[collections.Counter[str], list[str]]:
    from notch_app.ui.voice.approval_words import WORDS, words_after_yes
    from notch_app.ui.voice.recognizer import ReplyRecognizer

    recognizer = ReplyRecognizer()
    counts: collections.Counter[str] = collections.Counter()
    misses: list[str] = []
    for first, second in itertools.permutations(WORDS, 2):
        for text in (f"yes {first} {second}", f"yes, {first} {second}"):
            said = utterances(text, voice, folder)
            if len(said) != 1:
                counts["split in two"] += 1
                misses.append(f"{text!r}: split in {len(said)} utterances")
                continue
            heard = recognizer.hear(said[0])
            words = words_after_yes(heard.words) if heard.verdict == "yes" else None
            if words == (first, second):
                counts["heard"] += 1
                continue
            if words is not None:
                kind = "other pair" if len(words) == 2 else "cut short"
            else:
                kind = "declined" if heard.verdict in ("no", "revise") else "unclear"
            counts[kind] += 1
            misses.append(f"{text!r}: {kind}, heard {heard.words!r} ({heard.heard_by})")
    return counts, misses


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--voices", nargs="+", default=["en-us"])
    args = parser.parse_args()
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        for n, voice in enumerate(args.voices):
            counts, misses = measure(voice, Path(tmp))
            total = sum(counts.values())
            shares = ", ".join(f"{k} {v} ({100 * v / total:.1f} %)" for k, v in counts.items())
            print(f"{voice}: {total} utterances: {shares}")
            for miss in misses[:20]:
                print(f"   {miss}")
            if n == 0 and (counts["other pair"] or counts["declined"]):
                failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
