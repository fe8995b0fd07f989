"""`notch hook AGENT`: answer a coding agent's permission hook through Notch.

The agent runs it with the pending tool call as JSON on stdin; it shows the call on a
card in the running Notch and prints the agent's decision JSON on stdout, always exit 0
(the agents read JSON only then). Claude Code: configure it as a `PreToolUse` command
hook; Codex: as a `PermissionRequest` command hook. When Notch is not running, or cannot
answer, the agent's own prompt asks instead (never a silent allow). See README,
"Coding agents", and `notch_app/hooks/`.
"""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path
from types import FrameType

_MAX_STDIN = 4 * 1024 * 1024 + 1


class _Stopped(BaseException):
    """The agent stopped waiting (SIGTERM / SIGHUP): withdraw the card and leave."""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "agent",
        choices=("claude-code", "codex"),
        help="whose hook: claude-code (PreToolUse) or codex (PermissionRequest)",
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


def run(args: argparse.Namespace) -> int:
    from notch_app.hooks.asking import DEFAULT_TIMEOUT_S, answer, withdraw_on_exit

    data = sys.stdin.buffer.read(_MAX_STDIN)
    for number in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if number is not None:
            signal.signal(number, _stop)
    try:
        reply = answer(
            args.agent,
            data,
            socket_path=args.socket,
            timeout=args.timeout if args.timeout is not None else DEFAULT_TIMEOUT_S,
        )
    except _Stopped:
        withdraw_on_exit(args.agent, data, args.socket)
        return 1  # the agent has stopped reading; exit 1 is "non-blocking error" to both
    sys.stdout.write(reply.stdout)
    sys.stdout.flush()
    if reply.stderr:
        sys.stderr.write(reply.stderr)
    return reply.exit_code
