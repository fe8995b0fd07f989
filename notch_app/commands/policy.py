"""`notch policy`: show or change "Asks first", Block and guards per action.

    notch policy list [--json]
    notch policy set INTEGRATION TOOL --asks-first on|off
    notch policy set INTEGRATION TOOL --block
    notch policy set INTEGRATION TOOL --refuse [--over ARG N | --not-one-of ARG V1,V2 | --clear]
    notch policy reset INTEGRATION [TOOL]
    notch policy guard INTEGRATION TOOL --over ARG N | --not-one-of ARG V1,V2 | --clear
    notch policy asker-grace [SECONDS]

Every subcommand takes `--data-dir DIR` (default: $NOTCH_DATA_DIR, else the user data
dir) and `--manifests DIR` (repeatable; the bundled integrations and the person's
installed ones are always loaded). INTEGRATION is an id, a name, or a `notch mcp`
integration, attached or not yet: its folder, its bare server's `--name` ("files" is
`mcp.local.files`), or the whole `notch mcp ...` command line an MCP client runs. One not
loaded here can be blocked and guarded (its tool names and arguments are checked once it
attaches); Asks first off needs its card, so it is set from the card's "Always allow". Changes go to `notch-settings.json`; a running Notch
applies them at once. Exit 0 on success, 2 for an unknown integration, tool or argument,
a read-only tool, or bad usage, 1 when the settings file cannot be written.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from notch_app.commands.policy_actions import (
    Refusal,
    find_action,
    gateway_id,
    load_catalog,
    resolve_integration,
)

if TYPE_CHECKING:
    from notch_app.manifest.model import Manifest, Tool
    from notch_app.runtime.catalog import Catalog
    from notch_app.runtime.policy_book import Guard, PolicyBook

    # What `add_subparsers` returns: each `_add_…` adds its subcommand to it.
    _Subcommands: TypeAlias = argparse._SubParsersAction[argparse.ArgumentParser]


def configure(parser: argparse.ArgumentParser) -> None:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--data-dir",
        type=Path,
        metavar="DIR",
        help="where notch-settings.json lives (default: $NOTCH_DATA_DIR, else the user data dir)",
    )
    common.add_argument(
        "--manifests",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help="also load integrations from DIR (repeatable); the bundled ones and your "
        "installed ones are always loaded",
    )
    sub = parser.add_subparsers(dest="policy_command", metavar="ACTION", required=True)

    p = sub.add_parser("list", parents=[common], help="show every action's setting")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    _add_set(sub, common)
    _add_reset_and_guard(sub, common)
    _add_asker_grace(sub, common)


def _add_set(sub: _Subcommands, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("set", parents=[common], help="turn Asks first on or off, or block")
    p.add_argument("integration", metavar="INTEGRATION", help="integration id (or its name)")
    p.add_argument("tool", metavar="TOOL", help="tool name")
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument(
        "--asks-first",
        choices=["on", "off"],
        help="on: a card before every call; off: runs the moment the agent picks it",
    )
    which.add_argument("--block", action="store_true", help="never run it; the agent is told")
    which.add_argument(
        "--refuse",
        action="store_true",
        help="refuse it at once, no card, telling the agent why: always (as --block), or "
        'with --over / --not-one-of only past that threshold ("never pay over 5000")',
    )
    limit = p.add_mutually_exclusive_group()
    limit.add_argument(
        "--over",
        nargs=2,
        metavar=("ARG", "N"),
        help="with --refuse: refuse only when ARG is over the number N",
    )
    limit.add_argument(
        "--not-one-of",
        nargs=2,
        metavar=("ARG", "V1,V2"),
        help="with --refuse: refuse only when ARG (every item, for a list) is not one of these",
    )
    limit.add_argument(
        "--clear", action="store_true", help="with --refuse: remove its refuse-when rules"
    )


def _add_reset_and_guard(sub: _Subcommands, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("reset", parents=[common], help="back to the default (asks first)")
    p.add_argument("integration", metavar="INTEGRATION")
    p.add_argument("tool", metavar="TOOL", nargs="?", help="one tool (default: all of them)")

    p = sub.add_parser(
        "guard", parents=[common], help="ask anyway when an argument is over N or not allowed"
    )
    p.add_argument("integration", metavar="INTEGRATION")
    p.add_argument("tool", metavar="TOOL")
    which = p.add_mutually_exclusive_group(required=True)
    which.add_argument(
        "--over", nargs=2, metavar=("ARG", "N"), help="ask anyway when ARG is over the number N"
    )
    which.add_argument(
        "--not-one-of",
        nargs=2,
        metavar=("ARG", "V1,V2"),
        help="ask anyway when ARG (every item, for a list) is not one of the values",
    )
    which.add_argument("--clear", action="store_true", help="remove this action's guards")


def _add_asker_grace(sub: _Subcommands, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "asker-grace",
        parents=[common],
        help="how long an agent's cards wait for it after its connection closes",
    )
    p.add_argument(
        "seconds",
        metavar="SECONDS",
        type=float,
        nargs="?",
        help="1 to 3600 (default 10); without it, print the current value",
    )


def run(args: argparse.Namespace) -> int:
    from notch_app.runtime.policy_book import PolicyBook, PolicyRefused, PolicyWriteError

    book = PolicyBook.in_data_dir(args.data_dir)
    if book.problem:
        print(f"notch policy: {book.problem}", file=sys.stderr)
    try:
        catalog = load_catalog(args.manifests)
        command = args.policy_command
        if command == "asker-grace":
            return _asker_grace(book, args.seconds)
        if command == "list":
            return _list(book, catalog, as_json=args.json)
        if command == "reset":
            return _reset(book, catalog, args.integration, args.tool)
        if command == "set" and not args.refuse and (args.over or args.not_one_of or args.clear):
            raise Refusal(
                "--over, --not-one-of and --clear go with --refuse (a threshold past which "
                "the action is refused); to ask anyway past a threshold, use "
                "`notch policy guard`"
            )
        unloaded = gateway_id(catalog, args.integration)
        if unloaded is not None:
            return _by_name(book, unloaded, args.tool, args)
        manifest, tool = find_action(catalog, book, args.integration, args.tool)
        if command == "set":
            return _set(book, manifest, tool, args, _source(catalog, manifest))
        return _guard(book, manifest, tool, args)
    except (Refusal, PolicyRefused) as exc:
        print(f"notch policy: {exc}", file=sys.stderr)
        return 2
    except PolicyWriteError as exc:
        print(f"notch policy: {exc}", file=sys.stderr)
        return 1


def _by_name(
    book: PolicyBook, integration_id: str, tool_name: str, args: argparse.Namespace
) -> int:
    """Block or guard an action of a `notch mcp` integration not loaded here (a bare
    server's, before it attaches): kept under its id, applied when it attaches."""
    from notch_app.runtime.policy_book import NotOneOfGuard, OverGuard

    later = (
        f"{integration_id} is not loaded here (a notch mcp server, attached or not yet): "
        f"this applies to its tool {tool_name!r} from the moment it attaches — check the "
        "tool's name, nothing here can"
    )
    if (
        args.policy_command == "set"
        and args.refuse
        and not args.clear
        and (args.over is not None or args.not_one_of is not None)
    ):
        refusal = _threshold(args)
        book.add_refusal_by_name(integration_id, tool_name, refusal)
        print(f"{tool_name} ({integration_id}): {_refuses_line(refusal)}")
        print(f"({later})", file=sys.stderr)
        return 0
    if args.policy_command == "set" and args.refuse and args.clear:
        book.clear_refusals_by_name(integration_id, tool_name)
        print(f"{tool_name} ({integration_id}): no refuse-when rules.")
        return 0
    if args.policy_command == "set":
        if args.asks_first == "off":
            raise Refusal(
                f"{later}. Asks first off needs the card the person agrees to: turn it off "
                "with “Always allow” on its card, or load its folder with --manifests DIR"
            )
        if args.block or args.refuse:
            book.block_by_name(integration_id, tool_name)
        else:  # on: back to asking first, unblocked; its guards stay
            book.block_by_name(integration_id, tool_name, blocked=False, asks_first=True)
        if args.block or args.refuse:
            print(f"{tool_name} ({integration_id}): blocked — it never runs; the agent is told.")
        else:
            print(f"{tool_name} ({integration_id}): asks first — a card before every call.")
        print(f"({later})", file=sys.stderr)
        return 0
    if args.clear:
        book.set_guards_by_name(integration_id, tool_name, [])
        print(f"{tool_name} ({integration_id}): no guards.")
        return 0
    guard: Guard
    if args.over is not None:
        argument, raw = args.over
        try:
            limit = float(raw.replace(",", ""))
        except ValueError:
            raise Refusal(f"--over {argument} {raw}: {raw!r} is not a number") from None
        if not math.isfinite(limit):
            raise Refusal(f"--over {argument} {raw}: the limit must be a finite number")
        number: int | float = int(limit) if limit.is_integer() and abs(limit) < 1e15 else limit
        guard = _checked(f"--over {argument}", lambda: OverGuard(argument=argument, limit=number))
    else:
        argument, raw = args.not_one_of
        allowed = [v.strip() for v in raw.split(",") if v.strip()]
        if not allowed:
            raise Refusal(f"--not-one-of {argument}: give at least one value, e.g. a,b")
        guard = _checked(
            f"--not-one-of {argument}", lambda: NotOneOfGuard(argument=argument, allowed=allowed)
        )
    book.add_guard_by_name(integration_id, tool_name, guard)
    print(f"{tool_name} ({integration_id}): asks anyway when {guard.describe()}.")
    print(f"({later})", file=sys.stderr)
    return 0


def _guard_json(guard: Guard) -> dict[str, Any]:
    return guard.model_dump(mode="json", by_alias=True)


def _describe_state(book: PolicyBook, manifest: Manifest, tool: Tool) -> str:
    state = book.state(manifest, tool)
    text = state.label
    if state.guards:
        text += " · asks anyway when " + "; ".join(g.describe() for g in state.guards)
    if state.refusals:
        text += " · refuses when " + "; ".join(r.describe() for r in state.refusals)
    return text


def _list(book: PolicyBook, catalog: Catalog, *, as_json: bool) -> int:
    from notch_app.manifest.facts import tool_facts
    from notch_app.runtime.policy_book import has_policy

    actions: list[dict[str, Any]] = []
    read_only: list[dict[str, Any]] = []
    lines: list[str] = []
    for iid in catalog.ids():
        manifest = catalog.integration(iid)
        assert manifest is not None
        lines.append(f"{manifest.name} ({manifest.id})")
        quiet: list[str] = []
        for tool in manifest.tools:
            if not has_policy(tool):
                if not tool_facts(tool).own_acting.asks:
                    quiet.append(tool.name)
                    read_only.append({"integration": iid, "tool": tool.name})
                continue
            state = book.state(manifest, tool)
            actions.append(
                {
                    "integration": iid,
                    "tool": tool.name,
                    "title": tool.display_title,
                    "policy": "blocked"
                    if state.blocked
                    else ("asksFirst" if state.asks_first else "off"),
                    "default": "asksFirst",
                    "cardChanged": state.card_changed,
                    "guards": [_guard_json(g) for g in state.guards],
                    "refusals": [_guard_json(r) for r in state.refusals],
                    "loaded": True,
                }
            )
            lines.append(
                f"  {tool.name:<22} {tool.display_title[:28]:<28} "
                f"{_describe_state(book, manifest, tool)}"
            )
        if quiet:
            lines.append(f"  never asks (read-only): {', '.join(quiet)}")
    stale = [(i, t, p) for i, t, p in book.entries() if catalog.tool(i, t) is None]
    if stale:
        lines.append("Kept for integrations or tools not loaded now:")
    for iid, name, entry in stale:
        label = "blocked" if entry.blocked else ("asks first" if entry.asks_first else "off")
        lines.append(f"  {iid} {name}: {label}")
        actions.append(
            {
                "integration": iid,
                "tool": name,
                "title": None,
                "policy": "blocked"
                if entry.blocked
                else ("asksFirst" if entry.asks_first else "off"),
                "default": "asksFirst",
                "cardChanged": False,
                "guards": [_guard_json(g) for g in entry.guards],
                "refusals": [_guard_json(r) for r in entry.refusals],
                "loaded": False,
            }
        )
    if as_json:
        out = {
            "settingsFile": str(book.path),
            "problem": book.problem,
            "glance": book.overlay.glance,
            "actions": actions,
            "readOnly": read_only,
        }
        print(json.dumps(out, indent=2, ensure_ascii=False))
    else:
        print("\n".join(lines) if lines else "No integrations are loaded.")
        print(f"(settings: {book.path})", file=sys.stderr)
    return 0


def _asker_grace(book: PolicyBook, seconds: float | None) -> int:
    if seconds is not None:
        book.set_asker_grace(seconds)
    grace = book.agents.asker_grace_seconds
    print(
        f"An agent's open cards wait {grace:g} s for it after its last connection closes, "
        "then are withdrawn."
    )
    return 0


def _source(catalog: Catalog, manifest: Manifest) -> str | None:
    """Where `manifest` was loaded from here: an "off" is kept for that source only."""
    from notch_app.runtime.policy_book.fingerprint import integration_source

    return integration_source(catalog.entry(manifest.id), manifest)


def _set(
    book: PolicyBook,
    manifest: Manifest,
    tool: Tool,
    args: argparse.Namespace,
    source: str | None = None,
) -> int:
    if args.refuse and args.clear:
        book.set_refusals(manifest, tool, [])
        print(f"{tool.name} ({manifest.name}): no refuse-when rules.")
    elif args.refuse and (args.over is not None or args.not_one_of is not None):
        refusal = _threshold(args)
        book.add_refusal(manifest, tool, refusal)
        print(f"{tool.name} ({manifest.name}): {_refuses_line(refusal)}")
    elif args.block or args.refuse:
        book.block(manifest, tool)
        print(f"{tool.name} ({manifest.name}): blocked — it never runs; the agent is told.")
    else:
        on = args.asks_first == "on"
        book.set_asks_first(manifest, tool, on, source)
        if on:
            print(f"{tool.name} ({manifest.name}): asks first — a card before every call.")
        else:
            print(
                f"{tool.name} ({manifest.name}): Asks first off — it runs the moment the "
                "agent picks it (guards still ask)."
            )
    return 0


def _reset(book: PolicyBook, catalog: Catalog, integration: str, tool: str | None) -> int:
    stored = {i for i, _, _ in book.entries()}
    if catalog.integration(integration) is None and integration in stored:
        manifest_id = integration  # not loaded now, but its old choices can still be cleared
    else:
        manifest = resolve_integration(catalog, integration)
        manifest_id = manifest.id
        if (
            tool is not None
            and manifest.tool(tool) is None
            and book.stored(manifest_id, tool) is None
        ):
            find_action(catalog, book, manifest_id, tool)  # raises with a suggestion
    removed = book.reset(manifest_id, tool)
    what = f"{tool} in {manifest_id}" if tool else f"every action of {manifest_id}"
    print(f"{what}: {'back to' if removed else 'already'} the default — asks first.")
    return 0


def _guard(book: PolicyBook, manifest: Manifest, tool: Tool, args: argparse.Namespace) -> int:
    from notch_app.runtime.policy_book import NotOneOfGuard, OverGuard

    if args.clear:
        book.set_guards(manifest, tool, [])
        print(f"{tool.name} ({manifest.name}): no guards.")
        return 0
    guard: Guard
    if args.over is not None:
        argument, raw = args.over
        try:
            limit = float(raw.replace(",", ""))
        except ValueError:
            raise Refusal(f"--over {argument} {raw}: {raw!r} is not a number") from None
        if not math.isfinite(limit):
            raise Refusal(f"--over {argument} {raw}: the limit must be a finite number")
        number: int | float = int(limit) if limit.is_integer() and abs(limit) < 1e15 else limit
        guard = _checked(f"--over {argument}", lambda: OverGuard(argument=argument, limit=number))
    else:
        argument, raw = args.not_one_of
        allowed = [v.strip() for v in raw.split(",") if v.strip()]
        if not allowed:
            raise Refusal(f"--not-one-of {argument}: give at least one value, e.g. a,b")
        guard = _checked(
            f"--not-one-of {argument}",
            lambda: NotOneOfGuard(argument=argument, allowed=allowed),
        )
    book.add_guard(manifest, tool, guard)
    print(f"{tool.name} ({manifest.name}): asks anyway when {guard.describe()}.")
    state = book.state(manifest, tool)
    if state.asks_first and not state.blocked:
        print("(Asks first is on, so the card shows anyway; guards matter once it is off.)")
    return 0


def _threshold(args: argparse.Namespace) -> Guard:
    """The refuse-when rule `--refuse --over ARG N` / `--refuse --not-one-of ARG V1,V2`
    describes. Raises Refusal for a limit that is not a number, or no values."""
    from notch_app.runtime.policy_book import NotOneOfGuard, OverGuard

    if args.over is not None:
        argument, raw = args.over
        try:
            limit = float(raw.replace(",", ""))
        except ValueError:
            raise Refusal(f"--over {argument} {raw}: {raw!r} is not a number") from None
        if not math.isfinite(limit):
            raise Refusal(f"--over {argument} {raw}: the limit must be a finite number")
        number: int | float = int(limit) if limit.is_integer() and abs(limit) < 1e15 else limit
        return _checked(f"--over {argument}", lambda: OverGuard(argument=argument, limit=number))
    argument, raw = args.not_one_of
    allowed = [v.strip() for v in raw.split(",") if v.strip()]
    if not allowed:
        raise Refusal(f"--not-one-of {argument}: give at least one value, e.g. a,b")
    return _checked(
        f"--not-one-of {argument}", lambda: NotOneOfGuard(argument=argument, allowed=allowed)
    )


def _refuses_line(refusal: Guard) -> str:
    from notch_app.runtime.policy_book.guards import rule_text

    rule = rule_text(refusal)
    return (
        f"refuses when {rule} — no card; the agent is told at once what you do not "
        "allow, and you see a one-line note."
    )


def _checked(option: str, build: Callable[[], Guard]) -> Guard:
    from pydantic import ValidationError

    try:
        return build()
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise Refusal(f"{option}: {where}: {first['msg']}") from None
