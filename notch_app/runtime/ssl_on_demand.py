"""asyncio without Python's `ssl` module until something in the process needs TLS.

asyncio imports `ssl` as it loads (`base_events`, `selector_events` and `sslproto` each
`try: import ssl`), which maps OpenSSL's TLS half into the process: ~2 MiB of an idle
`notch run` that has no TLS to speak (benchmarks/README-overlay.md, "Idle resident
memory"). Notch speaks TLS only when the person turns on the phone page, or a library
connects somewhere over https. So `notch run` loads asyncio with `ssl` hidden, and hands
those three modules a stand-in that loads the real `ssl` on first use of any of its names
and puts it in their place: from then on asyncio holds exactly what it would have held.

Call `import_asyncio_without_ssl()` first thing, before anything imports asyncio; it does
nothing once asyncio or ssl is loaded.
"""

from __future__ import annotations

import sys
import types
from typing import Any, Final

_ASYNCIO_MODULES: Final = ("asyncio.base_events", "asyncio.selector_events", "asyncio.sslproto")
"""The asyncio modules that hold `ssl` as a global (Python 3.11 to 3.13)."""


class SSLOnDemand(types.ModuleType):
    """Stands in for `ssl` in asyncio's modules until one of its names is used."""

    def __getattr__(self, name: str) -> Any:
        return getattr(load_ssl(), name)


def load_ssl() -> types.ModuleType:
    """Import `ssl` and give asyncio the real module (and what `sslproto` derives from it
    when it loads)."""
    import ssl

    for name in _ASYNCIO_MODULES:
        module = sys.modules.get(name)
        if module is not None and isinstance(getattr(module, "ssl", None), SSLOnDemand):
            module.ssl = ssl  # type: ignore[attr-defined]
    sslproto = sys.modules.get("asyncio.sslproto")
    if sslproto is not None and not hasattr(sslproto, "SSLAgainErrors"):
        sslproto.SSLAgainErrors = (ssl.SSLWantReadError, ssl.SSLSyscallError)  # type: ignore[attr-defined]
    return ssl


def import_asyncio_without_ssl() -> bool:
    """Import asyncio with `ssl` left for later. Returns whether it did (False when
    asyncio or ssl was already loaded, or this asyncio holds `ssl` elsewhere)."""
    if "asyncio" in sys.modules or "ssl" in sys.modules:
        return False
    before = set(sys.modules)
    sys.modules["ssl"] = None  # type: ignore[assignment]  # each `try: import ssl` fails
    try:
        import asyncio  # noqa: F401
    finally:
        del sys.modules["ssl"]
    stand_in = SSLOnDemand("ssl", "Python's ssl module, loaded on first use")
    # Every module loaded while `ssl` was hidden and left without it: asyncio's three get
    # the stand-in; any other (another Python's asyncio) gets the real module, as before.
    lacking = [
        name
        for name in set(sys.modules) - before
        if isinstance(module := sys.modules[name], types.ModuleType)
        and "ssl" in vars(module)
        and vars(module)["ssl"] is None
    ]
    for name in lacking:
        sys.modules[name].ssl = stand_in  # type: ignore[attr-defined]
    if not set(lacking) <= set(_ASYNCIO_MODULES):
        real = load_ssl()
        for name in lacking:
            sys.modules[name].ssl = real  # type: ignore[attr-defined]
        return False
    return True
