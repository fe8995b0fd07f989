"""asyncio without `ssl` until TLS is used (runtime/ssl_on_demand.py), in a fresh process.

`notch run` loads asyncio with `ssl` hidden (~1-2 MiB less while idle); the first TLS
connection must then work exactly as before: a real TLS server and client on this
machine, through asyncio's own `ssl=` paths (a context, and `ssl=True` on the client).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

_SCRIPT = r"""
import sys
from pathlib import Path

from notch_app.runtime.ssl_on_demand import SSLOnDemand, import_asyncio_without_ssl

assert import_asyncio_without_ssl() is True
assert "ssl" not in sys.modules, "ssl loaded with asyncio"
import asyncio
import asyncio.sslproto

assert isinstance(asyncio.sslproto.ssl, SSLOnDemand)
assert import_asyncio_without_ssl() is False  # once only

from notch_app.phone.tls import certificate

cert = certificate(Path(sys.argv[1]))


async def main() -> None:
    import ssl

    server_side = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_side.load_cert_chain(cert.cert_path, cert.key_path)

    async def echo(reader, writer):
        writer.write(await reader.readline())
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(echo, "127.0.0.1", 0, ssl=server_side)
    port = server.sockets[0].getsockname()[1]
    client_side = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    client_side.load_verify_locations(cert.cert_path)
    client_side.check_hostname = False
    reader, writer = await asyncio.open_connection("127.0.0.1", port, ssl=client_side)
    writer.write(b"over tls\n")
    assert await reader.readline() == b"over tls\n"
    assert writer.get_extra_info("cipher") is not None  # TLS was spoken
    writer.close()
    # ssl=True: asyncio makes the default context itself, through the module it holds;
    # the self-signed certificate is refused, as it is without this module.
    try:
        await asyncio.open_connection("127.0.0.1", port, ssl=True, server_hostname="x")
    except ssl.SSLCertVerificationError:
        pass
    else:
        raise AssertionError("an unknown certificate was accepted")
    server.close()
    await server.wait_closed()
    assert asyncio.sslproto.ssl is ssl and asyncio.base_events.ssl is ssl
    assert asyncio.sslproto.SSLAgainErrors == (ssl.SSLWantReadError, ssl.SSLSyscallError)


asyncio.run(main())
print("ok")
"""


def test_tls_through_asyncio_works_after_asyncio_loaded_without_ssl(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT, str(tmp_path / "tls")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "ok"


def test_nothing_changes_when_asyncio_is_already_loaded() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import asyncio, asyncio.sslproto as p, ssl\n"
            "from notch_app.runtime.ssl_on_demand import import_asyncio_without_ssl\n"
            "assert import_asyncio_without_ssl() is False and p.ssl is ssl\n"
            "print('ok')",
        ],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "ok"
