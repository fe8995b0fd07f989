"""The phone page speaks TLS from a `notch run` whose asyncio loaded without `ssl`
(runtime/ssl_on_demand.py: the idle process leaves Python's TLS module for later).

Through the real program: `notch phone on` as a process, `notch run` serving the page,
and a real TLS client that trusts only the certificate in the data folder.
"""

from __future__ import annotations

import socket
import ssl
import subprocess
from pathlib import Path
from typing import Any

import pytest

from notch_app.phone.addresses import LOOPBACK

pytestmark = pytest.mark.e2e


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind((LOOPBACK, 0))
        return int(probe.getsockname()[1])


def _answers(port: int) -> bool:
    try:
        with socket.create_connection((LOOPBACK, port), timeout=2):
            return True
    except OSError:
        return False


def test_the_phone_page_answers_over_tls(
    xserver: Any, notch_env: dict[str, Path], start_notch: Any, notch_argv: list[str],
    wait_for: Any,
) -> None:  # fmt: skip
    data, port = notch_env["data_dir"], _free_port()
    done = subprocess.run(
        [*notch_argv, "phone", "on", "--port", str(port), "--host", LOOPBACK,
         "--data-dir", str(data)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    start_notch(xserver.env, notch_env["socket"], data, notch_env["log"])
    wait_for(lambda: _answers(port), 30, f"the phone page on {LOOPBACK}:{port}")
    certs = sorted(data.rglob("tls-cert.pem"))
    assert certs, "the page's certificate is in the data folder"
    trusted = ssl.create_default_context(cafile=str(certs[0]))
    trusted.check_hostname = False  # the certificate names the address, checked by pin
    with (
        socket.create_connection((LOOPBACK, port), timeout=10) as raw,
        trusted.wrap_socket(raw) as tls,
    ):
        spoken = tls.version()  # the handshake is done: TLS 1.2 or 1.3
        tls.sendall(b"GET / HTTP/1.1\r\nHost: notch\r\nConnection: close\r\n\r\n")
        reply = b""
        while chunk := tls.recv(65536):
            reply += chunk
    assert spoken in ("TLSv1.2", "TLSv1.3")
    assert reply.startswith(b"HTTP/1.1 "), reply[:200]
