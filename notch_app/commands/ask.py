"""`notch ask`: one confirmation request to a running Notch, for any language to shell out to.

Prints the decision as JSON on stdout. Exit 0 when the tool may run (approved,
notRequired, autoApproved), 1 when it must not (declined, superseded, withdrawn, expired,
blocked), 2 for errors (message on stderr, nothing on stdout). Errors include a server
that is not this user's own Notch (checked before anything is sent) and a decision that
says "run" without the digest of its arguments: the client refuses both (`NotchUntrusted`,
`NotchDecisionRefused`), so nothing a script could run is ever printed for them.

A request belongs to the token it was made with (see ownership.py). Each run makes a
fresh one unless `NOTCH_TOKEN` holds yours: a script that may crash mid-wait keeps one
secret (22+ visible ASCII characters) with its state and sets it for every run, so
running `notch ask --call-id X` again after its crash picks up X's card or its decision
(with a fresh token that is refused: exit 2, naming NOTCH_TOKEN).

The callId comes from `--call-id`, else `NOTCH_CALL_ID`, else a fresh UUID. Give it the
model's tool-call id: a retry of the same call (a crashed script run again, an agent
replaying its turn) then finds the same request or its stored decision, so one call is
never asked twice nor run twice. With `--timeout`, a wait that runs out withdraws the
request (its card goes away) and prints the withdrawn decision (exit 1); the timeout
bounds the whole wait, connecting included, and the withdraw has one second more, so a
Notch that accepts and never answers keeps it at most `--timeout` + 1 s (then exit 2,
"withdraw it yourself"). SIGTERM or SIGHUP stops the wait within a second the same way:
the request is withdrawn and the run exits 1 (it must not run).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from notch_app.ipc.client import AsyncNotchClient

EXIT_RUNS = 0
EXIT_DOES_NOT_RUN = 1
EXIT_ERROR = 2
_MAX_ARGS_FILE = 1024 * 1024
TOKEN_ENV = "NOTCH_TOKEN"
"""The environment variable holding the token a run's request is made with."""
CALL_ID_ENV = "NOTCH_CALL_ID"
"""The environment variable holding the callId when `--call-id` is not given."""
STOP_WITHDRAW_S = 0.3
"""After SIGTERM / SIGHUP, how long the withdraw may take before the run exits anyway
(Notch also withdraws a request whose asker's connection went)."""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--integration", required=True, metavar="ID", help="integration id")
    parser.add_argument("--tool", required=True, metavar="NAME", help="tool name")
    parser.add_argument(
        "--args",
        default="{}",
        metavar="JSON",
        help="the tool call's arguments as a JSON object, or @FILE to read them (@- for stdin)",
    )
    parser.add_argument(
        "--call-id",
        metavar="ID",
        help=f"your tool-call id (default: ${CALL_ID_ENV}, else a new UUID); a stable id "
        f"means a retry never asks or runs twice. To pick it up again in a later run, set "
        f"{TOKEN_ENV} to the same secret for both",
    )
    parser.add_argument("--supersedes", metavar="ID", help="replace the open card with this callId")
    parser.add_argument(
        "--expires-in", type=float, metavar="SECONDS", help="end it `expired` if undecided by then"
    )
    parser.add_argument(
        "--timeout",
        type=float,
        metavar="SECONDS",
        help="stop waiting after this long: the request is withdrawn and its decision printed",
    )
    parser.add_argument("--agent", metavar="NAME", help="who is asking, shown on the card")
    parser.add_argument("--socket", type=Path, metavar="PATH", help="Notch's socket")


def _load_arguments(text: str) -> dict[str, Any]:
    source = "--args"
    if text.startswith("@"):
        name = text[1:]
        source = "stdin" if name == "-" else name
        try:
            if name == "-":
                text = sys.stdin.read(_MAX_ARGS_FILE + 1)
            else:
                with open(name, encoding="utf-8") as handle:
                    text = handle.read(_MAX_ARGS_FILE + 1)
        except OSError as exc:
            raise ValueError(f"{name}: cannot read the arguments file ({exc.strerror})") from None
        if len(text) > _MAX_ARGS_FILE:
            raise ValueError(f"{source}: arguments are larger than 1 MiB")
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise ValueError(
            f'{source}: not valid JSON ({exc}); pass an object like \'{{"to": "sam"}}\''
        ) from None
    if not isinstance(value, dict):
        raise ValueError(f"{source}: the arguments must be a JSON object {{...}}")
    return value


async def _ask(args: argparse.Namespace, arguments: dict[str, Any], token: str | None) -> int:
    import asyncio

    from notch_app.ipc.client import AsyncNotchClient

    # No connect before the call: connecting is part of the wait `--timeout` bounds.
    client = AsyncNotchClient(args.socket, token=token)
    loop = asyncio.get_running_loop()
    asking = asyncio.ensure_future(_confirm(client, args, arguments))
    signals = [s for s in (signal.SIGTERM, getattr(signal, "SIGHUP", None)) if s is not None]
    for number in signals:
        loop.add_signal_handler(number, asking.cancel)
    try:
        return await asking
    except asyncio.CancelledError:
        if not asking.cancelled():
            raise
        return await _stopped(client, args.call_id)
    finally:
        for number in signals:
            loop.remove_signal_handler(number)
        await client.close()


async def _confirm(
    client: AsyncNotchClient, args: argparse.Namespace, arguments: dict[str, Any]
) -> int:
    from notch_app.ipc.client import NotchTimeout

    try:
        decision = await client.confirm(
            args.integration,
            args.tool,
            arguments,
            call_id=args.call_id,
            supersedes=args.supersedes,
            expires_in=args.expires_in,
            context={"agent": args.agent} if args.agent else None,
            timeout=args.timeout,
        )
    except NotchTimeout as exc:
        if exc.decision is None:  # the withdraw itself could not be confirmed
            print(f"notch ask: {exc}", file=sys.stderr)
            return EXIT_ERROR
        decision = exc.decision
    print(json.dumps(decision.to_wire(), ensure_ascii=False, indent=2))
    return EXIT_RUNS if decision.runs else EXIT_DOES_NOT_RUN


async def _stopped(client: AsyncNotchClient, call_id: str) -> int:
    """SIGTERM / SIGHUP mid-wait: withdraw the request (within STOP_WITHDRAW_S) and exit
    EXIT_DOES_NOT_RUN, printing the decision it ended with when it does not run. One
    that came first and says run is not printed: this run stopped, so nothing runs it."""
    from notch_app.ipc.client import NotchError

    try:
        ended = await client.withdraw(call_id, timeout=STOP_WITHDRAW_S)
    except NotchError as exc:
        print(f"notch ask: stopped by a signal; withdrawing {call_id!r} failed ({exc})",
              file=sys.stderr)  # fmt: skip
        return EXIT_DOES_NOT_RUN
    if ended.runs:
        print(f"notch ask: stopped by a signal after {call_id!r} was approved; it must "
              "not run, since nothing is waiting to run it", file=sys.stderr)  # fmt: skip
    else:
        print(json.dumps(ended.to_wire(), ensure_ascii=False, indent=2))
        print(f"notch ask: stopped by a signal; {call_id!r} was withdrawn", file=sys.stderr)
    return EXIT_DOES_NOT_RUN


def run(args: argparse.Namespace) -> int:
    import asyncio  # here, not at the top: `notch ask --help` starts without it
    import uuid

    from notch_app.ipc import protocol as rpc
    from notch_app.ipc.client import NotchError, NotchRequestError
    from notch_app.runtime.ownership import token_problem

    try:
        arguments = _load_arguments(args.args)
    except ValueError as exc:
        print(f"notch ask: {exc}", file=sys.stderr)
        return EXIT_ERROR
    token = os.environ.get(TOKEN_ENV) or None
    problem = None if token is None else token_problem(token)
    if problem is not None:
        print(f"notch ask: {TOKEN_ENV}: a token {problem}", file=sys.stderr)
        return EXIT_ERROR
    if args.call_id is None:
        args.call_id = os.environ.get(CALL_ID_ENV) or None
    if args.call_id is None:
        args.call_id = uuid.uuid4().hex  # to withdraw it when the wait ends or is stopped
    try:
        return asyncio.run(_ask(args, arguments, token))
    except NotchRequestError as exc:
        hint = ""
        if exc.code == rpc.NOT_YOURS:
            hint = f" (set {TOKEN_ENV} to the token of the run that made it)"
        print(f"notch ask: {exc}{hint}", file=sys.stderr)
        return EXIT_ERROR
    except NotchError as exc:
        print(f"notch ask: {exc}", file=sys.stderr)
        return EXIT_ERROR
