"""Every client finds the running Notch with only what an MCP client passes on (HOME,
USER, PATH…): `notch run` notes where it listens in ~/.local/state/notch, the clients
look in a fixed order, and a note is believed only from this user's own private folder.
A client that finds nothing names every place it looked at.

The clients here are the real ones (`AsyncNotchClient`, `NotchClient`, `notch ask`),
each in a process whose environment is the MCP SDK's `get_default_environment()`."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from notch_app.client import AsyncNotchClient, NotchClient, NotchNotRunning
from notch_app.ipc.address import (
    NOTE_NAME,
    find_socket,
    leave_note,
    note_folder,
    read_note,
    take_note_back,
)

# The MCP SDK is imported where a test uses it: importing `mcp` costs ~0.8 s in every
# worker's collection (tests/test_test_habits.py keeps it so).

MAIL = "com.example.mail"
FALLBACK = Path(tempfile.gettempdir()) / f"notch-{os.getuid()}" / "notch.sock"
"""Where Notch listens with no runtime folder at all (`$TMPDIR` or /tmp)."""


@pytest.fixture
def home(base: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A HOME of the test's own, with none of the variables that choose a socket: what a
    client started by an MCP client has."""
    folder = base / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    for name in ("XDG_RUNTIME_DIR", "NOTCH_SOCKET", "TMPDIR"):
        monkeypatch.delenv(name, raising=False)
    return folder


def client_env() -> dict[str, str]:
    """Exactly what the MCP SDK gives a server it starts (the venv's python is run by
    path, so PATH needs nothing more)."""
    from mcp.client.stdio import get_default_environment

    return get_default_environment()


def test_the_search_order_and_what_each_place_held(base: Path, home: Path) -> None:
    runtime = base / "run"
    runtime.mkdir(mode=0o700)
    env = {"HOME": str(home), "XDG_RUNTIME_DIR": str(runtime)}
    found = find_socket(env)
    assert found.path == runtime / "notch" / "notch.sock"  # nothing anywhere: the first
    places = [place.split(" ")[0] for place in found.looked]
    note = str(home / ".local/state/notch" / NOTE_NAME)
    # (/run/user/<uid>/notch/notch.sock comes second where that folder is this user's)
    assert places[0] == str(runtime / "notch" / "notch.sock")
    assert places[-2:] == [note, str(FALLBACK)]
    assert "$XDG_RUNTIME_DIR: nothing there" in found.looked[0]
    assert "Notch's note: absent" in found.looked[-2]
    # NOTCH_SOCKET wins, and nothing else is looked at.
    only = find_socket({**env, "NOTCH_SOCKET": str(base / "x.sock")})
    assert only.path == base / "x.sock" and len(only.looked) == 1


@pytest.mark.asyncio
async def test_a_bare_client_finds_notch_by_its_note(
    base: Path, home: Path, running_notch: Any
) -> None:
    async with running_notch(base) as (notch, _cards):
        socket_path = notch.server.path
        assert find_socket().path != socket_path  # not where a bare client looks first
        assert leave_note(socket_path) == home / ".local/state/notch" / NOTE_NAME
        assert find_socket().path == socket_path
        async with AsyncNotchClient() as client:  # no path: it looks
            assert (await client.confirm(MAIL, "search_mail", {})).outcome == "notRequired"
        # `notch ask` (a process of its own) under an MCP client's environment.
        ask = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "notch_app", "ask", "--integration", MAIL,
            "--tool", "search_mail", env=client_env(),
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        out, err = await asyncio.wait_for(ask.communicate(), 60)
        assert ask.returncode == 0, err.decode()
        assert json.loads(out)["outcome"] == "notRequired"
        take_note_back(socket_path)
        assert not (home / ".local/state/notch" / NOTE_NAME).exists()


@pytest.mark.asyncio
async def test_a_client_made_before_notch_starts_finds_it_when_it_connects(
    base: Path, home: Path, running_notch: Any
) -> None:
    client = NotchClient(reconnect_for=0.0)
    with pytest.raises(NotchNotRunning):
        client.connect()
    async with running_notch(base) as (notch, _cards):
        leave_note(notch.server.path)
        client.connect()  # the same client, looking again
        assert client.socket_path == notch.server.path
        client.close()


def test_nothing_found_names_every_place_looked_at(base: Path, home: Path) -> None:
    with NotchClient(reconnect_for=0.0) as client, pytest.raises(NotchNotRunning) as caught:
        client.connect()
    message = str(caught.value)
    assert message.startswith("no Notch is running: looked at ")
    assert str(home / ".local/state/notch" / NOTE_NAME) in message
    assert str(FALLBACK) in message
    assert "notch run" in message and "NOTCH_SOCKET" in message


def test_a_note_nobody_else_may_write_is_the_only_one_believed(base: Path, home: Path) -> None:
    elsewhere = base / "fake" / "notch.sock"
    folder = note_folder()
    note = leave_note(elsewhere)
    assert note is not None and note.parent == folder
    assert os.stat(folder).st_mode & 0o777 == 0o700
    assert os.stat(note).st_mode & 0o077 == 0
    assert read_note(note)[0] == elsewhere
    # Writable by others: another user could point every client at their own server.
    os.chmod(note, 0o622)
    assert read_note(note) == (None, "not trusted: another user's, or writable by others")
    os.chmod(note, 0o600)
    # A folder open to others: its file could be swapped.
    os.chmod(folder, 0o777)
    named, said = read_note(note)
    assert named is None and said.startswith("not trusted:")
    os.chmod(folder, 0o700)
    # A symlink in the note's place is never followed.
    real = base / "planted.json"
    real.write_text(json.dumps({"socket": str(elsewhere)}))
    note.unlink()
    note.symlink_to(real)
    named, said = read_note(note)
    assert named is None and said.startswith("not trusted:")
    note.unlink()
    # Garbage, or a relative path, names nothing.
    note.write_text("{not json")
    assert read_note(note)[0] is None
    note.write_text(json.dumps({"socket": "relative.sock"}))
    assert read_note(note)[0] is None


@pytest.mark.asyncio
async def test_a_noted_socket_still_has_to_pass_the_folder_check(
    base: Path, home: Path, running_notch: Any
) -> None:
    """The note says where, never whom to trust: a socket in a folder open to others is
    refused by the client, as if it had been given the path."""
    async with running_notch(base) as (notch, _cards):
        leave_note(notch.server.path)
        os.chmod(notch.server.path.parent, 0o755)
        try:
            with NotchClient(reconnect_for=0.0) as client, pytest.raises(Exception) as caught:
                client.connect()
            assert "open to other users" in str(caught.value)
        finally:
            os.chmod(notch.server.path.parent, 0o700)
