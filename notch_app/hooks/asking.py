"""One hook call, start to end: read the payload, map it to a Notch request, ask the
running Notch (a client of its socket, like `notch mcp`), and answer in the agent's format.

callId: from the agent's own id of the call (Claude Code's session + `tool_use_id`,
through `runtime.call_ids.call_id_of`), so a retried hook joins the same card or gets
its stored decision instead of a second card, and the same id with another input is
refused; a payload with no id of its own (Codex) is a new call with a new callId, never
an earlier call's answer. Token: `NOTCH_TOKEN` when set (as for `notch ask`), else
derived from the callId with a key only this user can read (`hook.key` in Notch's data
dir), so a retried hook process is the same asker.

Never a silent allow: an approval is the only way to "allow"; anything that keeps Notch
from answering (not running, a refused request, a timeout, an unreadable payload, an
unexpected error, a signal that stops the hook) answers "ask", and the agent's own
prompt takes over. Every wait is bounded: `timeout` for the whole call (a Notch that
accepts and never answers included), then WITHDRAW_WAIT_S for the withdraw.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import logging
import os
import secrets
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from notch_app.hooks import answers, calls
from notch_app.hooks.answers import HookReply, Verdict
from notch_app.hooks.payload import HookPayload, PayloadError, read_payload
from notch_app.ipc.blocking import NotchClient
from notch_app.ipc.client import (
    WITHDRAW_WAIT_S,
    NotchError,
    NotchNotRunning,
    NotchRequestError,
    NotchTimeout,
)
from notch_app.runtime.call_ids import call_id_of, fresh_call_id
from notch_app.runtime.decision import Decision
from notch_app.runtime.folders import default_data_dir, make_data_dir
from notch_app.runtime.ownership import new_token, token_problem

log = logging.getLogger(__name__)

TOKEN_ENV: Final = "NOTCH_TOKEN"
KEY_FILE: Final = "hook.key"
DEFAULT_TIMEOUT_S: Final = 590.0
"""Just under the agents' own hook time limit (600 s by default), so the card is
withdrawn and the agent's prompt asked before the agent kills the hook."""
_LAST_TRY_S: Final = 0.05


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
    """The callId of `payload`'s call. With the agent's own id of it (Claude Code's
    `tool_use_id`, within its `session_id`), always the same one: a retried hook joins
    the open card or gets the stored decision. Without one (Codex), a new callId every
    time: the same command asked again later is a new call with a new card, never the
    earlier call's answer."""
    if payload.tool_use_id:
        return call_id_of(agent.key, payload.session_id, payload.tool_use_id)
    return fresh_call_id(agent.key)


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
    if not path.exists():
        _put_key(path)
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


def _put_key(path: Path) -> None:
    """Make the key at `path` whole or not at all: written in full under a name of its own,
    then linked into place. An agent runs its hooks side by side (parallel tool calls),
    so on a first use two hooks make the key at once; a key file created empty and
    written after let the second read it empty, ask with a token of its own, and be
    refused its own card (`notYours`). The first link wins; the other reads its key."""
    spare = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    try:
        _write_new(spare, secrets.token_bytes(32))
        try:
            os.link(spare, path)
        except FileExistsError:
            pass
        except OSError:  # a file system without hard links: made in place, as before
            with contextlib.suppress(FileExistsError):
                _write_new(path, spare.read_bytes())
    except OSError as exc:
        log.info("no hook key made: %s", exc)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(spare)


def _write_new(path: Path, data: bytes) -> None:
    """Write `data` to a new file at `path`, this user's alone (FileExistsError if any)."""
    nofollow = getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | nofollow, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)


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
        # Their words once: the sentence for the model may quote them already.
        quoted = bool(d.feedback) and " ".join(str(d.feedback).split())[:40] in (said or "")
        words = f" Their words: “{d.feedback}”." if d.feedback and not quoted else ""
        return Verdict("deny", (said or "The person declined this in Notch; nothing ran.") + words)
    if d.outcome == "blocked":
        return Verdict("deny", said or "The person has blocked this in Notch's settings.")
    return Verdict("ask", f"Notch ended the request {d.outcome}: {said or 'no decision'}")


class HookRun:
    """One hook call whose stdin was `data`: `answer()` asks Notch and gives the reply;
    when a signal stops it midway, `stopped_reply()` is the reply at once (the safe
    "ask") and `withdraw()` takes back the card it may have opened.

    `timeout` bounds the whole wait (connect, the look-up of installed integrations,
    the person's decision); the withdraw after it has WITHDRAW_WAIT_S more, so a Notch
    that accepts and never answers keeps the agent at most `timeout` + ~1 s."""

    def __init__(
        self,
        agent_key: str,
        data: bytes,
        *,
        socket_path: Path | None = None,
        timeout: float = DEFAULT_TIMEOUT_S,
        data_dir: Path | None = None,
    ) -> None:
        self.agent = AGENTS[agent_key]
        self.data = data
        self.socket_path = socket_path
        self.timeout = timeout
        self.data_dir = data_dir
        self.asked: tuple[str, str] | None = None
        """(callId, token) once a request may be open in Notch."""

    def answer(self) -> HookReply:
        """The reply to the call. Never raises an Exception (a signal's BaseException
        passes: the caller answers with `stopped_reply()`)."""
        try:
            return self.agent.reply(self._verdict())
        except Exception as exc:  # a hook that crashes lets the agent's prompt decide anyway
            log.exception("notch hook failed")
            return self.agent.reply(
                Verdict("ask", f"Notch's hook failed ({type(exc).__name__}: {exc})")
            )

    def withdraw(self, within: float = WITHDRAW_WAIT_S) -> None:
        """Withdraw the card this call may have opened, giving up after `within` seconds
        (on a new connection: the old one may be mid-read). Quiet when nothing was asked,
        Notch is gone, or it does not answer."""
        if self.asked is None:
            return
        call_id, token = self.asked
        with (
            contextlib.suppress(NotchError, OSError),
            NotchClient(self.socket_path, reconnect_for=0.0, token=token) as client,
        ):
            client.withdraw(call_id, timeout=within)

    def _verdict(self) -> Verdict:
        agent, timeout = self.agent, self.timeout
        until = time.monotonic() + timeout
        try:
            payload = read_payload(self.data)
        except PayloadError as exc:
            return Verdict("ask", f"Notch could not read the hook's input: {exc}")
        if payload.hook_event_name and payload.hook_event_name != agent.event:
            return Verdict(
                "ask",
                f"notch hook {agent.key} answers {agent.event} hooks, not "
                f"{payload.hook_event_name}; configure it under {agent.event}",
            )
        call_id = call_id_for(agent, payload)
        token = token_for(call_id, self.data_dir)
        no_answer = Verdict(
            "ask", f"no answer in Notch within {timeout:g} s, so {agent.name} asks you"
        )
        try:
            # The client connects on its first call: a read never opens a connection.
            with NotchClient(self.socket_path, reconnect_for=2.0, token=token) as client:
                installed = calls.Installed()
                if payload.server_and_tool is not None:
                    installed = calls.Installed(client.integrations(timeout=_left(until)))
                mapped = agent.mapped(payload, installed)
                if isinstance(mapped, calls.NoCard):
                    return Verdict("none", mapped.reason)
                if isinstance(mapped, calls.AgentAsks):
                    return Verdict("ask", f"{mapped.reason}, so {agent.name} asks you")
                self.asked = (call_id, token)
                # A timeout withdraws the card (within WITHDRAW_WAIT_S) before it raises;
                # if the person decided first, that decision comes back instead.
                # The agent's own session: "Allow for this session" on this card covers
                # the later calls of that session (runtime/allowances.py), although each
                # hook call is a process and an asker of its own.
                context = {"agent": agent.name}
                if payload.session_id:
                    context["session"] = payload.session_id
                decision = client.confirm(
                    mapped.integration, mapped.tool, mapped.arguments,
                    call_id=call_id, context=context, timeout=_left(until),
                )  # fmt: skip
                return verdict_for(agent, mapped, payload, decision)
        except NotchNotRunning:
            return Verdict(
                "ask", f"Notch is not running (start it with `notch run`), so {agent.name} asks you"
            )
        except NotchTimeout:
            return no_answer
        except NotchRequestError as exc:
            return Verdict("ask", f"Notch refused the request: {exc.message}")
        except NotchError as exc:
            return Verdict("ask", f"{exc}; {agent.name} asks you")


def stopped_reply(agent_key: str) -> HookReply:
    """What a hook stopped by a signal answers: "ask" in `agent_key`'s format."""
    agent = AGENTS[agent_key]
    return agent.reply(
        Verdict("ask", f"notch hook was stopped before Notch answered, so {agent.name} asks you")
    )


def _left(until: float) -> float:
    """Seconds left until `until`; a little even when none is (one last short try)."""
    return max(_LAST_TRY_S, until - time.monotonic())
