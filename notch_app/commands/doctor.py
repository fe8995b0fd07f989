"""`notch doctor`: what works on this desktop, line by line, and how to fix what does not.

Each line is a check of the real thing, not a guess from names: the display is opened
by Qt as `notch run` opens it (in a child process: notch_app/ui/desktop/probe.py), the
compositor is asked which protocols it offers, the X server which keys can be grabbed,
the session bus whether the portal lends shortcuts, the keyring which backend it would
use, the socket whether a Notch answers there. Exit 0 when the core works — a card can
be shown and answered here — else 1, with what to do on the line that says why.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from notch_app.ui.desktop.session import DesktopSession

Status = Literal["ok", "no", "info"]
_MARKS = {"ok": "✓", "no": "✗", "info": "·"}
PROBE_TIMEOUT_S = 30.0


@dataclass(frozen=True, slots=True)
class Finding:
    """One line of the doctor's report."""

    topic: str
    status: Status
    says: str
    fix: str = ""

    def lines(self) -> list[str]:
        out = [f"{_MARKS[self.status]} {self.topic}: {self.says}"]
        if self.fix:
            out.append(f"    fix: {self.fix}")
        return out


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--socket",
        metavar="PATH",
        type=Path,
        default=None,
        help="the socket to check (default: the one `notch run` uses here)",
    )
    parser.add_argument("--json", action="store_true", help="print the findings as JSON")
    parser.epilog = (
        "Exit status 0 when cards can be shown and answered on this desktop, 1 when not "
        "(the line marked ✗ under 'display' says why)."
    )


def run(args: argparse.Namespace) -> int:
    findings, core_ok = examine(args.socket)
    if args.json:
        print(json.dumps({"core": core_ok, "findings": [asdict(f) for f in findings]}))
        return 0 if core_ok else 1
    print("notch doctor: what works on this desktop")
    for finding in findings:
        for line in finding.lines():
            print(line)
    if core_ok:
        print("Cards can be shown and answered here.")
    else:
        print("Cards cannot be shown here: see the ✗ display line above.")
    return 0 if core_ok else 1


def examine(socket: Path | None = None) -> tuple[list[Finding], bool]:
    """Every check, in the order a person reads them, and whether the core works."""
    from notch_app.ui.desktop.session import read_session

    session = read_session()
    probe, probe_problem = _probe()
    found: list[Finding] = [_display(session, probe, probe_problem)]
    core_ok = probe is not None and "platform" in probe
    if probe is not None and "route" in probe:
        found.append(_placement(session, probe))
        found.append(_answer_keys(session, probe))
        found.append(_tray(probe))
    found += [_keyring(), _voice(probe), _web(probe)]
    found += _sockets(socket)
    found.append(_login_start(session))
    return found, core_ok


# ---- the display ------------------------------------------------------------------------


def _probe() -> tuple[dict[str, Any] | None, str]:
    """What Qt finds, from a child process (see probe.py); (None, why) when it failed."""
    try:
        done = subprocess.run(
            [sys.executable, "-m", "notch_app.ui.desktop.probe"],
            capture_output=True, text=True, timeout=PROBE_TIMEOUT_S, env=os.environ.copy(),
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return None, f"Qt did not open the display within {PROBE_TIMEOUT_S:g} s"
    try:
        found = json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return None, f"Qt could not open the display ({last})"
    if not isinstance(found, dict):
        return None, "the display probe said nothing usable"
    if "PulseAudioService: pa_context_connect() failed" in done.stderr:
        found["audio_server"] = False
    return found, ""


def _display(session: DesktopSession, probe: dict[str, Any] | None, problem: str) -> Finding:
    if probe is None:
        return Finding("display", "no", problem, "run `notch doctor` in your desktop session")
    if "error" in probe:
        return Finding(
            "display", "no", str(probe["error"]),
            "log in to a desktop session (X11 or Wayland), or test without a screen under "
            "`xvfb-run -a notch doctor`",
        )  # fmt: skip
    screens = probe.get("screens", [])
    shown = ", ".join(f"{s['geometry'][2]}×{s['geometry'][3]}" for s in screens) or "no screen"
    compositor = _compositor(session)
    name = f"; compositor: {compositor}" if compositor else ""
    return Finding(
        "display", "ok", f"{session.described}{name}; Qt draws with {probe['platform']} on {shown}"
    )


def _compositor(session: DesktopSession) -> str:
    """The compositor's name: from its own protocols on Wayland, else the session's."""
    if session.server == "wayland":
        from notch_app.ui.desktop.wayland_wire import (
            WaylandError,
            compositor_from_globals,
            offered_globals,
        )

        try:
            interfaces = {g.interface for g in offered_globals()}
        except WaylandError:
            return session.desktop
        named = compositor_from_globals(interfaces)
        if named.startswith("a wlroots") and session.desktop:
            return session.desktop  # sway, Hyprland…: the session names which one
        return named or session.desktop
    return session.desktop


def _layer_shell_offered() -> bool:
    from notch_app.ui.desktop.wayland_wire import WaylandError, offered_globals

    try:
        return any(g.interface == "zwlr_layer_shell_v1" for g in offered_globals())
    except WaylandError:
        return False


def _placement(session: DesktopSession, probe: dict[str, Any]) -> Finding:
    route = probe["route"]
    if route == "x11":
        return Finding(
            "top centre", "ok",
            "the card drops from the top centre of the screen under the pointer, above "
            "other windows (X11: the window manager places it where Notch asks)",
        )  # fmt: skip
    if route == "xwayland":
        return Finding(
            "top centre", "ok",
            "the card drops from the top centre, above other windows, through XWayland "
            f"({session.x_display}: an override-redirect window the compositor does not "
            "move). Compositors give such a window no keyboard (measured under weston and "
            "sway): cards are answered by click (or voice), their fields cannot be typed "
            "into; QT_QPA_PLATFORM=wayland gives a native window you can type into, placed "
            "by the compositor",
        )  # fmt: skip
    if route == "wayland":
        layer = (
            " It offers layer-shell, which the Qt inside PySide6 cannot use."
            if _layer_shell_offered()
            else ""
        )
        if session.forced_platform == "wayland":
            fix = "unset QT_QPA_PLATFORM: Notch then places the card itself through XWayland"
        else:
            fix = _xwayland_fix(_compositor(session))
        return Finding(
            "top centre", "no",
            "the compositor places Notch's windows itself (a native Wayland window cannot "
            "choose its place), so the card opens whole wherever it chooses, not at the top "
            f"centre; it can take focus and be typed into.{layer}",
            fix,
        )  # fmt: skip
    if probe["platform"] in ("offscreen", "minimal", "vnc"):
        return Finding("top centre", "info", f"Qt runs with {probe['platform']}: no real screen")
    return Finding(
        "top centre", "info",
        f"Qt runs with {probe['platform']}: Notch places the card itself there (not measured "
        "on this platform by Notch's tests)",
    )  # fmt: skip


def _xwayland_fix(compositor: str) -> str:
    if "weston" in compositor:
        return "start weston with --xwayland (Debian: the xwayland package)"
    if "sway" in compositor or "wlroots" in compositor:
        return "install xwayland and put `xwayland enable` in ~/.config/sway/config"
    return "install XWayland (Debian/Ubuntu: xwayland) and log in again"


def _answer_keys(session: DesktopSession, probe: dict[str, Any]) -> Finding:
    from notch_app.ui.keys.chords import APPROVE_CHORD, DECLINE_CHORD

    chords = f"{APPROVE_CHORD.keys} approves, {DECLINE_CHORD.keys} declines"
    if probe["route"] == "x11":
        refused = _x11_refused()
        if refused is None:
            return Finding(
                "answer keys", "ok", f"{chords} from any application while a card is shown"
            )
        return Finding(
            "answer keys", "no", refused,
            "close the program that holds the chord, or answer cards by click",
        )  # fmt: skip
    if session.server == "wayland":
        from notch_app.ui.keys.portal import portal_shortcuts_version

        version = portal_shortcuts_version()
        if version is not None:
            return Finding(
                "answer keys", "ok",
                f"through the desktop's Global Shortcuts portal (version {version}): {chords} "
                "from any application once you allow them (your desktop asks once)",
            )  # fmt: skip
        focused = (
            "↵ approves and Esc declines once the card has focus"
            if probe["route"] == "wayland"
            else "answer by click"
        )
        return Finding(
            "answer keys", "no",
            "not from other applications: Wayland lets no program take keys, and this "
            f"session's portal offers no GlobalShortcuts; {focused}",
            "KDE Plasma 5.27+, GNOME 48+ and Hyprland offer the GlobalShortcuts portal "
            "(xdg-desktop-portal with their backend); sway's xdg-desktop-portal-wlr does not",
        )  # fmt: skip
    return Finding("answer keys", "info", "no chords on this platform; answer by click")


def _x11_refused() -> str | None:
    """None when the chords can be grabbed on the X root now, else why not."""
    try:
        from notch_app.ui.keys.x11_grab import chord_grabs
        from notch_app.ui.keys.xcb import BAD_ACCESS, XcbConnection

        conn = XcbConnection(os.environ.get("DISPLAY", ""))
    except Exception as exc:
        return f"cannot reach the X server for the chords ({exc})"
    try:
        asked, plain = chord_grabs(conn)
        plain_asked = [(role, keycode, mods) for role, keycode, mods in asked if mods == plain]
        errors = conn.grab_keys([(keycode, mods) for _r, keycode, mods in plain_asked])
        conn.ungrab_keys(
            [(k, m) for (_r, k, m), error in zip(plain_asked, errors, strict=True) if not error]
        )
        held = sorted(
            {role for (role, _k, _m), e in zip(plain_asked, errors, strict=True) if e == BAD_ACCESS}
        )
    except Exception as exc:
        return f"the X server refused the chords ({exc})"
    finally:
        conn.close()
    if held:
        return f"another program holds the {' and '.join(held)} chord"
    return None


def _tray(probe: dict[str, Any]) -> Finding:
    if probe.get("tray"):
        return Finding("tray", "ok", "Notch's tray icon opens Settings and quits it")
    return Finding(
        "tray", "no",
        "no system tray: open Settings with `notch settings`, quit Notch with Ctrl+C or "
        "SIGTERM",
        "a tray host: GNOME's AppIndicator extension, swaybar's tray, KDE's own",
    )  # fmt: skip


# ---- keyring, voice, widgets ------------------------------------------------------------


def _keyring() -> Finding:
    from notch_app.runtime.secrets import keyring_problem

    try:
        problem = keyring_problem()
    except Exception as exc:  # a broken keyring configuration is still an answer
        problem = f"the keyring library failed ({exc})"
    if problem is None:
        import keyring

        backend = keyring.get_keyring()
        return Finding("keyring", "ok", f"API keys are kept in {type(backend).__name__}")
    said, _, fix = problem.partition(". ")
    return Finding("keyring", "no", said, fix)


def _voice(probe: dict[str, Any] | None) -> Finding:
    import importlib.util

    if probe is None or "platform" not in probe:
        return Finding("voice", "info", "not checked without a display")
    recognizer = importlib.util.find_spec("pocketsphinx") is not None
    mics, speakers = probe.get("audio_in", []), probe.get("audio_out", [])
    problems = []
    if "audio_error" in probe:
        problems.append(f"QtMultimedia did not load ({probe['audio_error']})")
    if probe.get("audio_server") is False:
        problems.append("no PulseAudio or PipeWire server answers")
    if not mics:
        problems.append("no microphone")
    if not speakers:
        problems.append("no speaker for the read-back")
    if not recognizer:
        problems.append("the recognizer is not installed")
    if not problems:
        return Finding("voice", "ok", f"microphone {mics[0]!r}, speaker {speakers[0]!r}")
    fixes = []
    if not recognizer:
        fixes.append("pip install 'notch[voice]'")
    if probe.get("audio_server") is False or not mics or not speakers:
        fixes.append("run PipeWire (pipewire-pulse) or PulseAudio with a microphone")
    return Finding(
        "voice", "no", "answering by voice cannot work: " + "; ".join(problems), "; ".join(fixes)
    )


def _web(probe: dict[str, Any] | None) -> Finding:
    if probe is None or "platform" not in probe:
        return Finding("widgets", "info", "not checked without a display")
    if "webengine" in probe:
        return Finding("widgets", "ok", f"HTML widgets run in QtWebEngine {probe['webengine']}")
    return Finding(
        "widgets", "no",
        f"QtWebEngine is missing ({probe.get('webengine_error', 'not installed')}): HTML "
        "widgets show their text fallback",
        "pip install 'notch[web]'",
    )  # fmt: skip


# ---- the socket, running, login -------------------------------------------------------


def _sockets(socket: Path | None) -> list[Finding]:
    from notch_app.commands.run import running_notch
    from notch_app.ipc.address import default_socket_path, find_socket

    ours = (socket or default_socket_path()).expanduser()
    found = [Finding("socket", "info", f"`notch run` here listens on {ours}")]
    pid = running_notch(ours)
    answers = pid is not None and _answers_as_notch(ours)
    if pid is None:
        found.append(
            Finding(
                "running",
                "no",
                "no Notch answers on that socket",
                "start it: `notch run` (or log in again after `notch install`)",
            )
        )
    elif not answers:
        found.append(
            Finding(
                "running",
                "no",
                f"something listens on {ours} (process {pid}) but does not answer as Notch",
                "stop that process, then `notch run`",
            )
        )
    else:
        found.append(Finding("running", "ok", f"Notch answers on {ours} (process {pid})"))
    # What an MCP client or a hook started with a bare environment (HOME and PATH, no
    # XDG_RUNTIME_DIR, no NOTCH_SOCKET) connects to: the clients' own search.
    bare = {k: os.environ[k] for k in ("HOME", "PATH", "USER") if k in os.environ}
    search = find_socket(bare)
    if not answers:
        places = "; ".join(search.looked) or str(search.path)
        found.append(
            Finding(
                "agents' socket", "info", f"an agent with a bare environment looks at: {places}"
            )
        )
    elif search.path == ours:
        found.append(
            Finding("agents' socket", "ok", f"an agent with a bare environment finds {ours}")
        )
    else:
        found.append(
            Finding(
                "agents' socket",
                "no",
                f"an agent started with a bare environment (no XDG_RUNTIME_DIR) would connect "
                f"to {search.path}, not {ours}",
                f"set NOTCH_SOCKET={ours} in the agent's environment (its MCP server entry's "
                "`env`, or the hook command's environment)",
            )
        )
    return found


def _answers_as_notch(socket: Path) -> bool:
    """True when the server on `socket` is this user's Notch and answers in time."""
    from notch_app.client import NotchClient, NotchError

    try:
        with NotchClient(socket, reconnect_for=0) as client:
            client.integrations(timeout=3)
    except (NotchError, OSError):
        return False
    return True


def _login_start(session: DesktopSession) -> Finding:
    from notch_app.commands.install import login_start_files, notch_command, sway_hint

    try:
        files = login_start_files()
    except NotImplementedError as exc:
        return Finding("at login", "info", str(exc))
    unit = _systemd_unit_start()
    if unit is not None:
        return unit
    entry = files[0].path
    if not entry.is_file():
        return Finding(
            "at login", "no", "Notch does not start when you log in",
            "`notch install` (writes an autostart entry; `notch uninstall` removes it)",
        )  # fmt: skip
    text = entry.read_text(encoding="utf-8", errors="replace")
    exec_line = next((ln for ln in text.splitlines() if ln.startswith("Exec=")), "")
    program = exec_line.removeprefix("Exec=").split(" ", 1)[0].strip('"')
    if program and not Path(program).exists():
        return Finding(
            "at login", "no", f"{entry} starts {program}, which is not there any more",
            "`notch install` again from the Notch you use",
        )  # fmt: skip
    hint = sway_hint(os.environ, notch_command())
    if hint is not None:
        config = _compositor_config(session)
        if config is not None and "notch" in config:
            return Finding("at login", "ok", "your compositor's config starts Notch")
        first, _, line = hint.partition("\n")
        return Finding("at login", "no", first.split(":")[0], line.strip())
    return Finding("at login", "ok", f"starts when you log in ({entry})")


def _systemd_unit_start() -> Finding | None:
    """The finding for `notch install --systemd`'s unit, when it is enabled; else None."""
    from notch_app.commands.install import login_start_files

    try:
        link, unit = (f.path for f in login_start_files(systemd=True)[:2])
    except NotImplementedError:
        return None
    if not link.exists():
        return None
    text = unit.read_text(encoding="utf-8", errors="replace")
    line = next((ln for ln in text.splitlines() if ln.startswith("ExecStart=")), "")
    program = shlex.split(line.removeprefix("ExecStart="))[:1] if line else []
    if program and not Path(program[0]).exists():
        return Finding(
            "at login", "no", f"{unit} starts {program[0]}, which is not there any more",
            "`notch install --systemd` again from the Notch you use",
        )  # fmt: skip
    return Finding("at login", "ok", f"starts with your graphical session ({unit})")


def _compositor_config(session: DesktopSession) -> str | None:
    home = Path.home()
    for path in (home / ".config" / "sway" / "config", home / ".config" / "hypr" / "hyprland.conf"):
        try:
            return path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
    return None
