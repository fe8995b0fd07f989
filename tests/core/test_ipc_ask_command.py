"""`notch ask` as a real process against an in-process Notch: output and exit codes."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from notch_app.runtime.presenter import ConfirmationRequest

MAIL = "com.example.mail"  # the integration tests/core/conftest.py serves


async def ask(*argv: str, stdin: bytes | None = None) -> tuple[int, Any, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "notch_app", "ask", *argv,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await process.communicate(stdin)
    text = out.decode()
    return process.returncode or 0, json.loads(text) if text.strip() else None, err.decode()


def by_recipient(request: ConfirmationRequest) -> tuple[bool, dict[str, Any] | None] | None:
    to = request.arguments.get("to")
    if to == "sam":
        return True, {**request.arguments, "to": "sam@example.com"}
    if to == "eve":
        return False, None
    return None  # left open


@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_exit_codes_and_printed_decisions(base: Path, running_notch: Any) -> None:
    async with running_notch(base, rule=by_recipient) as (notch, cards):
        sock = str(notch.server.path)
        args_file = base / "args.json"
        args_file.write_text('{"to": "sam", "subject": "Lunch"}')

        code, decision, _ = await ask("--socket", sock, "--integration", MAIL,
                                      "--tool", "send_email", "--args", f"@{args_file}",
                                      "--call-id", "cli-1")  # fmt: skip
        assert code == 0
        assert decision["callId"] == "cli-1" and decision["outcome"] == "approved"
        assert decision["arguments"] == {"to": "sam@example.com", "subject": "Lunch"}
        assert decision["editedPaths"] == ["to"]

        code, decision, _ = await ask("--socket", sock, "--integration", MAIL,
                                      "--tool", "send_email", "--args", '{"to": "eve"}')  # fmt: skip
        assert (code, decision["outcome"], decision["arguments"]) == (1, "declined", None)

        code, decision, _ = await ask("--socket", sock, "--integration", MAIL,
                                      "--tool", "search_mail", "--args", "@-", stdin=b"{}")  # fmt: skip
        assert (code, decision["outcome"]) == (0, "notRequired")

        code, decision, _ = await ask("--socket", sock, "--integration", MAIL,
                                      "--tool", "send_email", "--args", '{"to": "zed"}',
                                      "--expires-in", "0.2")  # fmt: skip
        assert (code, decision["outcome"]) == (1, "expired")

        code, decision, _ = await ask("--socket", sock, "--integration", MAIL,
                                      "--tool", "send_email", "--args", '{"to": "zed"}',
                                      "--timeout", "0.3", "--call-id", "cli-t")  # fmt: skip
        assert (code, decision["outcome"]) == (1, "withdrawn")
        assert "cli-t" not in cards.cards


@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_errors_exit_2_with_the_reason_on_stderr(base: Path, running_notch: Any) -> None:
    async with running_notch(base) as (notch, _):
        sock = str(notch.server.path)
        code, out, err = await ask("--socket", sock, "--integration", "com.nope",
                                   "--tool", "x", "--args", "{}")  # fmt: skip
        assert code == 2 and out is None
        assert "unknown integration 'com.nope'" in err and MAIL in err
        assert "Traceback" not in err
        code, _, err = await ask("--socket", sock, "--integration", MAIL,
                                 "--tool", "send_email", "--args", "{to: sam}")  # fmt: skip
        assert code == 2 and "not valid JSON" in err
    missing = base / "gone.sock"
    code, _, err = await ask("--socket", str(missing), "--integration", MAIL, "--tool", "x")
    assert code == 2
    assert f"no Notch is running at {missing}: start it with `notch run`" in err
