"""Answers that read right (issue 22 §7): a card sent back with words tells the agent the
words once, in plain words, with no Notch terms; the Claude Code hook's reason does not
quote them twice.
"""

from __future__ import annotations

from dataclasses import replace

from notch_app.runtime.decision import Decision
from notch_app.runtime.model_sentence import sentence_for_model


def test_a_revision_is_said_once_without_notch_jargon() -> None:
    decision = Decision(
        "c1", "declined", "com.example.mail", "send_email", reason="revise",
        feedback="make it  shorter",
    )  # fmt: skip
    said = sentence_for_model(decision, "Send email")
    assert said == (
        'The person wants a change to Send email: "make it shorter". Nothing ran; ask again '
        "with that change made."
    )
    assert "callId" not in said and "supersede" not in said
    assert said.count("make it shorter") == 1


def test_the_hook_reason_quotes_the_words_once() -> None:
    from pathlib import Path

    from notch_app.hooks import calls
    from notch_app.hooks.asking import AGENTS, verdict_for
    from notch_app.hooks.payload import read_payload

    fixtures = Path(__file__).resolve().parents[1] / "fixtures" / "hooks"
    parsed = read_payload((fixtures / "claude-code/bash.json").read_bytes())
    call = calls.claude_code_call(parsed, calls.Installed())
    assert isinstance(call, calls.NotchCall)
    decision = Decision(
        "c", "declined", "dev.notch.agents.claude-code", "Bash", reason="revise",
        feedback="use yarn",
    )  # fmt: skip
    decision = replace(decision, for_model=sentence_for_model(decision, "Run a shell command"))
    verdict = verdict_for(AGENTS["claude-code"], call, parsed, decision)
    assert str(verdict).count("use yarn") == 1, verdict
