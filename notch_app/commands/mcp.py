"""`notch mcp`: put Notch in front of an MCP server (an MCP server itself, on stdio).

    notch mcp FOLDER                        an integration folder (manifest + runtime)
    notch mcp --name NAME -- COMMAND ARGS   a bare MCP server with no manifest

An MCP client starts this instead of the server. Read-only tools are forwarded at once;
acting tools ask the person through the running `notch run` and run with the arguments
they approved, at most once per request id. An acting call waits `--timeout` seconds for
the person at most (then its card is withdrawn and the call fails); a Notch that accepts
and never answers holds no call longer. stdout carries only MCP messages; everything
Notch says goes to stderr.
Exit 2 (message on stderr) for a folder or command that cannot be fronted.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "target",
        nargs="*",
        metavar="FOLDER | -- COMMAND ARGS",
        help="the integration folder; with --name, the bare server's command after --",
    )
    parser.add_argument(
        "--name",
        metavar="NAME",
        help="front a bare MCP server (no manifest): every tool not marked readOnlyHint "
        "asks with a card Notch generates",
    )
    parser.add_argument(
        "--socket",
        metavar="PATH",
        type=Path,
        default=None,
        help="the running Notch's socket (default: $NOTCH_SOCKET, else the usual place)",
    )
    parser.add_argument(
        "--data-dir",
        metavar="DIR",
        type=Path,
        default=None,
        help="where your settings (preference values) are (default: $NOTCH_DATA_DIR, "
        "else the platform's app-data folder)",
    )
    parser.add_argument(
        "--timeout",
        metavar="SECONDS",
        type=float,
        default=None,
        help="how long an acting call waits for the person before its card is withdrawn "
        "and the call fails (default 590)",
    )
    parser.add_argument(
        "--progress-every",
        metavar="SECONDS",
        type=float,
        default=None,
        help="while a card waits, tell the client every SECONDS that the call is waiting "
        "for the person (notifications/progress, when the client asked for progress; "
        "default 10)",
    )
    parser.epilog = (
        "In an MCP client's config: "
        '{"command": "notch", "args": ["mcp", "/path/to/integration"]}. '
        "docs/gateway.md explains the gateway."
    )


def run(args: argparse.Namespace) -> int:
    from notch_app.gateway import launch
    from notch_app.gateway.launch import DEFAULT_TIMEOUT_S, PROGRESS_EVERY_S

    timeout = DEFAULT_TIMEOUT_S if args.timeout is None else args.timeout
    if not 0 < timeout < math.inf:
        print(f"notch mcp: --timeout must be a number of seconds above 0, not {timeout:g}",
              file=sys.stderr)  # fmt: skip
        return 2
    every = PROGRESS_EVERY_S if args.progress_every is None else args.progress_every
    if not 0 < every < math.inf:
        print(f"notch mcp: --progress-every must be a number of seconds above 0, not "
              f"{every:g}", file=sys.stderr)  # fmt: skip
        return 2
    if args.name is None and len(args.target) != 1:
        print("notch mcp: give one integration folder, or --name NAME -- COMMAND ARGS",
              file=sys.stderr)  # fmt: skip
        return 2
    import os

    # The server starts first (its own start is most of a client's wait), and the gateway
    # relays the client's first messages while the rest loads and the folder is checked
    # as `notch run` checks it (gateway/launch.py, gateway/fronts.py).
    if args.name is not None:
        early = launch.early_bare_server(list(args.target), dict(os.environ))
    else:
        early = launch.early_folder_server(Path(args.target[0]), args.data_dir)

    import logging  # after the start, as everything below

    from notch_app.gateway import fronts
    from notch_app.gateway.gateway import Front, Gateway

    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="notch mcp: %(message)s")
    name, argv = args.name, list(args.target)

    def checked() -> Front:
        if name is not None:
            return fronts.bare_front(name, argv)
        return fronts.folder_front(Path(argv[0]), launch.settings_in(args.data_dir))

    if early is not None:
        gateway = Gateway(
            fronts.early_front(early, name, argv), args.socket, timeout, progress_every=every,
            checking=checked,
        )  # fmt: skip
        gateway.wrapped.adopt(early.process)
    else:  # nothing could start early: check first, and say what is wrong
        try:
            front = checked()
        except fronts.FrontError as exc:
            print(f"notch mcp: {exc}", file=sys.stderr)
            return 2
        gateway = Gateway(front, args.socket, timeout, progress_every=every)
    import asyncio

    asyncio.run(gateway.serve_stdio())
    return 0 if gateway.refused is None else 2
