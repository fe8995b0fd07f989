"""`notch hook AGENT`: answer a coding agent's permission hook through Notch.

The agent runs it with the pending tool call as JSON on stdin; it shows the call on a
card in the running Notch and prints the agent's decision JSON on stdout, always exit 0
(the agents read JSON only then). Claude Code: configure it as a `PreToolUse` command
hook, and as a `SessionEnd` one so that "Allow for this session" ends with the session
(`hooks/session_end.py`); Codex: as a `PermissionRequest` command hook. When Notch is
not running, or cannot answer, the agent's own prompt asks instead (never a silent allow). `--timeout` bounds
the whole wait, a Notch that accepts and never answers included: the card is withdrawn
(within a second more) and the agent asks. SIGTERM or SIGHUP ends it within a second
the same way. See README, "Coding agents", and `notch_app/hooks/`.
"""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from notch_app.hooks.answers import HookReply

_MAX_STDIN = 4 * 1024 * 1024 + 1
_STOP_WITHDRAW_S = 0.3
"""After a signal, how long the hook tries to withdraw its card before it exits (the
agent waits for the process to end; Notch also withdraws it when the connection goes)."""


class _Stopped(BaseException):
    """The agent stopped waiting (SIGTERM / SIGHUP): answer "ask", withdraw the card and
    leave, within a second."""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "agent",
        choices=("claude-code", "codex"),
        help="whose hook: claude-code (PreToolUse, and SessionEnd) or codex (PermissionRequest)",
    )
    parser.add_argument("--socket", type=Path, metavar="PATH", help="Notch's socket")
    parser.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="withdraw the card and let the agent ask after this long (default 590, just "
        "under the agents' 600 s hook limit; keep it under your hook's `timeout`)",
    )


def _stop(signum: int, frame: FrameType | None) -> None:
    raise _Stopped


def _signals(handler: Any) -> None:
    for number in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if number is not None:
            signal.signal(number, handler)


def _write(reply: HookReply) -> int:
    sys.stdout.write(reply.stdout)
    sys.stdout.flush()
    if reply.stderr:
        sys.stderr.write(reply.stderr)
        sys.stderr.flush()
    return reply.exit_code


def run(args: argparse.Namespace) -> int:
    from notch_app.hooks.asking import DEFAULT_TIMEOUT_S, HookRun, stopped_reply

    hook: HookRun | None = None
    _signals(_stop)  # before the read: a hook stopped at any point still answers
    try:
        data = sys.stdin.buffer.read(_MAX_STDIN)
        if args.agent == "claude-code":
            from notch_app.hooks.session_end import end_session, session_ended

            session = session_ended(data)
            if session is not None:  # SessionEnd: its "for this session" allowances end
                _signals(signal.SIG_DFL)
                return _write(end_session(session, args.socket))
        hook = HookRun(
            args.agent,
            data,
            socket_path=args.socket,
            timeout=args.timeout if args.timeout is not None else DEFAULT_TIMEOUT_S,
        )
        reply = hook.answer()
    except _Stopped:
        # The safe answer first (the agent may be reading still), then the card goes.
        # A second signal now ends the process at once: it is never ignored.
        _signals(signal.SIG_DFL)
        code = _write(stopped_reply(args.agent))
        if hook is not None:
            hook.withdraw(within=_STOP_WITHDRAW_S)
        return code
    _signals(signal.SIG_DFL)
    return _write(reply)
