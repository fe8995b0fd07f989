"""The shell risk reading against real commands with the reading a person expects.

`tests/core/corpus/shell_risk.json` holds 518 commands from public sources (NL2Bash's
Stack Overflow one-liners, Atomic Red Team's attack tests, install instructions,
advisories and incident reports; each entry names its source), with the kinds of risk
written by hand for each. 407 were used while the reader was written; 111 (`held_out`)
were given their readings afterwards and never used to change it. Counted per kind of
finding: found (expected and read), missed (expected, not read), false alarms (read, not
expected). The figures are in the closing note of issue 20.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from notch_app.card.shell import read_command

CORPUS = Path(__file__).parent / "corpus" / "shell_risk.json"
HELD_OUT_MISSED_AT_MOST = 3
"""Held-out misses when first measured: a csh -c string, an osascript string, and a
syntax error that hides a delete (see the test below)."""


def _corpus() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(CORPUS.read_text(encoding="utf-8"))
    return data


def _score(entries: list[dict[str, Any]], cwd: str, home: str) -> tuple[int, int, int, list[str]]:
    found = missed = false = 0
    wrong: list[str] = []
    for entry in entries:
        reading = read_command(entry["command"], cwd, home)
        got, want = set(reading.kinds), set(entry["expect"])
        found += len(got & want)
        missed += len(want - got)
        false += len(got - want)
        if got != want:
            wrong.append(f"{entry['source']}: {entry['command'][:90]!r} want {sorted(want)} got "
                         f"{sorted(got)}")  # fmt: skip
    return found, missed, false, wrong


def test_the_corpus_is_real_commands_with_sources_and_known_kinds() -> None:
    corpus = _corpus()
    entries = corpus["commands"]
    assert len(entries) >= 200
    kinds = set(corpus["kinds"])
    commands = [e["command"] for e in entries]
    assert len(set(commands)) == len(commands), "each command once"
    for entry in entries:
        assert entry["source"].strip(), entry
        assert set(entry["expect"]) <= kinds, entry
        source = entry["source"]
        assert source.startswith(("nl2bash:", "atomic-red-team:", "http", "issue 20")), source
    risky = [e for e in entries if e["expect"]]
    benign = [e for e in entries if not e["expect"]]
    assert len(risky) >= 100 and len(benign) >= 100, "both kinds, so false alarms count"
    # Every kind of risk the issue names is in the corpus, more than once.
    for kind in kinds - {"unread"}:
        assert sum(kind in e["expect"] for e in entries) >= 2, kind


def test_the_commands_it_was_written_on_read_exactly_as_expected() -> None:
    corpus = _corpus()
    tuned = [e for e in corpus["commands"] if not e.get("held_out")]
    found, missed, false, wrong = _score(tuned, corpus["cwd"], corpus["home"])
    print(
        f"\nshell risk, {len(tuned)} commands: found {found}, missed {missed}, false alarms {false}"
    )
    assert wrong == []
    assert (missed, false) == (0, 0) and found >= 300


def test_commands_it_never_saw_raise_no_false_alarm_and_few_misses() -> None:
    corpus = _corpus()
    held = [e for e in corpus["commands"] if e.get("held_out")]
    assert len(held) >= 100
    found, missed, false, wrong = _score(held, corpus["cwd"], corpus["home"])
    print(f"\nshell risk, {len(held)} held-out commands: found {found}, missed {missed}, "
          f"false alarms {false}\n" + "\n".join(wrong))  # fmt: skip
    assert false == 0, wrong
    assert missed <= HELD_OUT_MISSED_AT_MOST, wrong


def test_the_whole_corpus_reads_in_well_under_a_millisecond_a_command() -> None:
    corpus = _corpus()
    entries = corpus["commands"]
    start = time.perf_counter()
    for entry in entries:
        read_command(entry["command"], corpus["cwd"], corpus["home"])
    per_command = (time.perf_counter() - start) / len(entries)
    # ~0.2 ms a command alone; the bound leaves room for a loaded two-core machine.
    assert per_command < 0.02, f"{per_command * 1000:.2f} ms a command"
