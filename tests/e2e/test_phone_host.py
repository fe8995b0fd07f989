"""Where the phone page listens (issue 24): on this computer's local-network address,
never on every address (0.0.0.0 also opened it on public interfaces, VPNs and container
bridges); `notch phone on --host IP` chooses among several, and refuses an address that is
public, unspecified or not this computer's, saying which ones would do.

Through the real program: `notch phone on` / `pair` as processes, `notch run` serving the
page, and plain TCP connections to see which addresses answer.
"""

from __future__ import annotations

import json
import socket
import subprocess
from pathlib import Path
from typing import Any

import pytest

from notch_app.phone.addresses import LOOPBACK, listen_host, local_network

pytestmark = pytest.mark.e2e


def phone(notch_argv: list[str], data: Path, *words: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*notch_argv, "phone", *words, "--data-dir", str(data)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((LOOPBACK, 0))
        return int(probe.getsockname()[1])


def answers(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=2):
            return True
    except OSError:
        return False


def stored_phone(data: Path) -> dict[str, Any]:
    document = json.loads((data / "notch-settings.json").read_text())
    phone_part: dict[str, Any] = document.get("phone", {})
    return phone_part


@pytest.mark.parametrize(
    ("host", "said"),
    [
        ("8.8.8.8", "is a public address"),
        ("0.0.0.0", "on every network"),
        ("10.254.253.252", "is not an address of this computer"),
        ("my-laptop", "is not an IP address"),
    ],
)
def test_an_address_that_is_not_local_is_refused_with_the_ones_that_would_do(
    notch_argv: list[str], tmp_path: Path, host: str, said: str
) -> None:
    if host in local_network():
        pytest.skip(f"this machine has {host}")
    done = phone(notch_argv, tmp_path / "data", "on", "--host", host)
    assert done.returncode == 2
    assert said in done.stderr and (local_network() or [LOOPBACK])[0] in done.stderr
    assert done.stderr.startswith("notch phone: ") and "Traceback" not in done.stderr
    settings = tmp_path / "data" / "notch-settings.json"
    assert not settings.exists() or not stored_phone(tmp_path / "data").get("enabled")


def test_the_page_listens_on_the_local_network_address_only(
    xserver: Any, notch_env: dict[str, Path], start_notch: Any, notch_argv: list[str],
    wait_for: Any,
) -> None:  # fmt: skip
    data, port = notch_env["data_dir"], free_port()
    done = phone(notch_argv, data, "on", "--port", str(port))
    assert done.returncode == 0, done.stderr
    where, _ = listen_host(None)
    assert f"at {where} port {port}" in done.stdout
    start_notch(xserver.env, notch_env["socket"], data, notch_env["log"])
    wait_for(lambda: answers(where, port), 30, f"the phone page on {where}:{port}")
    if where != LOOPBACK:  # before: 0.0.0.0, so loopback (and every interface) answered too
        assert not answers(LOOPBACK, port), "the page listens on one address, not on all"
    pair = phone(notch_argv, data, "pair")
    assert pair.returncode == 0, pair.stderr
    assert f"https://{where}:{port}/#pair=" in pair.stdout, "the QR code names that address"

    # The person moves it to this computer alone: the running Notch follows.
    moved = phone(notch_argv, data, "on", "--host", LOOPBACK)
    assert moved.returncode == 0, moved.stderr
    assert stored_phone(data)["host"] == LOOPBACK
    wait_for(lambda: answers(LOOPBACK, port), 30, "the phone page on the loopback address")
    if where != LOOPBACK:
        wait_for(lambda: not answers(where, port), 30, f"the page to leave {where}")
    back = phone(notch_argv, data, "on", "--host", "auto")
    assert back.returncode == 0 and stored_phone(data).get("host") is None
