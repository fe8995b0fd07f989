"""A damaged decision store stops Notch with a clear message, never a traceback (issue 9,
finding 7): exit 2 from `notch run` and `notch log`, the file left where it is unless the
person passes `notch run --reset-store`, which moves it aside and starts an empty one.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from notch_app.runtime.decision import Decision, arguments_digest
from notch_app.runtime.presenter import ConfirmationRequest
from notch_app.runtime.store import (
    DB_NAME,
    DecisionStore,
    NewDecision,
    StoreDamaged,
    StoreError,
    reset_if_broken,
)

MAIL = "com.example.mail"
PAGE = 4096


def filled_store(data: Path, decisions: int = 400) -> Path:
    """A real store with enough decisions to span many pages; returns the file."""
    store = DecisionStore(data)
    ops = []
    for n in range(decisions):
        args = {"to": f"person{n}@example.com", "body": "x" * 200}
        request = ConfirmationRequest(f"c{n}", MAIL, "send_email", args, {}, float(n))
        decision = Decision(f"c{n}", "approved", MAIL, "send_email", args, (),
                            arguments_digest(args), "click", float(n))  # fmt: skip
        ops.append(NewDecision(decision, args, {}, request))
    assert store.write(ops) == [None] * decisions
    store.close()
    return data / DB_NAME


def damage(path: Path, page: int = 5) -> bytes:
    """Scribble over one page in the middle of the file, as a bad sector would."""
    original = path.read_bytes()
    assert len(original) > (page + 2) * PAGE
    broken = bytearray(original)
    broken[page * PAGE : page * PAGE + 512] = b"\xab" * 512
    path.write_bytes(bytes(broken))
    return bytes(broken)


def notch(*argv: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.run(
        [sys.executable, "-m", "notch_app", *argv],
        capture_output=True, text=True, timeout=timeout, env=env,
    )  # fmt: skip


def test_a_damaged_page_is_found_when_the_store_opens(tmp_path: Path) -> None:
    path = filled_store(tmp_path / "data")
    damage(path)
    with pytest.raises(StoreDamaged) as refused:
        DecisionStore(tmp_path / "data")
    message = str(refused.value)
    assert message.startswith(f"{path}: the decision store cannot be opened")
    assert "notch run --reset-store" in message and "--data-dir" in message


def test_notch_log_and_notch_run_stop_with_the_stores_message_and_exit_2(base: Path) -> None:
    data = base / "data"
    path = filled_store(data)
    broken = damage(path)
    logged = notch("log", "--data-dir", str(data))
    assert logged.returncode == 2
    assert "cannot be opened" in logged.stderr and "Traceback" not in logged.stderr
    ran = notch("run", "--data-dir", str(data), "--socket", str(base / "s" / "notch.sock"))
    assert ran.returncode == 2, ran.stderr
    assert f"{path}: the decision store cannot be opened" in ran.stderr
    assert "Traceback" not in ran.stderr
    # Without --reset-store nothing is moved or changed.
    assert path.read_bytes() == broken
    assert sorted(p.name for p in data.iterdir() if p.name.startswith(DB_NAME)) == [DB_NAME]


def test_reset_store_moves_the_damaged_file_aside_and_notch_starts(base: Path) -> None:
    data = base / "data"
    path = filled_store(data)
    broken = damage(path)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    process = subprocess.Popen(
        [sys.executable, "-m", "notch_app", "run", "--reset-store", "--data-dir", str(data),
         "--socket", str(base / "s" / "notch.sock")],
        stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    try:
        assert process.stderr is not None
        said = []
        for line in process.stderr:  # wait for the two lines a person would read
            said.append(line)
            if "listening on" in line:
                break
        text = "".join(said)
        assert "moved it to" in text and "listening on" in text, text
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(30)
    (aside,) = [p for p in data.iterdir() if p.name.startswith(DB_NAME + ".broken-")]
    assert aside.read_bytes() == broken  # kept, for whoever wants to recover it
    store = DecisionStore(data)  # and the new one is whole and empty
    try:
        assert store.log() == [] and store.pending() == []
    finally:
        store.close()


def test_reset_leaves_a_healthy_store_and_a_newer_notchs_store_alone(tmp_path: Path) -> None:
    healthy = filled_store(tmp_path / "ok", decisions=3)
    assert reset_if_broken(tmp_path / "ok") is None
    assert healthy.exists()
    newer = tmp_path / "newer"
    DecisionStore(newer).close()
    with sqlite3.connect(newer / DB_NAME) as db:
        db.execute("PRAGMA user_version=99")
    with pytest.raises(StoreError, match="newer Notch"):
        reset_if_broken(newer)
    assert (newer / DB_NAME).exists()
    assert not [p for p in newer.iterdir() if ".broken-" in p.name]


def test_a_file_that_is_not_a_database_is_reported_the_same_way(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    (data / DB_NAME).write_bytes(b"this is not a database, just text " * 200)
    with pytest.raises(StoreDamaged, match="cannot be opened"):
        DecisionStore(data)
    aside = reset_if_broken(data)
    assert aside is not None and aside.read_bytes().startswith(b"this is not a database")
    DecisionStore(data).close()


def test_a_row_edited_into_nonsense_is_reported_and_reset_moves_it_aside(tmp_path: Path) -> None:
    data = tmp_path / "data"
    DecisionStore(data).close()
    with sqlite3.connect(data / DB_NAME) as db:
        db.execute(
            "INSERT INTO requests (call_id, integration, tool, arguments, args_digest, context,"
            " created_at) VALUES ('x', 'i', 't', '{not json', 'sha256:0', '{}', 1)"
        )
    store = DecisionStore(data)
    try:
        with pytest.raises(StoreDamaged, match="a stored row cannot be read"):
            store.pending()
    finally:
        store.close()
    aside = reset_if_broken(data)
    assert aside is not None and aside.exists()
    fresh = DecisionStore(data)
    try:
        assert fresh.pending() == []
    finally:
        fresh.close()


def test_a_header_overwritten_while_open_fails_the_next_write_as_damage(tmp_path: Path) -> None:
    """SQLite serves pages from its cache and the WAL, so a file whose first pages were
    overwritten under an open store can keep taking writes no later start could read.
    The next write finds the overwritten header and says the store is damaged."""
    data = tmp_path / "data"
    store = DecisionStore(data)
    try:
        args = {"to": "sam@example.com"}
        request = ConfirmationRequest("c1", MAIL, "send_email", args, {}, 1.0)
        decision = Decision("c1", "approved", MAIL, "send_email", args, (),
                            arguments_digest(args), "click", 1.0)  # fmt: skip
        assert store.write([NewDecision(decision, args, {}, request)]) == [None]
        with open(data / DB_NAME, "r+b") as db:
            db.write(os.urandom(8192))
        request = ConfirmationRequest("c2", MAIL, "send_email", args, {}, 2.0)
        decision = Decision("c2", "approved", MAIL, "send_email", args, (),
                            arguments_digest(args), "click", 2.0)  # fmt: skip
        (error,) = store.write([NewDecision(decision, args, {}, request)])
        assert isinstance(error, StoreDamaged), error
        assert "not a database" in str(error)
    finally:
        store.close()
