"""The socket folder and data dirs are the user's alone (issue 9, findings 2 and 10).

Attacks reproduced on the old code: another local user who controls the fallback folder
(`$TMPDIR/notch-<uid>`, reached through a symlink Notch followed) put a fake server there;
Notch started as root chmodded a shared folder reached through such a symlink to 0700;
`notch policy` made a new data dir 0755. Tests that need a second uid use an unused
numeric uid (chown / setuid as root: no account is needed); without root they are
skipped, saying so.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from notch_app.headless import start
from notch_app.ipc.address import SocketError, claim_socket_path
from notch_app.ipc.peer import UntrustedServer, peer_uid, verify_server, verify_socket_folder
from notch_app.runtime.folders import make_data_dir, make_private_folder
from notch_app.runtime.store import DecisionStore, StoreError

STRANGER = 4242  # a uid no test account uses
as_root = pytest.mark.skipif(
    not hasattr(os, "getuid") or os.getuid() != 0,
    reason="needs root to make a folder or process of another uid (CI runs as root)",
)
linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="SO_PEERCRED is Linux")


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


@contextlib.contextmanager
def umask(value: int) -> Iterator[None]:
    old = os.umask(value)
    try:
        yield
    finally:
        os.umask(old)


def test_a_symlinked_socket_folder_is_refused_and_what_it_points_to_is_untouched(
    base: Path,
) -> None:
    shared = base / "shared"
    shared.mkdir()
    shared.chmod(0o777)  # a folder anyone can write, as /tmp is
    if os.getuid() == 0:
        os.chown(shared, STRANGER, STRANGER)  # the attacker's, when the test can say so
    fallback = base / f"notch-{os.getuid()}"
    fallback.symlink_to(shared)
    with pytest.raises(SocketError) as refused:
        claim_socket_path(fallback / "notch.sock")
    assert "symbolic link" in str(refused.value) and f"rm {fallback}" in str(refused.value)
    assert "--socket" in str(refused.value)
    # Never chmodded (the old code made it 0700 as root), never written into.
    assert mode(shared) == 0o777 and list(shared.iterdir()) == []
    with pytest.raises(UntrustedServer, match="symbolic link"):
        verify_socket_folder(fallback / "notch.sock")  # what a client checks


@pytest.mark.asyncio
async def test_notch_does_not_start_on_a_symlinked_socket_folder(base: Path) -> None:
    shared = base / "shared"
    shared.mkdir(mode=0o700)
    (base / "s").symlink_to(shared)
    with pytest.raises(SocketError, match="symbolic link"):
        await start(base / "s" / "notch.sock", base / "data")
    assert list(shared.iterdir()) == []


def test_a_socket_folder_open_to_others_is_refused_not_chmodded(base: Path) -> None:
    folder = base / "open"
    folder.mkdir()
    folder.chmod(0o755)
    with pytest.raises(SocketError) as refused:
        claim_socket_path(folder / "notch.sock")
    assert "open to other users (mode 0755)" in str(refused.value)
    assert f"chmod 700 {folder}" in str(refused.value)
    assert mode(folder) == 0o755


@as_root
def test_a_socket_folder_of_another_user_is_refused_and_left_alone(base: Path) -> None:
    folder = base / "theirs"
    folder.mkdir(mode=0o700)
    os.chown(folder, STRANGER, STRANGER)
    with pytest.raises(SocketError, match=f"belongs to another user \\(uid {STRANGER}"):
        claim_socket_path(folder / "notch.sock")
    info = os.lstat(folder)
    assert (info.st_uid, stat.S_IMODE(info.st_mode)) == (STRANGER, 0o700)
    with pytest.raises(UntrustedServer, match="another user"):
        verify_socket_folder(folder / "notch.sock")


@pytest.mark.parametrize("mask", [0o000, 0o022, 0o277])
def test_the_socket_folder_is_0700_before_anything_is_bound_whatever_the_umask(
    base: Path, mask: int
) -> None:
    path = base / "deep" / "s" / "notch.sock"
    with umask(mask):
        claim_socket_path(path)  # what the server runs right before bind
    assert mode(base / "deep" / "s") == 0o700 and mode(base / "deep") == 0o700
    assert not path.exists()


@pytest.mark.asyncio
async def test_under_umask_000_the_socket_is_owner_only_from_the_start(
    base: Path, running_notch: Any
) -> None:
    with umask(0o000):
        async with running_notch(base) as (notch, _):
            path = notch.server.path
            assert mode(path.parent) == 0o700 and mode(path) == 0o600
            if os.getuid() == 0:
                # A stranger cannot even reach the socket: the folder stops them.
                assert stranger_connects(path) == "EACCES"


def stranger_connects(path: Path) -> str:
    """Try to connect to `path` from a child process running as STRANGER (root only)."""
    pid = os.fork()
    if pid == 0:  # the child: become the stranger, try, report by exit code
        code = 3
        try:
            os.setgid(STRANGER)
            os.setuid(STRANGER)
            with socket.socket(socket.AF_UNIX) as probe:
                probe.connect(str(path))
            code = 0
        except PermissionError:
            code = 1
        except BaseException:
            code = 2
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return {0: "CONNECTED", 1: "EACCES"}.get(os.waitstatus_to_exitcode(status), "ERROR")


@linux
@pytest.mark.asyncio
async def test_a_client_accepts_its_own_users_notch(base: Path, running_notch: Any) -> None:
    async with running_notch(base) as (notch, _):
        _reader, writer = await asyncio.open_unix_connection(str(notch.server.path))
        try:
            sock = writer.get_extra_info("socket")
            assert peer_uid(sock) == os.getuid()
            verify_server(sock, notch.server.path)  # does not raise
        finally:
            writer.close()


FAKE_SERVER = """
import os, socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o777)
os.setgid(int(sys.argv[2])); os.setuid(int(sys.argv[2]))  # listen as the stranger
s.listen(1)
print("ready", flush=True)
conn, _ = s.accept()
conn.sendall(b'{"jsonrpc":"2.0","id":1,"result":{"outcome":"approved","digest":null}}\\n')
conn.recv(1)
"""


@as_root
@linux
def test_a_fake_server_run_by_another_user_is_refused_before_anything_is_sent(
    base: Path,
) -> None:
    folder = base / "s"
    make_private_folder(folder)
    path = folder / "notch.sock"
    fake = subprocess.Popen(
        [sys.executable, "-c", FAKE_SERVER, str(path), str(STRANGER)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert fake.stdout is not None and fake.stdout.readline().strip() == "ready"
        with socket.socket(socket.AF_UNIX) as sock:
            sock.connect(str(path))
            assert peer_uid(sock) == STRANGER
            with pytest.raises(UntrustedServer) as refused:
                verify_server(sock, path)
        assert f"another user (uid {STRANGER}" in str(refused.value)
        assert "nothing was sent" in str(refused.value)
    finally:
        fake.kill()
        fake.wait()


def test_notch_policy_makes_a_new_data_dir_0700(tmp_path: Path) -> None:
    data = tmp_path / "fresh" / "data"
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    env.pop("NOTCH_DATA_DIR", None)
    done = subprocess.run(
        [sys.executable, "-c", "import os, sys; os.umask(0o022); from notch_app.cli import main;"
         " sys.exit(main(sys.argv[1:]))", "policy", "set", "dev.notch.examples.mail",
         "send_email", "--asks-first", "off", "--data-dir", str(data)],
        capture_output=True, text=True, env=env, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert mode(data) == 0o700 and mode(data.parent) == 0o700


def test_the_store_makes_its_data_dir_0700_and_refuses_one_others_can_write(
    tmp_path: Path,
) -> None:
    with umask(0o000):
        DecisionStore(tmp_path / "a" / "data").close()
    assert mode(tmp_path / "a" / "data") == 0o700
    assert mode(tmp_path / "a" / "data" / "notch.sqlite3") == 0o600
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    with pytest.raises(StoreError, match="writable by other users"):
        DecisionStore(shared)
    assert mode(shared) == 0o777 and not (shared / "notch.sqlite3").exists()


def test_an_existing_data_dir_is_never_chmodded(tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    mine.chmod(0o750)  # the person's choice; the files in it are 0600 anyway
    assert make_data_dir(mine) == mine
    assert mode(mine) == 0o750
