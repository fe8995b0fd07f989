"""`notch install`: start Notch when the person logs in, and put it in their app launcher.

Linux (freedesktop): an XDG autostart entry (`~/.config/autostart/dev.notch.Notch.desktop`,
started by GNOME, KDE Plasma, Xfce, Cinnamon, MATE, LXQt…), a desktop file for the app
launcher (`~/.local/share/applications/`) and its icon (`~/.local/share/icons/hicolor/
scalable/apps/`). sway and Hyprland do not run autostart entries: Notch says the line to
add to their config instead. With `--systemd`, a systemd user unit (`~/.config/systemd/
user/dev.notch.Notch.service`, enabled by its link in `graphical-session.target.wants/`)
starts it instead of the autostart entry (never both: two starts at login), restarted if
it crashes. macOS: a LaunchAgent (`~/Library/LaunchAgents/dev.notch.Notch.plist`) that
runs `notch run` at login.

What was written is recorded with each file's SHA-256 (`login-start.json` in Notch's
per-user data folder), so `notch uninstall` removes exactly those files, and leaves (and
names) one the person changed since. Each entry runs this very Notch: the `notch` beside
the Python running now (a virtualenv's stays a virtualenv's), with `run`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import plistlib
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

APP_ID = "dev.notch.Notch"
UNIT_NAME = f"{APP_ID}.service"
RECORD_NAME = "login-start.json"
_EXEC_RESERVED = re.compile(r"""[\s"'\\><~|&;$*?#()`]""")
_UNIT_RESERVED = re.compile(r"""[\s"'\\;$%]""")


@dataclass(frozen=True, slots=True)
class LoginStartFile:
    """One file `notch install` writes."""

    path: Path
    content: bytes
    why: str
    """What it does for the person ("starts Notch when you log in")."""
    link_to: Path | None = None
    """Written as a symbolic link to this file (whose content is `content`), not a copy:
    how systemd enables a unit."""


def notch_command() -> list[str]:
    """This Notch's `notch run`, absolute: the `notch` script beside this Python when there
    is one (a virtualenv's bin/), else this Python with `-m notch_app`."""
    python = Path(sys.executable).absolute()  # never resolved: a venv's python is a link
    script = python.with_name("notch")
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script), "run"]
    return [str(python), "-m", "notch_app", "run"]


def desktop_exec(argv: list[str]) -> str:
    """`argv` as a desktop entry's Exec value (Desktop Entry Specification, "The Exec key"):
    an argument with a reserved character is double-quoted with ", `, $ and \\ escaped, a
    literal % is doubled, and the value's own backslashes are escaped once more."""
    out = []
    for arg in argv:
        if _EXEC_RESERVED.search(arg) or not arg:
            arg = '"' + re.sub(r'(["`$\\])', r"\\\1", arg) + '"'
        out.append(arg.replace("%", "%%"))
    return " ".join(out).replace("\\", "\\\\")


def _desktop_entry(argv: list[str], *, autostart: bool) -> bytes:
    lines = [
        "[Desktop Entry]",
        "Type=Application",
        "Name=Notch",
        "GenericName=Action confirmations",
        "Comment=Asks you before an AI agent acts for you",
        f"Exec={desktop_exec(argv)}",
        f"Icon={APP_ID}",
        "Terminal=false",
        "Categories=Utility;",
        "StartupNotify=false",
        "X-Notch-Installed=true",  # what `notch uninstall` and `notch doctor` look for
    ]
    if autostart:
        lines += ["X-GNOME-Autostart-enabled=true", "X-KDE-autostart-after=panel"]
    return ("\n".join(lines) + "\n").encode()


def unit_exec(argv: list[str]) -> str:
    """`argv` as a systemd ExecStart= value (systemd.service, "Command lines"): an argument
    with a space, quote, backslash, `;`, `$` or `%` is double-quoted with its backslashes
    and quotes escaped; `%` is doubled (a specifier otherwise) and `$` too (a variable)."""
    out = []
    for arg in argv:
        if _UNIT_RESERVED.search(arg) or not arg:
            arg = '"' + arg.replace("\\", "\\\\").replace('"', '\\"') + '"'
        out.append(arg.replace("%", "%%").replace("$", "$$"))
    return " ".join(out)


def _user_unit(argv: list[str]) -> bytes:
    lines = [
        "# Written by `notch install --systemd`; `notch uninstall` removes it.",
        "[Unit]",
        "Description=Notch: asks you before an AI agent acts for you",
        "Documentation=man:systemd.service(5)",
        # Started with the graphical session, stopped with it: the card needs a display.
        "PartOf=graphical-session.target",
        "After=graphical-session.target",
        "",
        "[Service]",
        "Type=exec",
        # The display (DISPLAY, WAYLAND_DISPLAY) comes from the session: GNOME and KDE
        # import it into the user manager; elsewhere `systemctl --user import-environment`.
        f"ExecStart={unit_exec(argv)}",
        # Again after a crash, never after Quit (exit 0); a second `notch run` exits 0 too.
        "Restart=on-failure",
        "RestartSec=2",
        "",
        "[Install]",
        "WantedBy=graphical-session.target",
    ]
    return ("\n".join(lines) + "\n").encode()


def _launch_agent(argv: list[str], home: Path) -> bytes:
    logs = home / "Library" / "Logs" / "Notch"
    plist = {
        "Label": APP_ID,
        "ProgramArguments": argv,
        "RunAtLoad": True,
        # Started again if it crashes; not after a clean Quit from the menu bar.
        "KeepAlive": {"SuccessfulExit": False},
        "ProcessType": "Interactive",
        "StandardOutPath": str(logs / "notch.log"),
        "StandardErrorPath": str(logs / "notch.log"),
    }
    return plistlib.dumps(plist)


def _xdg(env: Mapping[str, str], name: str, default: str, home: Path) -> Path:
    value = env.get(name, "")
    return Path(value) if value and os.path.isabs(value) else home / default


def login_start_files(
    platform: str | None = None,
    env: Mapping[str, str] | None = None,
    home: Path | None = None,
    argv: list[str] | None = None,
    *,
    systemd: bool = False,
) -> list[LoginStartFile]:
    """The files that start Notch at login on `platform` (default: this one), for the
    person whose home is `home`; with `systemd` (Linux), a systemd user unit and its
    enabling link start it instead of the autostart entry. Raises NotImplementedError on
    a platform without one, or `systemd` where there is no systemd."""
    platform = platform or sys.platform
    env = os.environ if env is None else env
    home = home or Path.home()
    argv = argv or notch_command()
    if systemd and not platform.startswith("linux"):
        raise NotImplementedError(f"systemd user units are for Linux, not {platform}")
    if platform == "darwin":
        agent = home / "Library" / "LaunchAgents" / f"{APP_ID}.plist"
        return [LoginStartFile(agent, _launch_agent(argv, home), "starts Notch when you log in")]
    if platform.startswith("linux") or "bsd" in platform:
        config = _xdg(env, "XDG_CONFIG_HOME", ".config", home)
        data = _xdg(env, "XDG_DATA_HOME", ".local/share", home)
        from notch_app.bundled import bundled_folder

        icon = (bundled_folder("resources") / "icons" / "notch-app.svg").read_bytes()
        units = config / "systemd" / "user"
        unit = _user_unit(argv)
        starts = (
            [
                # The link first: `notch uninstall` removes files in this order.
                LoginStartFile(
                    units / "graphical-session.target.wants" / UNIT_NAME, unit,
                    "enables it (as `systemctl --user enable` would)", units / UNIT_NAME,
                ),
                LoginStartFile(units / UNIT_NAME, unit,
                               "a systemd user unit: starts Notch with your graphical session"),
            ]
            if systemd
            else [
                LoginStartFile(
                    config / "autostart" / f"{APP_ID}.desktop",
                    _desktop_entry(argv, autostart=True),
                    "starts Notch when you log in (GNOME, KDE Plasma, Xfce, Cinnamon, MATE, "
                    "LXQt)",
                )
            ]
        )  # fmt: skip
        return [
            *starts,
            LoginStartFile(
                data / "applications" / f"{APP_ID}.desktop",
                _desktop_entry(argv, autostart=False),
                "Notch in your app launcher",
            ),
            LoginStartFile(
                data / "icons" / "hicolor" / "scalable" / "apps" / f"{APP_ID}.svg",
                icon,
                "its icon",
            ),
        ]
    raise NotImplementedError(f"starting Notch at login on {platform} is not supported yet")


def record_path(env: Mapping[str, str] | None = None) -> Path:
    """Where `notch install` records what it wrote (Notch's per-user data folder)."""
    from notch_app.runtime.folders import default_data_dir

    return default_data_dir(env) / RECORD_NAME


def recorded(env: Mapping[str, str] | None = None) -> dict[Path, str]:
    """The files `notch install` wrote and their SHA-256 then; {} when it wrote none (or
    its record is unreadable)."""
    try:
        data = json.loads(record_path(env).read_text(encoding="utf-8"))
        return {Path(f["path"]): str(f["sha256"]) for f in data["files"]}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sway_hint(env: Mapping[str, str], argv: list[str]) -> str | None:
    """The line a compositor that ignores autostart entries needs in its config, if this
    session is one (sway, Hyprland); None otherwise."""
    from notch_app.ui.desktop.session import desktop_name

    command = " ".join(_shell_quote(a) for a in argv)
    name = desktop_name(env)
    if name == "sway":
        return f"sway does not start autostart entries: add to ~/.config/sway/config:\n  exec {command}"
    if name == "Hyprland":
        return (
            "Hyprland does not start autostart entries: add to ~/.config/hypr/hyprland.conf:"
            f"\n  exec-once = {command}"
        )
    return None


def _shell_quote(arg: str) -> str:
    import shlex

    return shlex.quote(arg)


def _replaced(before: dict[Path, str], files: list[LoginStartFile], argv: list[str]) -> list[Path]:
    """Remove what an earlier `notch install` wrote to start Notch the other way (the
    autostart entry, or the unit and its link) and this one did not, when it is still as
    written; the removed paths."""
    now = {f.path for f in files}
    try:  # only Linux has two ways
        other = {f.path for f in login_start_files("linux", argv=argv)} | {
            f.path for f in login_start_files("linux", argv=argv, systemd=True)
        }
    except NotImplementedError:
        return []
    if not sys.platform.startswith("linux"):
        return []
    removed = []
    for path, sha256 in before.items():
        if path in now or path not in other:
            continue
        try:
            if _sha256(path.read_bytes()) == sha256:
                path.unlink()
                removed.append(path)
        except OSError:
            continue
    return removed


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="print the files and what is in them, and write nothing",
    )
    parser.add_argument(
        "--systemd",
        action="store_true",
        help="Linux: start Notch from a systemd user unit (with the graphical session, "
        "restarted if it crashes) instead of an autostart entry",
    )
    parser.epilog = (
        "Linux: an autostart entry, a launcher entry and an icon under ~/.config and "
        "~/.local/share; macOS: a LaunchAgent. `notch uninstall` removes exactly what this "
        "wrote. A second `notch run` while one runs says where the first runs and exits."
    )


def run(args: argparse.Namespace) -> int:
    argv = notch_command()
    try:
        files = login_start_files(argv=argv, systemd=args.systemd)
    except NotImplementedError as exc:
        print(f"notch install: {exc}", file=sys.stderr)
        return 2
    if args.dry_run:
        for f in files:
            print(f"# {f.path} — {f.why}")
            if f.link_to is not None:
                print(f"-> {f.link_to}")
            elif f.path.suffix != ".svg":
                print(f.content.decode(), end="" if f.content.endswith(b"\n") else "\n")
        return 0
    before = recorded()  # a switch from (or to) --systemd leaves no second start behind
    written: list[dict[str, str]] = []
    for f in files:
        try:
            f.path.parent.mkdir(parents=True, exist_ok=True)
            temporary = f.path.with_name(f".{f.path.name}.notch-tmp")
            temporary.unlink(missing_ok=True)
            if f.link_to is not None:
                temporary.symlink_to(f.link_to)
            else:
                temporary.write_bytes(f.content)
            os.replace(temporary, f.path)  # a half-written entry never starts anything
        except OSError as exc:
            print(f"notch install: cannot write {f.path} ({exc.strerror or exc})", file=sys.stderr)
            return 2
        written.append({"path": str(f.path), "sha256": _sha256(f.content), "why": f.why})
    record = record_path()
    try:
        record.parent.mkdir(parents=True, exist_ok=True)
        record.write_text(json.dumps({"files": written}, indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        print(f"notch install: cannot write {record} ({exc.strerror or exc})", file=sys.stderr)
        return 2
    print("notch install: wrote")
    for f in files:
        print(f"  {f.path} — {f.why}")
    for path in _replaced(before, files, argv):
        print(f"  removed {path}: Notch starts the other way now")
    print(f"It runs: {' '.join(_shell_quote(a) for a in argv)}")
    if args.systemd:
        print(f"It starts at your next login; to start it now: systemctl --user daemon-reload "
              f"&& systemctl --user start {UNIT_NAME}")  # fmt: skip
    hint = None if args.systemd else sway_hint(os.environ, argv)
    if hint:
        print(hint)
    print("`notch uninstall` removes exactly these files; `notch doctor` checks the rest.")
    return 0
