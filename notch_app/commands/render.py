"""`notch render MANIFEST_OR_FOLDER --tool NAME [--args JSON | --args @FILE | --fixture]
-o OUT.png [--theme dark|light] [--width PX] [--screen]`: one card, offscreen, to PNG.

The whole card is drawn, however tall; `--screen` draws it as the screen crops it (the
body folded at the screen's height, with its "More below" pill).

`notch render --glance RESULT.json -o OUT.png [--theme dark|light] [--width PX]`: the
glance a tool's result carries, as the notch shows it. RESULT.json is read as `notch
glance check` reads it (the result's top level, an MCP result's structuredContent or JSON
text content, a JSON-RPC response around one); each block that would be dropped is named
on stderr with the same sentence, and the exit is 1 when nothing would show."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from notch_app.manifest.integration import Integration
    from notch_app.manifest.model import Manifest, Tool


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("manifest", type=Path, nargs="?", metavar="MANIFEST_OR_FOLDER")
    parser.add_argument(
        "--tool",
        metavar="NAME",
        help="the tool whose card to draw (a tool that asks without declaring a card is "
        "drawn with the card Notch generates from its inputSchema)",
    )
    parser.add_argument(
        "--generated",
        action="store_true",
        help="draw the card Notch would generate from the tool's inputSchema, even when "
        "the tool declares its own",
    )
    source = parser.add_mutually_exclusive_group()
    source.add_argument(
        "--args",
        metavar="JSON|@FILE",
        help="the proposed arguments as JSON, or @FILE to read them from a file",
    )
    source.add_argument(
        "--fixture",
        action="store_true",
        help="take the arguments from the integration's preview fixture (preview.json)",
    )
    parser.add_argument(
        "--glance",
        type=Path,
        metavar="RESULT.json",
        help="draw the glance a tool's result carries (_voiceos_glance) instead of a card; "
        "blocks that would be dropped are named on stderr",
    )
    parser.add_argument("-o", "--output", type=Path, required=True, metavar="OUT.png")
    parser.add_argument("--theme", choices=("dark", "light"), default="dark")
    parser.add_argument(
        "--width", type=int, default=440, metavar="PX", help="card width (280–1200)"
    )
    parser.add_argument(
        "--screen",
        action="store_true",
        help="draw the card as the screen shows it: its compact first view, the body "
        "folded past 70%% of the screen's height, with 'More below' (default: the whole "
        "card, Details open)",
    )
    parser.add_argument(
        "--screen-size",
        metavar="WxH",
        default=None,
        help="with --screen: the screen to draw it for, e.g. 1280x720 (default: this one)",
    )


def _fail(message: str) -> int:
    print(f"notch render: {message}", file=sys.stderr)
    return 2


def parse_arguments_text(text: str, origin: str) -> tuple[dict[str, Any] | None, str | None]:
    """Arguments JSON → (object, None) or (None, an error naming line and column)."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, f"{origin}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}"
    except (ValueError, RecursionError) as exc:
        return None, f"{origin}: cannot read the JSON: {exc}"
    if not isinstance(value, dict):
        return None, f"{origin}: the arguments must be a JSON object ({{...}})"
    return value, None


class _Refused(Exception):
    """A command line that cannot be drawn; the message says why and what to do."""


def run(args: argparse.Namespace) -> int:
    try:
        if not 280 <= args.width <= 1200:
            raise _Refused(f"--width {args.width} is out of range: use 280 to 1200 pixels")
        screen_height = _screen_height(args)
        if args.glance is not None:
            _only_glance_flags(args)
            return _render_glance(args.glance, args.output, args.theme, args.width)
        integration, manifest, tool = _card_tool(args)
        arguments = _card_arguments(args, integration, tool)
    except _Refused as exc:
        return _fail(str(exc))
    return _render_card(args, integration, manifest, tool, arguments, screen_height)


def _screen_height(args: argparse.Namespace) -> int | None:
    """The screen height `--screen-size` names, or None. Raises _Refused."""
    if args.screen_size is None:
        return None
    w, sep, h = str(args.screen_size).lower().partition("x")
    if not (sep and w.isdigit() and h.isdigit() and 320 <= int(h) <= 10000):
        raise _Refused(
            f"--screen-size {args.screen_size!r} is not a screen size: write it as "
            "WIDTHxHEIGHT in pixels, e.g. --screen-size 1280x720"
        )
    if not args.screen:
        raise _Refused("--screen-size is for --screen: add --screen, or leave it out")
    return int(h)


def _only_glance_flags(args: argparse.Namespace) -> None:
    """Raises _Refused when a flag for a card came with --glance."""
    card_only = [
        flag
        for flag, given in (
            ("MANIFEST_OR_FOLDER", args.manifest is not None),
            ("--tool", args.tool is not None),
            ("--args", args.args is not None),
            ("--fixture", args.fixture),
            ("--generated", args.generated),
            ("--screen", args.screen),
        )
        if given
    ]
    if card_only:
        raise _Refused(
            f"--glance draws a tool result's glance; {', '.join(card_only)} "
            f"{'is' if len(card_only) == 1 else 'are'} for a card: leave "
            f"{'it' if len(card_only) == 1 else 'them'} out, or drop --glance"
        )


def _card_tool(args: argparse.Namespace) -> tuple[Integration, Manifest, Tool]:
    """The integration, its manifest and the tool whose card to draw (with its generated card where
    it declares none, or with --generated). Raises _Refused."""
    from notch_app.manifest.generated import generated_view, tool_document, with_generated_cards
    from notch_app.manifest.integration import load_integration
    from notch_app.manifest.model import ConfirmationView

    if args.manifest is None or args.tool is None:
        missing = " and ".join(
            what
            for what, absent in (
                ("MANIFEST_OR_FOLDER", args.manifest is None),
                ("--tool NAME", args.tool is None),
            )
            if absent
        )
        raise _Refused(f"give {missing} to draw a card (or --glance RESULT.json for a glance)")
    if not args.manifest.exists():
        raise _Refused(f"{args.manifest}: no such file or folder")
    integration, problems = load_integration(args.manifest)
    for p in problems:
        print(p.format(), file=sys.stderr)
    if integration is None:
        raise _Refused(f"{args.manifest}: the manifest has errors (above); fix them and retry")
    manifest = with_generated_cards(integration.manifest)
    tool = manifest.tool(args.tool)
    if tool is not None and args.generated:
        view = ConfirmationView.model_validate(generated_view(tool_document(tool)))
        tool = tool.model_copy(update={"confirmation": view})
    with_cards = [t.name for t in manifest.tools if t.confirmation is not None]
    if tool is None or tool.confirmation is None:
        what = "is not a tool of" if tool is None else "has no confirmation card in"
        raise _Refused(
            f"{args.tool!r} {what} {integration.manifest_path}; tools with cards: "
            + (", ".join(with_cards) or "none")
        )
    return integration, manifest, tool


def _card_arguments(
    args: argparse.Namespace, integration: Integration, tool: Tool
) -> dict[str, Any]:
    """The arguments to draw the card with: --args, @FILE or the preview fixture, checked
    against the tool's inputSchema (a VoiceOS fixture only warns). Raises _Refused."""
    from notch_app.manifest.reading import VOICEOS_MANIFEST_FILE
    from notch_app.manifest.schema import argument_problems

    arguments: dict[str, Any] | None
    if args.fixture or args.args is None:
        fixture = integration.fixtures.tools.get(tool.name) if integration.fixtures else None
        if fixture is None:
            raise _Refused(
                f"no preview fixture for {tool.name!r} beside {integration.manifest_path}; "
                "pass --args JSON or add it to preview.json"
            )
        arguments = dict(fixture.args)
    else:
        origin, text = "--args", args.args
        if args.args.startswith("@"):
            path = Path(args.args[1:])
            try:
                origin, text = str(path), path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise _Refused(f"{path}: cannot read the arguments file ({exc})") from None
        arguments, error = parse_arguments_text(text, origin)
        if error:
            raise _Refused(error)
    assert arguments is not None
    mismatch = argument_problems(tool, arguments)
    if mismatch:
        lines = "\n".join(f"  {p}" for p in mismatch[:10])
        message = f"the arguments do not match {tool.name}'s inputSchema:\n{lines}"
        sample = args.fixture or args.args is None
        if not (sample and integration.manifest_path.name == VOICEOS_MANIFEST_FILE):
            raise _Refused(message)
        # A VoiceOS fixture is sample data (its own checks are warnings): draw it anyway.
        print(f"notch render: warning: {message}", file=sys.stderr)
    return arguments


def _render_card(
    args: argparse.Namespace,
    integration: Integration,
    manifest: Manifest,
    tool: Tool,
    arguments: dict[str, Any],
    screen_height: int | None,
) -> int:
    """Draw the card offscreen to `args.output`: 0 when written, 2 when it cannot be."""
    from notch_app.ui.headless import headless_app

    headless_app()
    from PySide6.QtCore import QCoreApplication, QEvent

    from notch_app.manifest.model import WidgetBlock
    from notch_app.ui.card_view import CardView
    from notch_app.ui.snapshot import save_card_png
    from notch_app.ui.widgets.asker_strip import asker_for

    card = CardView(
        tool,
        arguments,
        base_dir=integration.folder,
        network_domains=manifest.network_domains,
        theme=args.theme,
        width=args.width,
        # Outside the person's places, the strip names the folder drawn from.
        asker=asker_for(manifest, integration.folder, f"From “{integration.folder.name}”"),
        scopes=True,  # as the notch shows it
        # A PNG cannot hold a live page: a widget view's page is drawn as a still panel,
        # and the web engine (Chromium, ~180 MiB) is never started for a picture.
        live_pages=False,
        compact=args.screen,  # the whole card shows Details open
        screen_height=screen_height,
    )
    try:
        save_card_png(card, args.output, whole=not args.screen)
        size = f"{card.width()}×{card.height()} px"
    except OSError as exc:
        return _fail(str(exc))
    finally:
        card.close()  # an in-process caller keeps its screen free of a stray card
        card.deleteLater()
        # Freed now: an in-process caller (a test, a script) does not pile up cards.
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    print(f"wrote {args.output} ({size}, {args.theme})")
    if tool.confirmation is not None and isinstance(tool.confirmation.root, WidgetBlock):
        print(
            "notch render: the widget's HTML page is drawn as a still panel (a PNG cannot "
            "hold a live page); see it run with `notch preview` or in the notch",
            file=sys.stderr,
        )
    return 0


def _render_glance(result: Path, output: Path, theme: str, width: int) -> int:
    """Draw the glance of the tool result in `result` to `output`: 0 when it was drawn, 1
    when no block would show, 2 when the file cannot be read or holds no glance."""
    from notch_app.manifest.glance import NO_GLANCE, dropped_pointer, find_glance, read_glance
    from notch_app.manifest.reading import SourceError, load_json

    name = str(result)
    try:
        doc, problems = load_json(result, name)
    except SourceError as exc:
        return _fail(str(exc))
    if doc is None:
        for p in problems:
            print(p.format(), file=sys.stderr)
        return _fail(f"{name}: cannot read the tool result (above); fix it and retry")
    found = find_glance(doc.data)
    if found is None:
        return _fail(f"{name}:1:1: {NO_GLANCE}")
    reading = read_glance(found.value)
    # The same lines as `notch glance check`: where, which block, the reason and the fix.
    for drop in reading.dropped:
        line, column = doc.position(dropped_pointer(found, drop))
        what = f"block {drop.index} ({drop.kind}): " if drop.index >= 0 else ""
        print(_printable(f"{name}:{line}:{column}: {what}{drop.reason}"), file=sys.stderr)
    if not reading.blocks:
        print(
            f"notch render: {name}: no block of the glance would show; nothing drawn",
            file=sys.stderr,
        )
        return 1

    from notch_app.ui.headless import headless_app

    headless_app()
    from notch_app.ui.snapshot import save_glance_png
    from notch_app.ui.theme import theme_name

    try:
        size = save_glance_png(output, reading.blocks, theme=theme_name(theme), width=width)
    except OSError as exc:
        return _fail(str(exc))
    shown = ", ".join(block.type for block in reading.blocks)
    print(f"wrote {output} ({size.width()}×{size.height()} px, {theme}; {shown})")
    return 0


def _printable(text: str) -> str:
    # A lone surrogate (from a file name or a reason quoting a key) cannot go to UTF-8.
    return text.encode("utf-8", "backslashreplace").decode("utf-8")
