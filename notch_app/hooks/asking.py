"""One hook call, start to end: read the payload, map it to a Notch request, ask the
running Notch (a client of its socket, like `notch mcp`), and answer in the agent's format.

callId: the agent's own id of the call (Claude Code's session + `tool_use_id`; Codex's
session + turn + the call's digest), hashed, so a retried hook finds the same card or
its stored decision instead of a second card. Token: `NOTCH_TOKEN` when set (as for
`notch ask`), else derived from the callId with a key only this user can read
(`hook.key` in Notch's data dir), so a retried hook process is the same asker.

Never a silent allow: an approval is the only way to "allow"; anything that keeps Notch
from answering (not running, a refused request, a timeout, an unreadable payload, an
unexpected error) answers "ask", and the agent's own prompt takes over.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import logging
import os
import secrets
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from notch_app.hooks import answers, calls
from notch_app.hooks.answers import HookReply, Verdict
from notch_app.hooks.payload import HookPayload, PayloadError, read_payload
from notch_app.ipc.blocking import NotchClient
from notch_app.ipc.client import NotchError, NotchNotRunning, NotchRequestError
from notch_app.runtime.decision import Decision
from notch_app.runtime.folders import default_data_dir, make_data_dir
from notch_app.runtime.ownership import new_token, token_problem

log = logging.getLogger(__name__)

TOKEN_ENV: Final = "NOTCH_TOKEN"
KEY_FILE: Final = "hook.key"
DEFAULT_TIMEOUT_S: Final = 590.0
"""Just under the agents' own hook time limit (600 s by default), so the card is
withdrawn and the agent's prompt asked before the agent kills the hook."""


@dataclass(frozen=True, slots=True)
class Agent:
    """A coding agent Notch answers hooks for."""

    key: str
    name: str
    event: str
    """The hook event this command answers (PreToolUse, PermissionRequest)."""
    mapped: Callable[[HookPayload, calls.Installed], calls.Mapped]
    reply: Callable[[Verdict], HookReply]
    takes_edits: bool


AGENTS: Final = {
    "claude-code": Agent(
        "claude-code", "Claude Code", "PreToolUse", calls.claude_code_call,
        answers.claude_code_reply, takes_edits=True,
    ),
    "codex": Agent(
        "codex", "Codex", "PermissionRequest", calls.codex_call, answers.codex_reply,
        takes_edits=False,
    ),
}  # fmt: skip


def call_id_for(agent: Agent, payload: HookPayload) -> str:
    """The callId of `payload`'s call: the same for a retried hook, short and printable
    whatever the agent sent."""
    if payload.tool_use_id:
        seed = "\0".join((agent.key, payload.session_id, payload.tool_use_id))
    else:
        seed = agent.key + "\0" + json.dumps(payload.raw, sort_keys=True, ensure_ascii=True)
    return f"{agent.key}-{hashlib.sha256(seed.encode('utf-8')).hexdigest()[:40]}"


def token_for(call_id: str, data_dir: Path | None = None) -> str:
    """`NOTCH_TOKEN` if set and valid; else a token derived from `call_id` with this
    user's hook key; else (no key can be kept) a fresh one."""
    given = os.environ.get(TOKEN_ENV)
    if given and token_problem(given) is None:
        return given
    key = _hook_key(data_dir or default_data_dir())
    if key is None:
        return new_token()
    return "hook-" + hmac.new(key, call_id.encode("utf-8"), hashlib.sha256).hexdigest()[:40]


def _hook_key(folder: Path) -> bytes | None:
    """The 32-byte key in `folder/hook.key` (0600, this user's), made on first use; None
    when it cannot be kept safely."""
    try:
        make_data_dir(folder)
    except OSError as exc:
        log.info("no hook key: %s", exc)
        return None
    path = folder / KEY_FILE
    nofollow = getattr(os, "O_NOFOLLOW", 0)
    with contextlib.suppress(FileExistsError):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | nofollow, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(secrets.token_bytes(32))
    try:
        fd = os.open(path, os.O_RDONLY | nofollow)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        uid = os.getuid() if hasattr(os, "getuid") else None
        if not stat.S_ISREG(info.st_mode) or (uid is not None and info.st_uid != uid):
            return None
        if stat.S_IMODE(info.st_mode) & 0o077:
            return None
        key = handle.read(64)
    return key if len(key) == 32 else None


def verdict_for(agent: Agent, call: calls.NotchCall, payload: HookPayload, d: Decision) -> Verdict:
    """The hook's answer to Notch's decision `d` on `call`."""
    said = d.for_model or d.message or ""
    if d.outcome in ("approved", "autoApproved"):
        how = "Approved in Notch" if d.outcome == "approved" else "Asks first is off in Notch"
        edited = bool(d.edited_paths)
        if edited and (not agent.takes_edits or call.back == "none" or d.arguments is None):
            return Verdict(
                "deny",
                f"The person changed {', '.join(d.edited_paths)} before approving in Notch, "
                f"and {agent.name} cannot run an edited call from a hook, so nothing ran. {said}",
            )
        # Always the input the card showed (never the payload's own): see calls.py.
        shown = call.updated_input(d.arguments if d.arguments is not None else call.arguments)
        updated = shown if agent.takes_edits else None
        if not edited:
            return Verdict("allow", how, updated)
        return Verdict("allow", f"{how}, with the person's edits", updated, said)
    if d.outcome == "notRequired":
        return Verdict("none", "Notch has no card for this tool (it only reads)")
    if d.outcome == "declined":
        words = f" Their words: “{d.feedback}”." if d.feedback else ""
        return Verdict("deny", (said or "The person declined this in Notch; nothing ran.") + words)
    if d.outcome == "blocked":
        return Verdict("deny", said or "The person has blocked this in Notch's settings.")
    return Verdict("ask", f"Notch ended the request {d.outcome}: {said or 'no decision'}")


def answer(
    agent_key: str,
    data: bytes,
    *,
    socket_path: Path | None = None,
    timeout: float = DEFAULT_TIMEOUT_S,
    data_dir: Path | None = None,
) -> HookReply:
    """The reply to one hook call whose stdin was `data`. Never raises."""
    agent = AGENTS[agent_key]
    try:
        return agent.reply(_verdict(agent, data, socket_path, timeout, data_dir))
    except Exception as exc:  # a hook that crashes lets the agent's prompt decide anyway
        log.exception("notch hook failed")
        return agent.reply(Verdict("ask", f"Notch's hook failed ({type(exc).__name__}: {exc})"))


def _verdict(
    agent: Agent, data: bytes, socket_path: Path | None, timeout: float, data_dir: Path | None
) -> Verdict:
    try:
        payload = read_payload(data)
    except PayloadError as exc:
        return Verdict("ask", f"Notch could not read the hook's input: {exc}")
    if payload.hook_event_name and payload.hook_event_name != agent.event:
        return Verdict(
            "ask",
            f"notch hook {agent.key} answers {agent.event} hooks, not "
            f"{payload.hook_event_name}; configure it under {agent.event}",
        )
    call_id = call_id_for(agent, payload)
    token = token_for(call_id, data_dir)
    not_running = f"Notch is not running (start it with `notch run`), so {agent.name} asks you"
    try:
        # The client connects on its first call: a read never opens a connection.
        with NotchClient(socket_path, reconnect_for=2.0, token=token) as client:
            installed = calls.Installed()
            if payload.server_and_tool is not None:
                installed = calls.Installed(client.integrations())
            mapped = agent.mapped(payload, installed)
            if isinstance(mapped, calls.NoCard):
                return Verdict("none", mapped.reason)
            if isinstance(mapped, calls.AgentAsks):
                return Verdict("ask", f"{mapped.reason}, so {agent.name} asks you")
            try:
                decision = client.confirm(
                    mapped.integration, mapped.tool, mapped.arguments,
                    call_id=call_id, context={"agent": agent.name}, timeout=timeout,
                )  # fmt: skip
            except TimeoutError:
                _withdraw(socket_path, token, call_id)
                return Verdict(
                    "ask", f"no answer in Notch within {timeout:g} s, so {agent.name} asks you"
                )
            return verdict_for(agent, mapped, payload, decision)
    except NotchNotRunning:
        return Verdict("ask", not_running)
    except NotchRequestError as exc:
        return Verdict("ask", f"Notch refused the request: {exc.message}")
    except NotchError as exc:
        return Verdict("ask", f"{exc}; {agent.name} asks you")


def _withdraw(socket_path: Path | None, token: str, call_id: str) -> None:
    """Withdraw `call_id`'s card (a new connection: the old one may be mid-read)."""
    with (
        contextlib.suppress(NotchError, OSError),
        NotchClient(socket_path, reconnect_for=1.0, token=token) as client,
    ):
        client.withdraw(call_id)


def withdraw_on_exit(agent_key: str, data: bytes, socket_path: Path | None) -> None:
    """Withdraw the card of the call in `data` (the agent stopped waiting: a signal)."""
    with contextlib.suppress(PayloadError):
        agent = AGENTS[agent_key]
        call_id = call_id_for(agent, read_payload(data))
        _withdraw(socket_path, token_for(call_id), call_id)
