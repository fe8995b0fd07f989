"""`notch hook`: documented payloads mapped to Notch requests and cards, and Notch's
decisions written in each agent's documented answer format (no Notch needed here)."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

import pytest

from notch_app.hooks import calls, file_change
from notch_app.hooks.answers import Verdict, claude_code_reply, codex_reply
from notch_app.hooks.asking import AGENTS, call_id_for, verdict_for
from notch_app.hooks.payload import PayloadError, read_payload
from notch_app.runtime.decision import Decision
from notch_app.runtime.presenter import Outcome

FIXTURES = Path(__file__).parent.parent / "fixtures" / "hooks"


def payload(name: str, cwd: Path | None = None, **tool_input: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / f"{name}.json").read_text())
    if cwd is not None:
        data["cwd"] = str(cwd)
        if "file_path" in data["tool_input"]:
            data["tool_input"]["file_path"] = str(cwd / Path(data["tool_input"]["file_path"]).name)
    data["tool_input"].update(tool_input)
    return data


def mapped(data: dict[str, Any], installed: calls.Installed | None = None) -> calls.Mapped:
    parsed = read_payload(json.dumps(data).encode())
    if data.get("hook_event_name") == "PermissionRequest":
        return calls.codex_call(parsed, installed or calls.Installed())
    return calls.claude_code_call(parsed, installed or calls.Installed())


def test_a_bash_call_is_the_command_in_full_with_its_folder_and_the_agents_words() -> None:
    call = mapped(payload("claude-code/bash"))
    assert isinstance(call, calls.NotchCall)
    assert (call.integration, call.tool) == ("dev.notch.agents.claude-code", "Bash")
    assert call.arguments == {
        "command": "npm test",
        "cwd": "/home/user/my-project",
        "description": "Run test suite",
        "timeout": 120000,
        "run_in_background": False,
    }


HIDDEN = {"command": "ls", "dangerouslyDisableSandbox": True, "description": "List files"}


def test_a_hidden_flag_and_unknown_keys_reach_the_card_under_their_own_names() -> None:
    # The attack: Bash's sandbox flag (and a key no card knows) beside a harmless command.
    data = payload("claude-code/bash")
    data["tool_input"] = {**HIDDEN, "retry": {"times": 3}}
    call = mapped(data)
    assert isinstance(call, calls.NotchCall)
    assert call.arguments["dangerouslyDisableSandbox"] is True
    assert call.arguments["retry"] == {"times": 3}  # listed under "Also sends"
    assert call.updated_input(call.arguments) == data["tool_input"]


def test_the_approved_input_is_rebuilt_from_the_card_never_from_the_payload() -> None:
    data = payload("claude-code/bash")
    data["tool_input"] = {**HIDDEN, "retry": 3}
    call = mapped(data)
    assert isinstance(call, calls.NotchCall)
    shown = {**call.arguments, "command": "ls -la"}
    del shown["retry"]  # what the card held, had a key gone missing on the way
    assert call.updated_input(shown) == {
        "command": "ls -la",
        "dangerouslyDisableSandbox": True,
        "description": "List files",
    }


@pytest.mark.parametrize("key", ["cwd", "long_run"])
def test_an_unknown_key_never_takes_a_name_the_card_uses_for_its_own_words(key: str) -> None:
    data = payload("claude-code/bash")
    data["tool_input"][key] = "(checked by Notch)"
    call = mapped(data)
    assert isinstance(call, calls.AgentAsks) and repr(key) in call.reason


@pytest.mark.parametrize(
    ("key", "value"),
    [("timeout", "soon"), ("timeout", -1), ("run_in_background", "yes"),
     ("dangerouslyDisableSandbox", 1), ("description", {"x": 1})],
)  # fmt: skip
def test_a_known_key_of_another_type_leaves_the_call_to_the_agents_prompt(
    key: str, value: Any
) -> None:
    call = mapped(payload("claude-code/bash", **{key: value}))
    assert isinstance(call, calls.AgentAsks) and key in call.reason


def test_a_long_time_limit_is_said_in_words() -> None:
    call = mapped(payload("claude-code/bash", timeout=600000))
    assert isinstance(call, calls.NotchCall) and call.arguments["long_run"] == "10 minutes"
    assert "long_run" not in call.updated_input(call.arguments)


def test_an_edit_is_shown_as_the_diff_it_makes_to_the_file_on_disk(tmp_path: Path) -> None:
    source = tmp_path / "cart.ts"
    source.write_text(
        "export function total(items: Item[]) {\n  return items.reduce((s, i) => s + i.price, 0);\n}\n"
    )
    call = mapped(payload("claude-code/edit", tmp_path))
    assert isinstance(call, calls.NotchCall) and call.tool == "Edit"
    args = call.arguments
    assert args["file_path"] == str(source)
    assert "-  return items.reduce((s, i) => s + i.price, 0);" in args["diff"]
    assert "+  return items.reduce((s, i) => s + i.price * i.quantity, 0);" in args["diff"]
    assert args["change"] == "Replaces 1 occurrence · 1 line added, 1 removed"
    assert "notes" not in args


def test_a_multiedit_applies_every_edit_in_order(tmp_path: Path) -> None:
    (tmp_path / "cart.ts").write_text("function total(items: Item[]) { return total; }\n")
    call = mapped(payload("claude-code/multiedit", tmp_path))
    assert isinstance(call, calls.NotchCall) and call.tool == "Edit"
    assert "+function sum(items: readonly Item[]) { return sum; }" in call.arguments["diff"]
    assert call.arguments["change"].startswith("2 edits")


def test_a_new_file_shows_its_head_and_an_overwrite_its_diff(tmp_path: Path) -> None:
    call = mapped(payload("claude-code/write", tmp_path))
    assert isinstance(call, calls.NotchCall) and call.tool == "Write"
    assert call.arguments["diff"].splitlines()[:4] == [
        "--- /dev/null",
        "+++ b/NOTES.md",
        "@@ -0,0 +1,3 @@",
        "+# Notes",
    ]
    assert call.arguments["change"] == "New file · 3 lines added, 0 removed"
    (tmp_path / "NOTES.md").write_text("# Notes\n\nOld line.\n")
    call = mapped(payload("claude-code/write", tmp_path))
    assert isinstance(call, calls.NotchCall)
    assert "-Old line." in call.arguments["diff"] and call.arguments["change"].startswith(
        "Replaces the whole file"
    )


def test_a_path_that_climbs_out_of_the_project_is_shown_resolved_and_flagged(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    data = payload("claude-code/write", project)
    data["tool_input"]["file_path"] = "src/../../../etc/cron.d/x"
    call = mapped(data)
    assert isinstance(call, calls.NotchCall)
    assert call.arguments["file_path"] == os.path.normpath(str(project / "../../etc/cron.d/x"))
    assert call.arguments["written_as"] == "src/../../../etc/cron.d/x"
    assert call.arguments["notes"].startswith("Outside the working directory")


def test_a_write_too_long_to_show_whole_is_left_to_the_agents_prompt(tmp_path: Path) -> None:
    # Never a card whose yes would cover lines it could not show.
    content = "".join(f"line {n} {'x' * 40}\n" for n in range(file_change.MAX_DIFF_LINES + 10))
    call = mapped(payload("claude-code/write", tmp_path, content=content))
    assert isinstance(call, calls.AgentAsks) and "longer than Notch shows whole" in call.reason
    change = file_change.write_change({"file_path": "x", "content": content}, str(tmp_path))
    assert change.partial and "more lines not shown" in change.diff.splitlines()[-1]


def test_a_long_write_the_card_can_scroll_through_is_shown_whole(tmp_path: Path) -> None:
    content = "".join(f"line {n}\n" for n in range(1000))
    call = mapped(payload("claude-code/write", tmp_path, content=content))
    assert isinstance(call, calls.NotchCall)
    assert call.arguments["diff"].splitlines()[-1] == "+line 999"
    assert call.updated_input(call.arguments) == {
        "file_path": str(tmp_path / "NOTES.md"),
        "content": content,
    }


def test_a_fifo_as_file_path_never_blocks_the_hook(tmp_path: Path) -> None:
    fifo = tmp_path / "cart.ts"
    os.mkfifo(fifo)
    done: list[calls.Mapped] = []
    worker = threading.Thread(
        target=lambda: done.append(mapped(payload("claude-code/edit", tmp_path)))
    )
    worker.start()
    worker.join(5)
    assert done, "reading a FIFO blocked the hook"
    call = done[0]
    assert isinstance(call, calls.NotchCall)
    assert "not a regular file" in call.arguments["notes"]
    assert "-i.price, 0)" in call.arguments["diff"]  # the replaced text is still shown


def test_a_command_too_long_to_show_whole_is_left_to_the_agents_prompt() -> None:
    call = mapped(payload("claude-code/bash", command="echo " + "a" * calls.MAX_COMMAND_CHARS))
    assert isinstance(call, calls.AgentAsks) and "more than Notch shows whole" in call.reason


def test_control_characters_stay_in_the_command_the_card_shows() -> None:
    sneaky = "echo safe\r\x1b[2Krm -rf ~/\u202e"
    call = mapped(payload("claude-code/bash", command=sneaky))
    assert isinstance(call, calls.NotchCall) and call.arguments["command"] == sneaky


def test_reads_get_no_card() -> None:
    assert isinstance(mapped(payload("claude-code/read")), calls.NoCard)


def test_a_web_fetch_names_its_site_apart_from_the_address() -> None:
    call = mapped(
        payload("claude-code/webfetch", url="https://example.com.evil.test/a?b=https://example.com")
    )
    assert isinstance(call, calls.NotchCall)
    assert call.arguments["site"] == "example.com.evil.test"


INSTALLED = calls.Installed(
    [
        {"id": "com.example.mail", "name": "Mail", "tools": [{"name": "send_email"}]},
        {"id": "com.other.mail", "name": "Other mail", "tools": [{"name": "archive"}]},
    ]
)


def test_an_mcp_tool_goes_through_its_installed_manifest_card() -> None:
    call = mapped(payload("claude-code/mcp"), INSTALLED)
    assert isinstance(call, calls.NotchCall)
    assert (call.integration, call.tool, call.back) == ("com.example.mail", "send_email", "same")
    assert call.arguments == {"to": ["sam@example.com"], "subject": "Hi", "body": "See you at 3."}


def test_an_mcp_tool_without_a_manifest_gets_a_generated_card_of_its_input() -> None:
    call = mapped(payload("claude-code/mcp-unknown"), INSTALLED)
    assert isinstance(call, calls.NotchCall) and call.tool == "Other"
    assert call.arguments["server"] == "tracker" and call.arguments["tool_name"] == "create_issue"
    # Written for reading (issue 20): what it acts on first, then the bulk.
    assert call.arguments["input"].splitlines() == [
        'title: "Cart totals ignore quantity"',
        "labels: (1 item)",
        '  1. "bug"',
    ]
    assert call.updated_input(call.arguments) == payload("claude-code/mcp-unknown")["tool_input"]


def test_a_codex_command_is_shown_and_never_editable() -> None:
    call = mapped(payload("codex/bash"))
    assert isinstance(call, calls.NotchCall)
    assert (call.integration, call.tool, call.back) == ("dev.notch.agents.codex", "Bash", "none")
    assert call.arguments["command"] == "git push origin main"
    sneaky = mapped(payload("codex/bash", sandbox_permissions="require_escalated"))
    assert isinstance(sneaky, calls.NotchCall)
    assert sneaky.arguments["sandbox_permissions"] == "require_escalated"  # "Also sends"


def test_a_codex_patch_names_its_files() -> None:
    call = mapped(payload("codex/apply-patch"))
    assert isinstance(call, calls.NotchCall) and call.tool == "apply_patch"
    assert call.arguments["file_path"] == "/home/user/my-project/src/cart.ts"
    assert call.arguments["change"] == "Patch to 1 file · 1 line added, 1 removed"


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"garbage",
        b"[1, 2]",
        b'{"tool_name": "Bash"}',
        b'{"tool_name": 5, "tool_input": {}}',
        b"\xff\xfe",
    ],
)
def test_unreadable_payloads_are_refused_with_a_reason(data: bytes) -> None:
    with pytest.raises(PayloadError):
        read_payload(data)


def test_a_retried_hook_has_the_same_call_id_and_another_call_a_different_one() -> None:
    agent = AGENTS["claude-code"]
    first = read_payload((FIXTURES / "claude-code/bash.json").read_bytes())
    again = read_payload((FIXTURES / "claude-code/bash.json").read_bytes())
    other = read_payload((FIXTURES / "claude-code/edit.json").read_bytes())
    assert call_id_for(agent, first) == call_id_for(agent, again) != call_id_for(agent, other)
    assert len(call_id_for(agent, first)) <= 128
    # No id of its own (Codex): the same payload again is a new call, never the old one.
    codex = read_payload((FIXTURES / "codex/bash.json").read_bytes())
    assert call_id_for(AGENTS["codex"], codex) != call_id_for(AGENTS["codex"], codex)
    assert call_id_for(AGENTS["codex"], codex).startswith("codex:")


def _decision(outcome: Outcome, **kw: Any) -> Decision:
    return Decision("c", outcome, "dev.notch.agents.claude-code", "Bash", **kw)


def test_claude_codes_answers_are_its_documented_json() -> None:
    agent = AGENTS["claude-code"]
    parsed = read_payload((FIXTURES / "claude-code/bash.json").read_bytes())
    call = calls.claude_code_call(parsed, calls.Installed())
    assert isinstance(call, calls.NotchCall)
    edited = {**call.arguments, "command": "npm test -- --bail"}
    verdict = verdict_for(
        agent, call, parsed, _decision("approved", arguments=edited, edited_paths=("command",))
    )
    out = json.loads(claude_code_reply(verdict).stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "PreToolUse" and out["permissionDecision"] == "allow"
    assert out["updatedInput"] == {
        "command": "npm test -- --bail",
        "description": "Run test suite",
        "timeout": 120000,
        "run_in_background": False,
    }
    plain = verdict_for(agent, call, parsed, _decision("approved", arguments=call.arguments))
    out = json.loads(claude_code_reply(plain).stdout)["hookSpecificOutput"]
    assert out["updatedInput"] == parsed.tool_input  # always: exactly what the card showed
    auto = verdict_for(agent, call, parsed, _decision("autoApproved"))
    out = json.loads(claude_code_reply(auto).stdout)["hookSpecificOutput"]
    assert out["updatedInput"] == parsed.tool_input
    bare = json.loads(claude_code_reply(Verdict("allow", "ok")).stdout)["hookSpecificOutput"]
    assert bare["permissionDecision"] == "ask"  # never an allow of the agent's own input
    refused: tuple[Outcome, ...] = ("declined", "blocked")
    for outcome in refused:
        denied = json.loads(
            claude_code_reply(verdict_for(agent, call, parsed, _decision(outcome))).stdout
        )
        assert denied["hookSpecificOutput"]["permissionDecision"] == "deny"
        assert denied["hookSpecificOutput"]["permissionDecisionReason"]
    words = verdict_for(agent, call, parsed, _decision("declined", feedback="use pnpm"))
    assert "use pnpm" in words.reason
    unanswered: tuple[Outcome, ...] = ("expired", "withdrawn")
    for outcome in unanswered:
        assert verdict_for(agent, call, parsed, _decision(outcome)).kind == "ask"
    assert claude_code_reply(Verdict("none")).stdout == ""


def test_codex_answers_allow_and_deny_and_stays_silent_to_ask() -> None:
    allow = json.loads(codex_reply(Verdict("allow", "ok")).stdout)
    assert allow == {
        "hookSpecificOutput": {
            "hookEventName": "PermissionRequest",
            "decision": {"behavior": "allow"},
        }
    }
    deny = json.loads(codex_reply(Verdict("deny", "no")).stdout)
    assert deny["hookSpecificOutput"]["decision"] == {"behavior": "deny", "message": "no"}
    asked = codex_reply(Verdict("ask", "Notch is not running"))
    assert asked.stdout == "" and "Notch is not running" in asked.stderr and asked.exit_code == 0


def test_an_edited_approval_codex_cannot_carry_is_never_run_unedited() -> None:
    agent = AGENTS["codex"]
    parsed = read_payload((FIXTURES / "codex/bash.json").read_bytes())
    call = calls.codex_call(parsed, calls.Installed())
    assert isinstance(call, calls.NotchCall)
    verdict = verdict_for(
        agent,
        call,
        parsed,
        _decision(
            "approved", arguments={**call.arguments, "command": "x"}, edited_paths=("command",)
        ),
    )
    assert verdict.kind == "deny" and "cannot run an edited call" in verdict.reason
