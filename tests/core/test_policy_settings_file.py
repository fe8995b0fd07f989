"""The settings file: persistence across restarts, corrupt files, atomic writes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from notch_app.runtime.policy_book import OverGuard, PolicyBook, PolicyWriteError
from notch_app.runtime.settings import SETTINGS_FILE_NAME, settings_path
from notch_app.runtime.settings import file as settings_file_module


def test_choices_survive_a_restart(tmp_path: Path, pay_manifest: Any, pay_tool: Any) -> None:
    m = pay_manifest()
    first = PolicyBook.in_data_dir(tmp_path)
    first.set_asks_first(m, pay_tool(m), False)
    first.add_guard(m, pay_tool(m), OverGuard(argument="amount", limit=500))
    first.set_glance(False)

    again = PolicyBook.in_data_dir(tmp_path)  # a new process reading the same file
    assert again.problem is None
    assert again.verdict(m, pay_tool(m), {"amount": 10}).action == "auto"
    assert again.verdict(m, pay_tool(m), {"amount": 501}).action == "ask"
    assert again.overlay.glance is False


def test_the_file_is_plain_versioned_json(tmp_path: Path, pay_manifest: Any, pay_tool: Any) -> None:
    m = pay_manifest()
    book = PolicyBook.in_data_dir(tmp_path)
    book.block(m, pay_tool(m))
    data = json.loads((tmp_path / SETTINGS_FILE_NAME).read_text())
    assert data["version"] == 1
    entry = data["policies"]["com.example.pay"]["pay_invoice"]
    assert entry["blocked"] is True
    assert entry["card"].startswith("sha256:")
    assert data["overlay"] == {
        "answerByVoice": False,
        "glance": True,
        "glanceSeconds": 4,
        "idle": "pill",
        "parkAfterSeconds": 60,
        "theme": "system",
    }


@pytest.mark.parametrize(
    ("content", "what"),
    [
        (b"{not json", "is not valid JSON (line 1, column 2"),
        (b'{"version": 1, "policies": {"a": {"t": {"asksFirst": "nope"}}}}', "policies.a.t"),
        (b'{"version": 1, "polices": {}}', "does not match the settings format at polices"),
        (b"\xff\xfe", "is not UTF-8 text"),
        (b"[" * 100_000, "nested too deeply"),
        (
            b'{"version": 1, "policies": {}, "x": "' + b"a" * (3 * 1024 * 1024) + b'"}',
            "larger than",
        ),
    ],
)
def test_a_corrupt_file_is_moved_aside_and_everything_asks(
    tmp_path: Path,
    content: bytes,
    what: str,
    caplog: pytest.LogCaptureFixture,
    pay_manifest: Any,
    pay_tool: Any,
) -> None:
    m = pay_manifest()
    good = PolicyBook.in_data_dir(tmp_path)
    good.set_asks_first(m, pay_tool(m), False)
    path = settings_path(tmp_path)
    path.write_bytes(content)

    book = PolicyBook.in_data_dir(tmp_path)
    assert book.verdict(m, pay_tool(m), {}).action == "ask"
    assert book.problem is not None and what in book.problem
    assert "every action asks first" in book.problem
    assert what in caplog.text  # reported in the log (stderr) too
    aside = [p for p in tmp_path.iterdir() if p.name.startswith(SETTINGS_FILE_NAME + ".corrupt-")]
    assert len(aside) == 1 and aside[0].read_bytes() == content
    assert not path.exists()

    # The next change writes a fresh, valid file.
    book.set_asks_first(m, pay_tool(m), False)
    assert PolicyBook.in_data_dir(tmp_path).problem is None


def test_a_running_book_that_rereads_a_corrupt_file_falls_back_to_asking(
    tmp_path: Path, pay_manifest: Any, pay_tool: Any
) -> None:
    m = pay_manifest()
    book = PolicyBook.in_data_dir(tmp_path)
    book.set_asks_first(m, pay_tool(m), False)
    heard: list[int] = []
    book.subscribe(lambda: heard.append(1))
    settings_path(tmp_path).write_text('{"version": 1, "policies": 7}')
    assert book.reload() is True
    assert heard == [1]
    assert book.verdict(m, pay_tool(m), {}).action == "ask"
    assert book.problem is not None


def test_a_file_from_a_newer_notch_is_left_alone(
    tmp_path: Path, pay_manifest: Any, pay_tool: Any
) -> None:
    m = pay_manifest()
    path = settings_path(tmp_path)
    newer = '{"version": 2, "policies": {"com.example.pay": {"pay_invoice": "auto"}}}'
    path.write_text(newer)
    book = PolicyBook(path)
    assert book.verdict(m, pay_tool(m), {}).action == "ask"
    assert book.problem is not None and "newer Notch" in book.problem
    with pytest.raises(PolicyWriteError, match="newer Notch"):
        book.set_asks_first(m, pay_tool(m), False)
    assert path.read_text() == newer


def test_an_unreadable_file_asks(tmp_path: Path, pay_manifest: Any, pay_tool: Any) -> None:
    path = settings_path(tmp_path)
    path.mkdir()  # reading a folder fails even as root
    book = PolicyBook(path)
    assert book.problem is not None and "could not be read" in book.problem
    m = pay_manifest()
    assert book.verdict(m, pay_tool(m), {}).action == "ask"


def test_reload_picks_up_a_change_made_by_another_process(
    tmp_path: Path, pay_manifest: Any, pay_tool: Any
) -> None:
    m = pay_manifest()
    running = PolicyBook.in_data_dir(tmp_path)
    heard: list[int] = []
    running.subscribe(lambda: heard.append(1))
    assert running.reload() is False and heard == []

    PolicyBook.in_data_dir(tmp_path).set_asks_first(m, pay_tool(m), False)  # `notch policy`
    assert running.reload() is True
    assert heard == [1]
    assert running.verdict(m, pay_tool(m), {}).action == "auto"


def test_two_writers_do_not_lose_each_others_changes(
    tmp_path: Path, pay_manifest: Any, pay_tool: Any
) -> None:
    m = pay_manifest()
    app = PolicyBook.in_data_dir(tmp_path)
    cli = PolicyBook.in_data_dir(tmp_path)
    cli.set_asks_first(m, pay_tool(m), False)
    app.set_glance(False)  # app has not reloaded, yet must keep the CLI's change
    fresh = PolicyBook.in_data_dir(tmp_path)
    assert fresh.verdict(m, pay_tool(m), {}).action == "auto"
    assert fresh.overlay.glance is False


def test_a_failed_write_leaves_the_old_file_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pay_manifest: Any, pay_tool: Any
) -> None:
    m = pay_manifest()
    book = PolicyBook.in_data_dir(tmp_path)
    book.block(m, pay_tool(m))
    before = settings_path(tmp_path).read_bytes()

    def crash(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(f"{settings_file_module.__name__}.os.replace", crash)
    with pytest.raises(PolicyWriteError, match="No space left on device"):
        book.set_asks_first(m, pay_tool(m), True)
    monkeypatch.undo()

    assert settings_path(tmp_path).read_bytes() == before
    assert [p.name for p in tmp_path.iterdir() if p.suffix == ".tmp"] == []
    assert book.verdict(m, pay_tool(m), {}).action == "block"  # memory not changed either
