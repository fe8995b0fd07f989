"""`notch install` / `notch uninstall` as a person runs them: the autostart entry, the
launcher entry and the icon are written under their home, run this very Notch, and
uninstall removes exactly those — never a file the person changed, never a file a
tampered record names. The macOS LaunchAgent is checked by its content."""

from __future__ import annotations

import hashlib
import json
import os
import plistlib
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from notch_app.commands.install import (
    APP_ID,
    UNIT_NAME,
    desktop_exec,
    login_start_files,
    notch_command,
    unit_exec,
)

NOTCH = [sys.executable, "-m", "notch_app"]


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "home").mkdir()
    return tmp_path / "home"


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
    env.update(HOME=str(home), NOTCH_DATA_DIR=str(home / "notch-data"), **extra)
    return env


def _notch(home: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*NOTCH, *args], env=_env(home, **extra), capture_output=True, text=True, timeout=60
    )


def _exec_argv(entry: str) -> list[str]:
    """The Exec line of a desktop entry split as the Desktop Entry Specification says:
    the string's own escapes first (\\\\ is one backslash), then arguments split on spaces
    outside double quotes, where a backslash keeps the next character; %% is one %."""
    line = next(x for x in entry.splitlines() if x.startswith("Exec="))
    value = line.removeprefix("Exec=").replace("\\\\", "\\")
    args: list[str] = []
    current, quoted, escaped, started = "", False, False, False
    for ch in value:
        if escaped:
            current, escaped = current + ch, False
        elif quoted and ch == "\\":
            escaped = True
        elif ch == '"':
            quoted, started = not quoted, True
        elif ch == " " and not quoted:
            if started or current:
                args.append(current)
            current, started = "", False
        else:
            current += ch
    if started or current:
        args.append(current)
    return [a.replace("%%", "%") for a in args]


def test_install_writes_what_starts_this_notch_at_login_and_uninstall_removes_exactly_it(
    home: Path,
) -> None:
    autostart = home / ".config" / "autostart"
    autostart.mkdir(parents=True)
    theirs = autostart / "their-own.desktop"
    theirs.write_text("[Desktop Entry]\nType=Application\nExec=true\n")

    done = _notch(home, "install")
    assert done.returncode == 0, done.stderr
    entry = (autostart / f"{APP_ID}.desktop").read_text()
    launcher = (home / ".local/share/applications" / f"{APP_ID}.desktop").read_text()
    icon = home / ".local/share/icons/hicolor/scalable/apps" / f"{APP_ID}.svg"
    assert "[Desktop Entry]" in entry and "Type=Application" in entry
    assert f"Icon={APP_ID}" in entry and "X-GNOME-Autostart-enabled=true" in entry
    assert "X-GNOME-Autostart" not in launcher
    assert icon.read_text().startswith("<svg")
    # It starts this very Notch: the notch beside this Python, with `run`.
    argv = _exec_argv(entry)
    assert argv == notch_command() and argv[-1] == "run"
    assert os.access(argv[0], os.X_OK)
    for path in (autostart / f"{APP_ID}.desktop", icon):
        assert str(path) in done.stdout

    gone = _notch(home, "uninstall")
    assert gone.returncode == 0, gone.stderr
    assert not (autostart / f"{APP_ID}.desktop").exists()
    assert not (home / ".local/share/applications" / f"{APP_ID}.desktop").exists()
    assert not icon.exists()
    assert theirs.exists(), "a file notch install did not write stays"
    assert "Notch no longer starts at login" in gone.stdout
    again = _notch(home, "uninstall")
    assert again.returncode == 0 and "nothing to remove" in again.stdout


def test_uninstall_leaves_and_names_an_entry_the_person_changed(home: Path) -> None:
    assert _notch(home, "install").returncode == 0
    entry = home / ".config" / "autostart" / f"{APP_ID}.desktop"
    entry.write_text(entry.read_text().replace("Exec=", "Exec=nice "))
    gone = _notch(home, "uninstall")
    assert entry.exists()
    assert f"left {entry}: changed since `notch install` wrote it" in gone.stdout
    assert "1 file left" in gone.stdout
    assert not (home / ".local/share/applications" / f"{APP_ID}.desktop").exists()


def test_a_tampered_record_never_makes_uninstall_remove_another_file(home: Path) -> None:
    """Something that can write Notch's data folder lists the person's shell profile, with
    its right hash, among what `notch install` wrote: uninstall leaves it alone."""
    profile = home / ".bashrc"
    profile.write_text("export PATH=$HOME/bin:$PATH\n")
    assert _notch(home, "install").returncode == 0
    record = home / "notch-data" / "login-start.json"
    data = json.loads(record.read_text())
    data["files"].append(
        {"path": str(profile), "sha256": hashlib.sha256(profile.read_bytes()).hexdigest()}
    )
    record.write_text(json.dumps(data))
    gone = _notch(home, "uninstall")
    assert profile.exists()
    assert f"left {profile}: not a file `notch install` writes" in gone.stdout


def test_install_on_sway_says_the_line_sway_needs(home: Path) -> None:
    done = _notch(home, "install", XDG_CURRENT_DESKTOP="sway")
    assert done.returncode == 0, done.stderr
    assert "sway does not start autostart entries" in done.stdout
    assert f"exec {shlex.join(notch_command())}" in done.stdout


def test_install_follows_the_xdg_folders_the_session_sets(home: Path, tmp_path: Path) -> None:
    config, data = tmp_path / "cfg", tmp_path / "share"
    done = _notch(home, "install", XDG_CONFIG_HOME=str(config), XDG_DATA_HOME=str(data))
    assert done.returncode == 0, done.stderr
    assert (config / "autostart" / f"{APP_ID}.desktop").is_file()
    assert (data / "applications" / f"{APP_ID}.desktop").is_file()
    assert not (home / ".config").exists()


def test_the_macos_launch_agent_runs_notch_at_login(tmp_path: Path) -> None:
    [agent] = login_start_files("darwin", {}, tmp_path, ["/Applications/Notch/notch", "run"])
    assert agent.path == tmp_path / "Library" / "LaunchAgents" / f"{APP_ID}.plist"
    plist = plistlib.loads(agent.content)
    assert plist["Label"] == APP_ID
    assert plist["ProgramArguments"] == ["/Applications/Notch/notch", "run"]
    assert plist["RunAtLoad"] is True
    assert plist["KeepAlive"] == {"SuccessfulExit": False}
    assert plist["StandardErrorPath"].endswith("Library/Logs/Notch/notch.log")


def test_an_exec_line_keeps_spaces_quotes_dollars_and_percents_as_they_are() -> None:
    argv = ['/home/Ann Lee/my "venv"/bin/notch', "run", "--socket", "/tmp/$x/100%.sock"]
    entry = f"[Desktop Entry]\nExec={desktop_exec(argv)}\n"
    assert _exec_argv(entry) == argv


def _unit_argv(unit: str) -> list[str]:
    """ExecStart= of a unit split as systemd does for what `unit_exec` writes: words apart
    on spaces, double quotes with \\" and \\\\ escapes; %% is one %, $$ one $."""
    line = next(x for x in unit.splitlines() if x.startswith("ExecStart="))
    return [a.replace("%%", "%").replace("$$", "$")
            for a in shlex.split(line.removeprefix("ExecStart="), posix=True)]  # fmt: skip


def test_install_systemd_writes_an_enabled_user_unit_and_uninstall_removes_it(
    home: Path,
) -> None:
    done = _notch(home, "install", "--systemd")
    assert done.returncode == 0, done.stderr
    units = home / ".config" / "systemd" / "user"
    unit, link = units / UNIT_NAME, units / "graphical-session.target.wants" / UNIT_NAME
    text = unit.read_text()
    assert link.is_symlink() and link.resolve() == unit.resolve(), "enabled, as systemctl does"
    assert not (home / ".config" / "autostart" / f"{APP_ID}.desktop").exists(), "never both"
    assert (home / ".local/share/applications" / f"{APP_ID}.desktop").is_file()
    assert _unit_argv(text) == notch_command() and os.access(notch_command()[0], os.X_OK)
    sections = [line for line in text.splitlines() if line.startswith("[")]
    assert sections == ["[Unit]", "[Service]", "[Install]"]
    assert "WantedBy=graphical-session.target" in text and "Restart=on-failure" in text
    assert f"systemctl --user start {UNIT_NAME}" in done.stdout
    analyze = shutil.which("systemd-analyze")
    if analyze is not None:  # systemd's own reading of the file: no warning at all
        checked = subprocess.run([analyze, "verify", str(unit)], capture_output=True,
                                 text=True, timeout=60)  # fmt: skip
        assert (checked.returncode, checked.stderr.strip()) == (0, ""), checked.stderr

    doctor = _notch(home, "doctor", "--json")
    if doctor.returncode in (0, 1) and doctor.stdout.lstrip().startswith(("{", "[")):
        assert "starts with your graphical session" in doctor.stdout

    # Back to the autostart entry: the unit and its link go, so Notch never starts twice.
    back = _notch(home, "install")
    assert back.returncode == 0, back.stderr
    assert not link.is_symlink() and not unit.exists()
    assert (home / ".config" / "autostart" / f"{APP_ID}.desktop").is_file()
    assert f"removed {unit}: Notch starts the other way now" in back.stdout
    again = _notch(home, "install", "--systemd")
    assert again.returncode == 0 and link.is_symlink() and unit.is_file()
    assert not (home / ".config" / "autostart" / f"{APP_ID}.desktop").exists()

    gone = _notch(home, "uninstall")
    assert gone.returncode == 0, gone.stderr
    assert not link.is_symlink() and not unit.exists()
    assert not (home / ".local/share/applications" / f"{APP_ID}.desktop").exists()
    assert "Notch no longer starts at login" in gone.stdout


def test_a_unit_command_line_keeps_spaces_quotes_dollars_and_percents() -> None:
    argv = ["/opt/My Apps/notch", "run", "--theme", '50% \\ "dark"', "$HOME", "a;b"]
    unit = f"[Service]\nExecStart={unit_exec(argv)}\n"
    assert _unit_argv(unit) == argv
    assert "$$HOME" in unit and "50%%" in unit
