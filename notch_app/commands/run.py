"""`notch run`: the notch overlay plus the confirmation service on a local socket."""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from notch_app.app import NotchConfig


def add_service_options(parser: argparse.ArgumentParser) -> None:
    """--manifests, --socket, --data-dir (shared with `notch demo`)."""
    parser.add_argument(
        "--manifests",
        metavar="DIR",
        action="append",
        type=Path,
        default=[],
        help="a folder of integrations (or of manifest files) to load as well; repeatable",
    )
    parser.add_argument(
        "--socket",
        metavar="PATH",
        type=Path,
        default=None,
        help="the Unix socket to listen on (default: $NOTCH_SOCKET, else "
        "$XDG_RUNTIME_DIR/notch/notch.sock; without --socket Notch also notes where it "
        "listens in ~/.local/state/notch, so MCP clients find it)",
    )
    parser.add_argument(
        "--data-dir",
        metavar="DIR",
        type=Path,
        default=None,
        help="where requests, decisions and your settings (notch-settings.json) are stored "
        "(default: $NOTCH_DATA_DIR, else the platform's app-data folder)",
    )
    parser.add_argument(
        "--idle",
        choices=("pill", "hidden"),
        default=None,
        help="what the notch looks like while nothing is waiting, for this run only; "
        "overrides Settings → In the notch → While nothing is waiting (default: that "
        "setting, a pill until changed)",
    )
    parser.add_argument(
        "--theme",
        choices=("system", "dark", "light"),
        default=None,
        help="the cards' look for this run: follow the desktop's light or dark scheme "
        "(system), or always dark or light; overrides Settings → In the notch → Look "
        "(default: that setting, system until changed)",
    )
    parser.add_argument(
        "--park-after",
        metavar="SECONDS",
        type=float,
        default=None,
        help="park a card left untouched this long in the side notch, for this run only; "
        "0 never parks; overrides Settings → In the notch → Park an untouched card after "
        "(default: that setting, 60 until changed)",
    )


def configure(parser: argparse.ArgumentParser) -> None:
    add_service_options(parser)
    parser.add_argument(
        "--reset-store",
        action="store_true",
        help="if the decision store (notch.sqlite3 in the data dir) cannot be opened, move "
        "it aside as notch.sqlite3.broken-<time> and start with an empty one; its undecided "
        "requests are dropped (without this flag Notch stops and says what is wrong)",
    )
    parser.epilog = (
        "Integrations load from the bundled manifests/ folder, then "
        "~/.config/notch/integrations (your own), then each --manifests folder. "
        "Invalid manifests, and folders that hold no integration, are named with the reason "
        "and skipped. Quit from the tray icon, Ctrl+C or SIGTERM. "
        "The idle look and the park time come from your settings file (Settings → In the "
        "notch, changes apply at once); --idle and --park-after override them for this run, "
        "and a change in Settings to an overridden one applies from the next start."
    )


def config_from(args: argparse.Namespace) -> NotchConfig:
    """A NotchConfig from the parsed options. Raises ValueError for a bad option value."""
    from notch_app.app import NotchConfig
    from notch_app.ipc.address import default_socket_path
    from notch_app.runtime.folders import default_data_dir

    park_after = args.park_after
    if park_after is not None and not (math.isfinite(park_after) and park_after >= 0):
        raise ValueError(f"--park-after {park_after:g}: use 0 (never park) or more seconds")
    from notch_app.ui.overlay_settings import OverlaySettings

    theme = getattr(args, "theme", None)
    return NotchConfig(
        settings=OverlaySettings(theme=theme) if theme else OverlaySettings(),
        theme_override=theme,
        socket_path=(args.socket or default_socket_path()).expanduser(),
        data_dir=(args.data_dir or default_data_dir()).expanduser(),
        manifest_dirs=list(args.manifests),
        idle_override=args.idle,
        park_after_override_s=park_after,
        # Without --socket, clients with a bare environment find this Notch by its note.
        leave_note=args.socket is None,
    )


def running_notch(socket_path: Path) -> int | None:
    """The process id of the Notch listening on `socket_path` (0 when something listens
    but the platform does not say who), None when nothing does."""
    import os
    import socket
    import struct

    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(1.0)
    try:
        probe.connect(os.fspath(socket_path))
        peer = getattr(socket, "SO_PEERCRED", None)
        if peer is None:  # macOS: LOCAL_PEERPID is not in the socket module
            return 0
        pid, _uid, _gid = struct.unpack("3i", probe.getsockopt(socket.SOL_SOCKET, peer, 12))
        return int(pid)
    except OSError:
        return None
    finally:
        probe.close()


def already_running(socket_path: Path) -> str | None:
    """What a second `notch run` for `socket_path` says, when a Notch already listens
    there; None when none does."""
    pid = running_notch(socket_path)
    if pid is None:
        return None
    who = f"process {pid}" if pid else "another process"
    return (
        f"Notch is already running on {socket_path} ({who}); not starting a second one. "
        "Its Settings open from its tray icon (or `notch settings`); to restart it, stop "
        f"it first{f' (kill {pid})' if pid else ''}."
    )


def run(args: argparse.Namespace) -> int:
    import sys

    from notch_app.app import run_notch

    try:
        config = config_from(args)
    except ValueError as exc:
        print(f"notch run: {exc}", file=sys.stderr)
        return 2
    # One notch per socket: a second `notch run` (login start + a hand start) says where
    # the first runs and leaves it alone, before it opens a window of its own.
    running = already_running(config.socket_path)
    if running is not None:
        print(f"notch run: {running}", file=sys.stderr)
        return 0
    if getattr(args, "reset_store", False):
        from notch_app.runtime.store import StoreError, reset_if_broken

        try:
            aside = reset_if_broken(config.data_dir)
        except StoreError as exc:
            print(f"notch run: {exc}", file=sys.stderr)
            return 2
        if aside is not None:
            print(
                f"notch run: the decision store could not be opened; moved it to {aside}",
                file=sys.stderr,
            )
    return run_notch(config)
