"""`notch hook claude-code` as Claude Code runs it, against the real `notch run` in a real X
server: the Bash call's card on screen with the command in full, approved with the
keyboard, and Claude Code's documented allow JSON on the hook's stdout."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.e2e

FIXTURE = Path(__file__).parent.parent / "fixtures" / "hooks" / "claude-code" / "bash.json"


def test_a_bash_hook_is_approved_with_the_keyboard(
    xserver: Any,
    notch_env: dict[str, Path],
    start_notch: Any,
    notch_argv: list[str],
    repo: Path,
    tmp_path: Path,
) -> None:
    start_notch(xserver.env, notch_env["socket"], notch_env["data_dir"], notch_env["log"])
    payload = json.loads(FIXTURE.read_text())
    payload["tool_input"]["command"] = "git commit -am 'Count quantities in cart totals'"
    stdin = tmp_path / "payload.json"
    stdin.write_text(json.dumps(payload))
    hook = subprocess.Popen(
        [*notch_argv, "hook", "claude-code", "--socket", str(notch_env["socket"]), "--timeout", "60"],
        env={**xserver.env, "NOTCH_DATA_DIR": str(tmp_path / "hook-data")},
        stdin=stdin.open("rb"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=repo,
    )  # fmt: skip

    card = xserver.settled_card()
    xserver.screenshot("hook-bash-card")
    xserver.focus_card(card)
    xserver.confirm_with_keys(card)

    out, err = hook.communicate(timeout=30)
    assert hook.returncode == 0, err
    answer = json.loads(out)["hookSpecificOutput"]
    assert answer["hookEventName"] == "PreToolUse"
    assert answer["permissionDecision"] == "allow"
    assert answer["updatedInput"] == payload["tool_input"]  # exactly what the card showed
