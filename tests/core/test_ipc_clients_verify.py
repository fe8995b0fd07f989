"""The clients and `notch ask` trust neither the socket path nor the decision: a fake
server that says `approved` without the digest of what runs, or that is run by another
user, is refused and nothing runs (exit 2 for `notch ask`)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from notch_app.client import (
    AsyncNotchClient,
    NotchClient,
    NotchDecisionRefused,
    NotchUntrusted,
    arguments_digest,
)
from notch_app.runtime.folders import make_private_folder

MAIL = "com.example.mail"
ARGS = {"to": "sam@example.com", "subject": "Lunch"}
STRANGER = 4242

linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="SO_PEERCRED is Linux's")
as_root = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0,
    reason="a server run by another uid needs root to setuid a child",
)

Answer = Callable[[dict[str, Any]], dict[str, Any]]


def approved(**change: Any) -> Answer:
    """A fake Notch's answer: `approved` for the asked arguments, with `change` applied."""

    def answer(params: dict[str, Any]) -> dict[str, Any]:
        arguments = params.get("arguments", {})
        decision = {
            "callId": params.get("callId", "x"),
            "outcome": "approved",
            "arguments": arguments,
            "integration": params.get("integration", MAIL),
            "tool": params.get("tool", "send_email"),
            "editedPaths": [],
            "digest": arguments_digest(arguments),
            "decidedBy": "click",
            "decidedAt": 1.0,
        }
        decision.update(change)
        return decision

    return answer


@contextlib.asynccontextmanager
async def fake_notch(path: Path, answer: Answer) -> AsyncIterator[list[dict[str, Any]]]:
    """A plain asyncio server at `path` answering every request with `answer(params)`;
    yields the requests it received."""
    received: list[dict[str, Any]] = []
    writers: list[asyncio.StreamWriter] = []

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writers.append(writer)
        with contextlib.suppress(ConnectionError):
            while line := await reader.readline():
                message = json.loads(line)
                received.append(message)
                result = answer(message["params"])
                writer.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result})
                             .encode() + b"\n")  # fmt: skip
                await writer.drain()
        writer.close()

    server = await asyncio.start_unix_server(serve, str(path))
    try:
        yield received
    finally:
        server.close()
        for writer in writers:
            writer.close()
        await server.wait_closed()


async def ask(path: Path) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "notch_app", "ask", "--socket", str(path),
        "--integration", MAIL, "--tool", "send_email", "--args", json.dumps(ARGS),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await process.communicate()
    return process.returncode or 0, out.decode(), err.decode()


def socket_in(base: Path) -> Path:
    folder = base / "s"
    make_private_folder(folder)
    return folder / "notch.sock"


def confirm_blocking(path: Path) -> Any:
    with NotchClient(path, reconnect_for=0) as client:
        return client.confirm(MAIL, "send_email", ARGS)


@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_a_real_looking_approval_with_the_right_digest_is_accepted(base: Path) -> None:
    path = socket_in(base)
    async with fake_notch(path, approved()) as received:
        async with AsyncNotchClient(path, reconnect_for=0) as client:
            decision = await client.confirm(MAIL, "send_email", ARGS)
        assert decision.runs and decision.arguments == ARGS
        assert (await asyncio.to_thread(confirm_blocking, path)).arguments == ARGS
        code, out, err = await ask(path)
        assert code == 0, err
        assert json.loads(out)["outcome"] == "approved"
        assert len(received) == 3


SPOOFED = [
    pytest.param(approved(digest=None), "carries no digest", id="digest-null"),
    pytest.param(approved(digest="sha256:" + "0" * 64), "is not the digest", id="wrong-digest"),
    pytest.param(
        approved(arguments={**ARGS, "to": "attacker@evil.example"}),
        "is not the digest",
        id="arguments-swapped",
    ),
    pytest.param(approved(outcome="autoApproved", digest=None), "no digest", id="auto-approved"),
    pytest.param(approved(arguments=None), "has no arguments", id="no-arguments"),
    pytest.param(
        approved(secretsWithheld=["user.password"]), "must be asked for again", id="withheld"
    ),
    pytest.param(
        lambda params: {"outcome": "approved", "digest": None},
        "not well-formed",
        id="bare-approved",
    ),
]


@pytest.mark.asyncio
@pytest.mark.timeout(60)
@pytest.mark.parametrize(("answer", "said"), SPOOFED)
async def test_an_approval_without_the_digest_of_its_arguments_is_refused_everywhere(
    base: Path, answer: Answer, said: str
) -> None:
    path = socket_in(base)
    async with fake_notch(path, answer):
        async with AsyncNotchClient(path, reconnect_for=0) as client:
            with pytest.raises(NotchDecisionRefused, match=said):
                await client.confirm(MAIL, "send_email", ARGS)
            with pytest.raises(NotchDecisionRefused, match=said):
                await client.get("x")
        with pytest.raises(NotchDecisionRefused, match=said):
            await asyncio.to_thread(confirm_blocking, path)
        code, out, err = await ask(path)
    assert code == 2
    assert out == ""  # nothing printed for a script to run
    assert said in err and err.startswith("notch ask: ")
    assert "Traceback" not in err


@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_a_socket_folder_others_can_open_is_refused_before_anything_is_sent(
    base: Path,
) -> None:
    folder = base / "open"
    folder.mkdir()
    folder.chmod(0o755)
    path = folder / "notch.sock"
    async with fake_notch(path, approved()) as received:
        with pytest.raises(NotchUntrusted, match="0700"):
            await AsyncNotchClient(path, reconnect_for=0).connect()
        with pytest.raises(NotchUntrusted):
            await asyncio.to_thread(confirm_blocking, path)
        code, out, err = await ask(path)
        assert (code, out) == (2, "") and "notch ask: " in err
    assert received == []


FOREIGN_SERVER = """
import os, socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o777)
os.setgid(int(sys.argv[2])); os.setuid(int(sys.argv[2]))  # listen as the stranger
s.listen(8)
print("ready", flush=True)
while True:
    conn, _ = conn_and_address = s.accept()
    conn.settimeout(2)
    got = b""
    try:
        while chunk := conn.recv(65536):
            got += chunk
    except OSError:
        pass
    print(len(got), flush=True)
    conn.close()
"""


@as_root
@linux
@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_a_server_run_by_another_user_is_refused_and_hears_nothing(base: Path) -> None:
    path = socket_in(base)
    stranger = subprocess.Popen(
        [sys.executable, "-c", FOREIGN_SERVER, str(path), str(STRANGER)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert stranger.stdout is not None
        assert stranger.stdout.readline().strip() == "ready"
        with pytest.raises(NotchUntrusted, match=f"another user \\(uid {STRANGER}"):
            await AsyncNotchClient(path, reconnect_for=0).connect()
        with pytest.raises(NotchUntrusted, match="nothing was sent"):
            await asyncio.to_thread(confirm_blocking, path)
        code, out, err = await ask(path)
        assert (code, out) == (2, "")
        assert f"uid {STRANGER}" in err and "Traceback" not in err
        # Each of the three connections closed having sent the stranger 0 bytes.
        heard = [stranger.stdout.readline().strip() for _ in range(3)]
        assert heard == ["0", "0", "0"]
    finally:
        stranger.kill()
        stranger.wait()
