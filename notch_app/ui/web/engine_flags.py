"""The Chromium command-line flags Notch's web engine runs with: the one place they are
chosen. Chromium reads QTWEBENGINE_CHROMIUM_FLAGS once, when the engine starts (the first
widget), so these are set just before that and never imported at start-up.

The engine exists only for widget pages, which have no network at all. The request
interceptor and the page's CSP see URL requests only; WebRTC, preconnects, DNS lookups and
WebTransport go around both. So the engine itself is started without a way out:
- WebRTC opens no UDP socket (no STUN, no TURN over UDP, no host candidates);
- every other connection (TURN over TCP/TLS, ICE over TCP, preconnects, WebSocket,
  WebTransport) must go through a proxy that does not exist, loopback included;
- no name is ever looked up (DNS or mDNS), so no name can carry data out, and the proxy's
  own name fails before a packet is sent;
- no QUIC, no DNS prefetch.
Measured in tests/e2e/test_web_sandbox.py with listeners and a packet capture: each of the
first three closes a route the other two leave open.
"""

from __future__ import annotations

import os

FLAGS_VARIABLE = "QTWEBENGINE_CHROMIUM_FLAGS"

REFUSING_PROXY = "http://notch-widgets-have-no-network.invalid:1"
"""Where every connection outside a URL request is sent: a name nothing resolves (all
lookups fail, see NO_NAME_LOOKUPS) on a port nothing serves, with no direct fallback."""

NO_NAME_LOOKUPS = "MAP * ~NOTFOUND"
"""Chromium's host resolver rule answering every name "not found" without a query."""

NETWORK_FENCE = (
    # WebRTC may use UDP only through a proxy, and no proxy carries UDP: no UDP at all.
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    # What WebRTC has left (TCP, TLS) and any other socket go to the refusing proxy...
    f"--proxy-server={REFUSING_PROXY}",
    # ...loopback too (Chromium otherwise connects to localhost directly).
    "--proxy-bypass-list=<-loopback>",
    f"--host-resolver-rules={NO_NAME_LOOKUPS}",
    "--disable-quic",
    "--dns-prefetch-disable",
)
"""The flags that keep widget pages off the network (see the module's docstring)."""

_FENCE_SWITCHES = (
    "--force-webrtc-ip-handling-policy",
    "--webrtc-ip-handling-policy",
    "--proxy-server",
    "--proxy-bypass-list",
    "--proxy-pac-url",
    "--proxy-auto-detect",
    "--no-proxy-server",
    "--winhttp-proxy-resolver",
    "--host-resolver-rules",
    "--host-rules",
    "--enable-quic",
    "--origin-to-force-quic-on",
    "--webtransport-developer-mode",
    "--dns-prefetch-disable",
    "--disable-quic",
)
"""Switches only Notch sets: one the person set would open the fence again (Chromium takes
`--no-proxy-server` over any proxy) or clash with Notch's own, so it is dropped."""


def chromium_flags(euid: int | None = None) -> list[str]:
    """The flags Notch adds for its widgets' engine, for a process running as `euid`
    (the current one when None)."""
    if euid is None:
        euid = os.geteuid() if hasattr(os, "geteuid") else 1
    flags = list(NETWORK_FENCE)
    if euid == 0:
        # Chromium refuses to start its renderers as root with the sandbox on (containers,
        # CI). The page stays fenced by Notch's own interceptor, settings and page rules.
        flags.append("--no-sandbox")
    return flags


def split_flags(text: str) -> list[str]:
    """QTWEBENGINE_CHROMIUM_FLAGS as Qt reads it: arguments split at spaces, where a
    double quote starts or ends a stretch in which spaces belong to the argument (the
    quotes themselves are dropped)."""
    flags: list[str] = []
    current: list[str] = []
    started = quoted = False
    for char in text:
        if char == '"':
            quoted = not quoted
            started = True
        elif char.isspace() and not quoted:
            if started:
                flags.append("".join(current))
            current, started = [], False
        else:
            current.append(char)
            started = True
    if started:
        flags.append("".join(current))
    return flags


def join_flags(flags: list[str]) -> str:
    """Flags as QTWEBENGINE_CHROMIUM_FLAGS text that `split_flags` (and Qt) reads back as
    exactly these arguments: one with a space is quoted whole."""
    return " ".join(f'"{flag}"' if any(c.isspace() for c in flag) else flag for flag in flags)


def _is_fence_switch(flag: str) -> bool:
    name = flag.split("=", 1)[0]
    return name in _FENCE_SWITCHES


def apply_chromium_flags() -> None:
    """Set QTWEBENGINE_CHROMIUM_FLAGS to Notch's flags after the person's own, minus any
    of theirs that would reopen the network fence. Their flags are re-quoted, so an
    unbalanced quote of theirs cannot swallow Notch's."""
    ours = chromium_flags()
    theirs = [
        flag
        for flag in split_flags(os.environ.get(FLAGS_VARIABLE, ""))
        if not _is_fence_switch(flag) and flag not in ours
    ]
    os.environ[FLAGS_VARIABLE] = join_flags([*theirs, *ours])
