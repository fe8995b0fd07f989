"""An MCP client starts `notch mcp` without DBUS_SESSION_BUS_ADDRESS; Notch still reaches
the person's session bus (and so the Secret Service keyring) at `$XDG_RUNTIME_DIR/bus` or
`/run/user/<uid>/bus`, and only when it is a socket of this user's own.

Real: a real `dbus-daemon` listens in a temporary runtime folder, the lookup runs in a
process whose environment is the MCP SDK's `get_default_environment()`, and jeepney (the
library keyring reaches the Secret Service with) connects and asks the bus its id. The
key itself is read through the real keyring library from a small Secret Service on that
bus (no gnome-keyring is installed here): by `integration_environment` (what `notch mcp`
calls while its server starts), and by the real `notch mcp` under the SDK's stdio client,
which hands it to the wrapped server. `/run/user` needs root to make and is shared by
everyone on the machine, so its case passes the lookup another root (`run_user`)."""

from __future__ import annotations

import json
import os
import select
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jeepney import HeaderFields, MessageType, new_error, new_method_return
from jeepney.bus_messages import message_bus
from jeepney.io.blocking import DBusConnection, open_dbus_connection

from notch_app.runtime.session_bus import (
    BUS_VARIABLE,
    bus_address,
    find_session_bus,
    is_own_socket,
    reach_session_bus,
)

# The MCP SDK is imported where a test uses it: importing `mcp` costs ~0.8 s in every
# worker's collection (tests/test_test_habits.py keeps it so).

DBUS_DAEMON = shutil.which("dbus-daemon")
needs_dbus = pytest.mark.skipif(DBUS_DAEMON is None, reason="dbus-daemon is not installed")
REPO = Path(__file__).resolve().parents[2]
MAIL = "com.example.mail"
KEY = "sk-test-1234"

# In a child with the SDK's environment: fill the bus in as Notch does, then ask the bus
# its id through jeepney, as keyring's Secret Service backend would reach it.
ASK_THE_BUS = """
import json, os, sys
from pathlib import Path
from jeepney import DBusAddress, new_method_call
from jeepney.io.blocking import open_dbus_connection
from notch_app.runtime.session_bus import reach_session_bus
before = os.environ.get("DBUS_SESSION_BUS_ADDRESS")
root = sys.argv[1] if len(sys.argv) > 1 else None
set_to = reach_session_bus() if root is None else reach_session_bus(run_user=Path(root))
bus = DBusAddress("/org/freedesktop/DBus", "org.freedesktop.DBus", "org.freedesktop.DBus")
with open_dbus_connection(bus="SESSION") as conn:
    bus_id = conn.send_and_get_reply(new_method_call(bus, "GetId")).body[0]
    daemon = conn.send_and_get_reply(new_method_call(
        bus, "GetConnectionUnixProcessID", "s", ("org.freedesktop.DBus",))).body[0]
print(json.dumps({"before": before, "set": set_to, "id": bus_id, "daemon": daemon,
                  "name": conn.unique_name}))
"""

# In a child with the SDK's environment: what `notch mcp` hands its server (secrets too).
READ_THE_KEY = """
import json, sys
from notch_app.runtime.secrets import MissingSecret, integration_environment
auth = {"fields": [{"key": "MAIL_API_KEY", "secret": True, "required": True}]}
try:
    env = integration_environment(sys.argv[2], auth, None, settings_path=sys.argv[1])
except MissingSecret as exc:
    env = {"missing": str(exc)}
print(json.dumps(env))
"""


@pytest.fixture
def runtime() -> Iterator[Path]:
    """A runtime folder of this user's alone (0700), with a short path."""
    with tempfile.TemporaryDirectory(prefix="notch-rt") as name:
        os.chmod(name, 0o700)
        yield Path(name)


class SessionBus:
    """A real `dbus-daemon --session` listening at `<folder>/bus`."""

    def __init__(self, folder: Path) -> None:
        assert DBUS_DAEMON is not None
        self.path = folder / "bus"
        self.process = subprocess.Popen(
            [DBUS_DAEMON, "--session", "--nofork", "--print-address",
             f"--address=unix:path={self.path}"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        assert self.process.stdout is not None
        # It prints its address once it listens; wait for that line with a deadline.
        ready, _, _ = select.select([self.process.stdout], [], [], 30)
        assert ready, "dbus-daemon did not start within 30 s"
        self.address = self.process.stdout.readline().decode().strip()
        assert self.address.startswith("unix:path="), self.address

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


@pytest.fixture
def bus(runtime: Path) -> Iterator[SessionBus]:
    started = SessionBus(runtime)
    yield started
    started.stop()


def client_environment(**extra: str) -> dict[str, str]:
    """What an MCP client starts `notch mcp` with (never the bus address), plus `extra`."""
    from mcp.client.stdio import get_default_environment

    env = get_default_environment()
    assert BUS_VARIABLE not in env and "XDG_RUNTIME_DIR" not in env
    env["PYTHONPATH"] = str(REPO)
    env.update(extra)
    return env


def run_child(code: str, env: dict[str, str], *args: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


# --- the bus is found, and jeepney reaches it ------------------------------------------


@needs_dbus
def test_bus_in_xdg_runtime_dir_is_reached_without_its_address(bus: SessionBus) -> None:
    env = client_environment(XDG_RUNTIME_DIR=str(bus.path.parent))
    said = run_child(ASK_THE_BUS, env)
    assert said["before"] is None
    assert said["set"] == f"unix:path={bus.path}"
    assert said["name"].startswith(":")  # the daemon's Hello answered
    assert len(said["id"]) == 32  # GetId answered
    assert said["daemon"] == bus.process.pid  # this very daemon, not another bus


@needs_dbus
def test_bus_in_run_user_is_reached_with_no_runtime_variable(bus: SessionBus) -> None:
    # `/run/user/<uid>` simulated: <root>/<uid> is the runtime folder, its bus inside.
    with tempfile.TemporaryDirectory(prefix="notch-ru") as root:
        folder = Path(root) / str(os.getuid())
        folder.symlink_to(bus.path.parent)  # a symlinked runtime folder is refused
        env = client_environment()
        done = subprocess.run(
            [sys.executable, "-c", ASK_THE_BUS, root],
            env=env, capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        assert done.returncode != 0 and "DBUS_SESSION_BUS_ADDRESS" in done.stderr
        folder.unlink()
        folder.mkdir(mode=0o700)
        os.chmod(folder, 0o700)
        (folder / "bus").symlink_to(bus.path)  # a symlinked bus socket is refused too
        assert find_session_bus({}, run_user=Path(root)) is None
        (folder / "bus").unlink()
        os.rename(bus.path, folder / "bus")  # the daemon's socket, moved to <root>/<uid>
        said = run_child(ASK_THE_BUS, env, root)
    assert said["set"] == f"unix:path={folder / 'bus'}"
    assert said["daemon"] == bus.process.pid


@needs_dbus
def test_an_address_already_set_is_left_alone(bus: SessionBus) -> None:
    env = {BUS_VARIABLE: "unix:path=/elsewhere/bus", "XDG_RUNTIME_DIR": str(bus.path.parent)}
    assert reach_session_bus(env) is None
    assert env[BUS_VARIABLE] == "unix:path=/elsewhere/bus"


def test_nothing_is_set_where_there_is_no_bus(runtime: Path) -> None:
    env = {"XDG_RUNTIME_DIR": str(runtime)}
    assert reach_session_bus(env, run_user=runtime / "none") is None
    assert BUS_VARIABLE not in env


# --- what an attacker could put there is not used ----------------------------------------


def test_a_plain_file_at_the_bus_path_is_not_used(runtime: Path) -> None:
    (runtime / "bus").write_text("not a socket")
    env = {"XDG_RUNTIME_DIR": str(runtime)}
    assert reach_session_bus(env, run_user=runtime / "none") is None
    assert BUS_VARIABLE not in env


def test_another_users_socket_is_not_used(runtime: Path) -> None:
    listening = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listening.bind(str(runtime / "bus"))
    try:
        info = os.lstat(runtime / "bus")
        assert is_own_socket(info, os.getuid())
        assert not is_own_socket(info, os.getuid() + 1)  # the check reads the owner
        if os.getuid() != 0:
            pytest.skip("making a socket another user owns needs root; the check is above")
        os.chown(runtime / "bus", 65534, 65534, follow_symlinks=False)  # nobody's socket
        env = {"XDG_RUNTIME_DIR": str(runtime)}
        assert reach_session_bus(env, run_user=runtime / "none") is None
        assert BUS_VARIABLE not in env
    finally:
        listening.close()


def test_a_run_user_folder_of_another_user_is_not_used(runtime: Path) -> None:
    folder = runtime / str(os.getuid())
    folder.mkdir(mode=0o755)
    os.chmod(folder, 0o755)  # open to others: not this user's alone
    listening = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listening.bind(str(folder / "bus"))
    try:
        assert find_session_bus({}, run_user=runtime) is None
        os.chmod(folder, 0o700)
        assert find_session_bus({}, run_user=runtime) == folder / "bus"
    finally:
        listening.close()


def test_the_address_escapes_what_d_bus_addresses_escape() -> None:
    assert bus_address(Path("/run/user/1000/bus")) == "unix:path=/run/user/1000/bus"
    assert bus_address(Path("/tmp/a b,c=d;é/bus")) == ("unix:path=/tmp/a%20b%2cc%3dd%3b%c3%a9/bus")
    from jeepney.bus import get_connectable_addresses

    assert next(get_connectable_addresses(bus_address(Path("/tmp/a b,c=d;é/bus")))) == (
        "/tmp/a b,c=d;\xc3\xa9/bus"  # jeepney reads bytes back one %XX at a time
    )


# --- the key in the keyring reaches the integration's server -----------------------------

SECRET_SERVICE = "org.freedesktop.secrets"
ITEM = "/org/freedesktop/secrets/collection/login/1"
SESSION = "/org/freedesktop/secrets/session/1"


class SecretService:
    """The part of the Secret Service API (what gnome-keyring serves) that keyring's
    `get_password` uses: one unlocked collection holding `items` ((service, username) to
    secret), plain sessions only. Serves on its own thread until `stop`."""

    def __init__(
        self, address: str, items: dict[tuple[str, str], str], *, unlocks: bool = True
    ) -> None:
        self.items = items
        self.unlocks = unlocks
        self.conn: DBusConnection = open_dbus_connection(address)
        bus = message_bus
        reply = self.conn.send_and_get_reply(bus.RequestName(SECRET_SERVICE, 4), timeout=10)
        assert reply.body == (1,), reply.body  # primary owner
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                msg = self.conn.receive(timeout=0.2)
            except TimeoutError:
                continue
            except OSError:
                return
            if msg.header.message_type == MessageType.method_call:
                self.conn.send(self._answer(msg))

    def _answer(self, msg: Any) -> Any:
        fields = msg.header.fields
        member = (fields.get(HeaderFields.interface), fields.get(HeaderFields.member))
        if member == ("org.freedesktop.DBus.Properties", "Get"):
            _iface, prop = msg.body
            value = {"Label": ("s", "Login"), "Locked": ("b", False)}.get(prop)
            if value is not None:
                return new_method_return(msg, "v", (value,))
        elif member == ("org.freedesktop.Secret.Collection", "SearchItems"):
            (wanted,) = msg.body
            key = (wanted.get("service"), wanted.get("username"))
            return new_method_return(msg, "ao", ([ITEM] if key in self.items else [],))
        elif member == ("org.freedesktop.Secret.Service", "OpenSession"):
            if msg.body[0] == "plain":
                return new_method_return(msg, "vo", (("s", ""), SESSION))
            return new_error(msg, "org.freedesktop.DBus.Error.NotSupported")
        elif member == ("org.freedesktop.Secret.Service", "Unlock") and self.unlocks:
            return new_method_return(msg, "aoo", (msg.body[0], "/"))  # no prompt needed
        elif member == ("org.freedesktop.Secret.Item", "GetSecret"):
            secret = next(iter(self.items.values())).encode()
            return new_method_return(msg, "(oayays)", ((SESSION, b"", secret, "text/plain"),))
        return new_error(msg, "org.freedesktop.DBus.Error.UnknownMethod")

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)
        self.conn.close()


@needs_dbus
def test_the_servers_environment_gets_the_key_without_the_bus_address(
    bus: SessionBus, runtime: Path
) -> None:
    service = SecretService(bus.address, {(f"notch:{MAIL}", "MAIL_API_KEY"): KEY})
    try:
        with tempfile.TemporaryDirectory(prefix="notch-h") as home:
            env = client_environment(XDG_RUNTIME_DIR=str(runtime), HOME=home)
            settings = str(Path(home) / "notch-settings.json")
            assert run_child(READ_THE_KEY, env, settings, MAIL) == {"MAIL_API_KEY": KEY}
            # The same child with nowhere to find the bus: what it did before the fix.
            (runtime / "hidden").mkdir()
            os.rename(bus.path, runtime / "hidden" / "bus")
            said = run_child(READ_THE_KEY, env, settings, MAIL)
            os.rename(runtime / "hidden" / "bus", bus.path)
    finally:
        service.stop()
    assert "MAIL_API_KEY" not in said and "keyring" in said["missing"].lower()


LOCKED = REPO / "tests" / "fixtures" / "mcp_servers" / "locked"
"""Notes behind a required secret, NOTES_TOKEN; its get_status says the token it got."""


async def _status_through_notch_mcp(env: dict[str, str], data_dir: Path, log: Path) -> Any:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "notch_app", "mcp", str(LOCKED), "--socket", str(data_dir / "no.sock"),
              "--data-dir", str(data_dir)],
        env=env, cwd=str(REPO),
    )  # fmt: skip  # env: merged over the SDK's default environment, as clients do
    with log.open("a") as err:
        async with stdio_client(params, err) as (r, w), ClientSession(r, w) as client:
            await client.initialize()
            return await client.call_tool("get_status", {})


@needs_dbus
@pytest.mark.asyncio
async def test_notch_mcp_hands_its_server_the_key_from_the_keyring(
    bus: SessionBus, tmp_path: Path
) -> None:
    service = SecretService(bus.address, {("notch:dev.notch.fixtures.locked", "NOTES_TOKEN"): KEY})
    home = tmp_path / "home"
    home.mkdir()
    env = {
        "HOME": str(home),
        "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}",
        "XDG_RUNTIME_DIR": str(bus.path.parent),  # what a desktop client has; no bus address
    }
    try:
        found = await _status_through_notch_mcp(env, tmp_path / "data", tmp_path / "gw.log")
        # Nowhere to find the bus: how every client's `notch mcp` ran before.
        hidden = bus.path.parent / "hidden"
        hidden.mkdir()
        os.rename(bus.path, hidden / "bus")
        lost = await _status_through_notch_mcp(env, tmp_path / "data", tmp_path / "gw.log")
    finally:
        service.stop()
    assert not found.is_error, found.content
    assert found.structured_content["token"] == KEY
    assert lost.is_error and "NOTES_TOKEN" in lost.content[0].text


@needs_dbus
@pytest.mark.asyncio
async def test_a_keyring_that_fails_midway_is_a_tool_error_not_a_traceback(
    bus: SessionBus, tmp_path: Path
) -> None:
    # The keyring answers, then refuses what secretstorage asks next (its own exception,
    # not one of keyring's): the call says the keyring failed and names the field.
    service = SecretService(
        bus.address, {("notch:dev.notch.fixtures.locked", "NOTES_TOKEN"): KEY}, unlocks=False
    )
    home = tmp_path / "home"
    home.mkdir()
    env = {
        "HOME": str(home),
        "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}",
        "XDG_RUNTIME_DIR": str(bus.path.parent),
    }
    try:
        result = await _status_through_notch_mcp(env, tmp_path / "data", tmp_path / "gw.log")
    finally:
        service.stop()
    said = result.content[0].text
    assert result.is_error, said
    assert "NOTES_TOKEN" in said and "keyring could not read" in said, said
    assert "Traceback" not in (tmp_path / "gw.log").read_text()
