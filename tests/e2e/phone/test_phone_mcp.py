"""A person's answer on the phone page reaches a real agent through `notch mcp`: the real
`notch run` on an X server (its phone page turned on with `notch phone on`, paired with
the URL `notch phone pair` prints), the SDK's own stdio MCP client calling a tool of the
notes fixture server through `notch mcp`, and Debian's Chromium at a phone's size
pressing Approve. The desktop card goes ("Answered on Pixel 8") and `notch log` records
the phone."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from notch_app.phone.devices import phone_folder

if TYPE_CHECKING:
    import mcp_types as types

# The MCP SDK is imported where a test uses it: importing `mcp` costs ~0.8 s in every
# worker's collection (tests/test_test_habits.py keeps it so). So is the phone's TLS,
# which imports cryptography (~0.17 s; Notch itself loads it only when the page starts).

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[3]
NOTES = REPO / "tests" / "fixtures" / "mcp_servers" / "notes"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _notch(notch_argv: list[str], *words: str) -> str:
    done = subprocess.run(
        [*notch_argv, *words], capture_output=True, text=True, timeout=60, cwd=REPO
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.asyncio
@pytest.mark.timeout(180)
async def test_an_approval_on_the_phone_reaches_the_agent_through_notch_mcp(
    tmp_path: Path,
    xserver: Any,
    notch_env: dict[str, Path],
    start_notch: Any,
    notch_argv: list[str],
    phone_browser: Any,
    wait_js: Any,
) -> None:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    from notch_app.phone.tls import certificate

    data = notch_env["data_dir"]
    port = _free_port()
    # On this computer alone: the browser here is the "phone" (the default is the
    # computer's local-network address, phone/addresses.py).
    _notch(notch_argv, "phone", "on", "--port", str(port), "--host", "127.0.0.1",
           "--data-dir", str(data))  # fmt: skip
    start_notch(xserver.env, notch_env["socket"], data, notch_env["log"])
    printed = _notch(notch_argv, "phone", "pair", "--address", "127.0.0.1", "--data-dir", str(data))
    url = next(line for line in printed.splitlines() if line.startswith("https://"))
    assert url.startswith(f"https://127.0.0.1:{port}/#pair=")
    pin = certificate(phone_folder(data)).spki_pin

    home = tmp_path / "home"
    home.mkdir()
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "notch_app", "mcp", str(NOTES), "--socket", str(notch_env["socket"]),
              "--data-dir", str(data)],
        env={"PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}",
             "HOME": str(home), "PYTHONUNBUFFERED": "1",
             "XDG_CONFIG_HOME": str(REPO / "tmp" / "e2e-config")},
        cwd=str(REPO),
    )  # fmt: skip
    async with phone_browser("chromium", pin) as tab:
        phone = await tab()
        await phone.goto(url)
        await wait_js(phone, "document.body.dataset.state === 'pairing'", timeout=20)
        await phone.js("document.getElementById('pair-name').value = ''")
        await phone.type("#pair-name", "Pixel 8")
        await phone.click("#pair-button")
        await wait_js(phone, "document.body.dataset.state === 'cards'", timeout=20)

        with (tmp_path / "gw.log").open("a") as err:
            async with (
                stdio_client(params, err) as (read, write),
                ClientSession(read, write) as client,
            ):
                await client.initialize()
                called = asyncio.ensure_future(
                    client.call_tool("send_message", {"to": "sam", "body": "on my way"})
                )
                shown = "document.querySelector('article.card')"
                await wait_js(phone, f"!!{shown}", timeout=30)
                text = await phone.js(f"{shown}.innerText")
                assert "sam" in text and "on my way" in text
                await wait_js(phone, f"{shown}.querySelector('.approve').disabled === false")
                await phone.click("article.card .approve")
                result: types.CallToolResult = await asyncio.wait_for(called, 30)
        assert not result.is_error, result.content

    ran = [json.loads(line) for line in (home / "notes-calls.jsonl").read_text().splitlines()]
    assert [c["tool"] for c in ran] == ["send_message"]
    assert ran[0]["arguments"] == {"to": "sam", "body": "on my way"}
    xserver.notch_idle()  # the desktop card went with the phone's answer
    logged = json.loads(_notch(notch_argv, "log", "--json", "--data-dir", str(data)))
    (entry,) = [e for e in logged if e["tool"] == "send_message"]
    assert entry["decidedBy"] == "phone" and entry["message"] == "answered on Pixel 8"
