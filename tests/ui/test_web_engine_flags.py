"""The Chromium flags the widget engine starts with: the network fence is always there,
last, read by Qt as the arguments Notch meant, and nothing the person (or anything else in
Notch's environment) put in QTWEBENGINE_CHROMIUM_FLAGS can open it again. Whether the
fence holds against real pages is tests/e2e/test_web_sandbox.py's job."""

from __future__ import annotations

import os

import pytest

from notch_app.ui.web.engine_flags import (
    FLAGS_VARIABLE,
    NETWORK_FENCE,
    NO_NAME_LOOKUPS,
    apply_chromium_flags,
    chromium_flags,
    join_flags,
    split_flags,
)


def applied(monkeypatch: pytest.MonkeyPatch, theirs: str | None) -> list[str]:
    if theirs is None:
        monkeypatch.delenv(FLAGS_VARIABLE, raising=False)
    else:
        monkeypatch.setenv(FLAGS_VARIABLE, theirs)
    apply_chromium_flags()
    return split_flags(os.environ[FLAGS_VARIABLE])


def test_the_fence_is_in_every_engine_and_no_sandbox_only_for_root() -> None:
    for euid in (0, 1000):
        flags = chromium_flags(euid)
        assert flags[: len(NETWORK_FENCE)] == list(NETWORK_FENCE)
        assert ("--no-sandbox" in flags) == (euid == 0)
    fence = dict(flag.split("=", 1) for flag in NETWORK_FENCE if "=" in flag)
    assert fence["--force-webrtc-ip-handling-policy"] == "disable_non_proxied_udp"
    assert fence["--proxy-bypass-list"] == "<-loopback>"
    assert fence["--host-resolver-rules"] == "MAP * ~NOTFOUND"
    assert "--disable-quic" in NETWORK_FENCE


def test_qt_reads_the_resolver_rule_as_one_argument(monkeypatch: pytest.MonkeyPatch) -> None:
    flags = applied(monkeypatch, None)
    assert f"--host-resolver-rules={NO_NAME_LOOKUPS}" in flags
    assert "*" not in flags and "~NOTFOUND" not in flags


def test_the_persons_own_flags_stay_before_notchs(monkeypatch: pytest.MonkeyPatch) -> None:
    flags = applied(monkeypatch, '--use-fake-device-for-media-stream --lang="en GB"')
    assert flags[:2] == ["--use-fake-device-for-media-stream", "--lang=en GB"]
    assert flags[2 : 2 + len(NETWORK_FENCE)] == list(NETWORK_FENCE)


@pytest.mark.parametrize(
    "opener",
    [
        "--no-proxy-server",
        "--proxy-server=direct://",
        "--proxy-pac-url=data:,function FindProxyForURL(){return 'DIRECT'}",
        "--proxy-auto-detect",
        "--proxy-bypass-list=*",
        "--host-resolver-rules=MAP * 127.0.0.1",
        "--force-webrtc-ip-handling-policy=default",
        "--webrtc-ip-handling-policy=default",
        "--enable-quic",
        "--origin-to-force-quic-on=*",
    ],
)
def test_a_flag_that_would_open_the_fence_is_dropped(
    monkeypatch: pytest.MonkeyPatch, opener: str
) -> None:
    flags = applied(monkeypatch, join_flags(["--disable-gpu", opener]))
    assert opener not in flags
    assert flags == ["--disable-gpu", *chromium_flags()]


def test_an_unbalanced_quote_cannot_swallow_notchs_flags(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    flags = applied(monkeypatch, '--user-agent="half quoted')
    assert flags == ["--user-agent=half quoted", *chromium_flags()]


def test_applying_twice_changes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    first = applied(monkeypatch, "--disable-gpu")
    apply_chromium_flags()
    assert split_flags(os.environ[FLAGS_VARIABLE]) == first


@pytest.mark.parametrize(
    ("text", "flags"),
    [
        ("", []),
        ("  --a   --b  ", ["--a", "--b"]),
        ('--x="a b" --y', ["--x=a b", "--y"]),
        ('"--x=a b"', ["--x=a b"]),
        ('--e=""', ["--e="]),
    ],
)
def test_flags_split_as_qt_splits_them(text: str, flags: list[str]) -> None:
    assert split_flags(text) == flags
    assert split_flags(join_flags(flags)) == flags
