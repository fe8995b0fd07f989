"""The hooks' key (`hook.key`) is made whole or not at all: two hooks an agent runs side by
side on a first use (parallel tool calls) derive the same token for the same call.

Found by the suite on a loaded machine: the first hook created the file empty and wrote
the key after; the second read it empty, asked with a token of its own, and was refused
its own card (`notYours`) — the agent saw "ask" for a call the person approved.
"""

from __future__ import annotations

import os
import secrets
import stat
import threading
from pathlib import Path

import pytest

from notch_app.hooks import asking


def test_a_hook_reading_the_key_while_another_makes_it_gets_the_same_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "data"
    made = threading.Event()
    go_on = threading.Event()
    real = secrets.token_bytes
    writer: list[threading.Thread] = []

    def slow_for_the_first(n: int) -> bytes:
        # The first hook stops between making its key and having it on disk, as a
        # process the scheduler pauses there would.
        if threading.current_thread() is writer[0]:
            made.set()
            assert go_on.wait(10)
        return real(n)

    monkeypatch.setattr(secrets, "token_bytes", slow_for_the_first)
    keys: dict[str, bytes | None] = {}
    first = threading.Thread(target=lambda: keys.update(first=asking._hook_key(folder)))
    writer.append(first)
    first.start()
    assert made.wait(10)
    keys["second"] = asking._hook_key(folder)  # while the first is paused
    go_on.set()
    first.join(10)
    assert keys["second"] is not None and len(keys["second"]) == 32
    assert keys["first"] == keys["second"]
    assert asking.token_for("call-1", folder) == asking.token_for("call-1", folder)
    # One key file, this user's alone; no spare left beside it.
    assert sorted(p.name for p in folder.iterdir()) == [asking.KEY_FILE]
    assert stat.S_IMODE(os.stat(folder / asking.KEY_FILE).st_mode) == 0o600


def test_many_hooks_at_once_on_a_fresh_folder_share_one_key(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    start = threading.Barrier(8)
    keys: list[bytes | None] = []

    def one() -> None:
        start.wait(10)
        keys.append(asking._hook_key(folder))

    threads = [threading.Thread(target=one) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert len(keys) == 8 and keys[0] is not None and set(keys) == {keys[0]}
    assert sorted(p.name for p in folder.iterdir()) == [asking.KEY_FILE]


def test_a_key_file_someone_else_could_read_is_not_used(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    key = asking._hook_key(folder)
    assert key is not None
    os.chmod(folder / asking.KEY_FILE, 0o644)
    assert asking._hook_key(folder) is None  # a fresh token per call, as before
