"""The `notch` command.

Each subcommand lives in `notch_app/commands/<name>.py` with `configure(parser)` and
`run(args) -> int`. Modules are imported only for the subcommand being run, and none of
them imports Qt at module level, so `notch validate` works without a display.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
from collections.abc import Sequence

from notch_app import __version__

# name -> one-line help; the module is notch_app.commands.<name>
COMMANDS: dict[str, str] = {
    "validate": "check manifests and preview fixtures (file:line:column: error[rule]: message)",
    "schema": "write or check the published JSON Schemas in schemas/",
    "render": "render one tool's confirmation card to a PNG",
    "preview": "the author's studio: every card of an integration folder, live as you edit it",
    "test": "run confirmation scenarios headless through the real widgets",
    "run": "start the overlay and the confirmation service",
    "ask": "ask a running Notch to confirm one tool call; prints the decision as JSON",
    "demo": "start the overlay and play a short scripted agent",
    "log": "list past decisions",
    "policy": "show or change 'Asks first' per action",
    "phone": "answer from your phone: pair one (a QR code), list or unpair them, turn it on or off",
    "settings": "open the Settings window (integrations, Asks first, Block, guards)",
    "mcp": "put Notch in front of an MCP server: acting tools ask the person first",
    "secrets": "keep, clear or list an integration's API keys in the OS keyring",
    "hear": "print how Notch takes each reply (yes, no, revise or unclear), one per line",
    "glance": "check a tool result's glance card: which blocks would show, and why not",
    "hook": "answer a coding agent's permission hook (Claude Code, Codex) through Notch",
    "init": "make a new integration folder that validates, tests and runs as it is",
    "install": "start Notch when you log in, and put it in your app launcher",
    "uninstall": "remove exactly what `notch install` wrote",
    "doctor": "say what works on this desktop (placement, keys, keyring, audio…) and how to fix the rest",
}


def _available() -> dict[str, str]:
    out = {}
    for name, help_text in COMMANDS.items():
        if importlib.util.find_spec(f"notch_app.commands.{name}") is not None:
            out[name] = help_text
    return out


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser for every command, or, with `only`, for that command alone: an agent
    starts `notch mcp` and `notch hook` at every session or call, so they set up nothing
    they do not use."""
    parser = argparse.ArgumentParser(
        prog="notch",
        description="Notch asks the person before an AI agent acts for them.",
    )
    parser.add_argument("--version", action="version", version=f"notch {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    if only in COMMANDS and importlib.util.find_spec(f"notch_app.commands.{only}") is not None:
        commands = {only: COMMANDS[only]}
    else:
        commands, only = _available(), None
    for name, help_text in commands.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        if only is None or only == name:
            module = importlib.import_module(f"notch_app.commands.{name}")
            module.configure(p)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    wanted = next((a for a in args_list if not a.startswith("-")), None)
    parser = build_parser(only=wanted if wanted in COMMANDS else None)
    try:
        args = parser.parse_args(args_list)
    except SystemExit as exc:  # argparse: 2 for usage errors, 0 for --help
        return int(exc.code or 0)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    module = importlib.import_module(f"notch_app.commands.{args.command}")
    try:
        return int(module.run(args))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
