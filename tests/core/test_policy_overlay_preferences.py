"""The overlay's idle look and park-after time in the settings file, beside the glance."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from notch_app.app import NotchConfig, overlay_settings_from
from notch_app.runtime.policy_book import PolicyBook, PolicyRefused
from notch_app.runtime.settings import SETTINGS_FILE_NAME, settings_path


def overlay_in_file(data_dir: Path) -> dict[str, object]:
    data = json.loads(settings_path(data_dir).read_text())
    assert data["version"] == 1
    overlay: dict[str, object] = data["overlay"]
    return overlay


def test_defaults_are_a_pill_and_parking_after_a_minute(tmp_path: Path) -> None:
    book = PolicyBook.in_data_dir(tmp_path)
    assert book.overlay.idle == "pill"
    assert book.overlay.park_after_seconds == 60


def test_idle_and_park_after_survive_a_restart_next_to_the_glance(tmp_path: Path) -> None:
    first = PolicyBook.in_data_dir(tmp_path)
    first.set_idle("hidden")
    first.set_park_after(300)
    first.set_glance(False)
    first.set_glance_seconds(10)
    assert overlay_in_file(tmp_path) == {
        "answerByVoice": False,
        "glance": False,
        "glanceSeconds": 10,
        "idle": "hidden",
        "parkAfterSeconds": 300,
        "theme": "system",
    }
    again = PolicyBook.in_data_dir(tmp_path)
    assert again.problem is None
    assert (again.overlay.idle, again.overlay.park_after_seconds) == ("hidden", 300)
    assert again.overlay.glance_seconds == 10
    assert again.overlay.glance is False

    again.set_park_after(0)  # never park
    again.set_idle("pill")
    assert PolicyBook.in_data_dir(tmp_path).overlay.park_after_seconds == 0
    assert overlay_in_file(tmp_path)["idle"] == "pill"


def test_a_whole_number_of_seconds_is_written_as_one(tmp_path: Path) -> None:
    book = PolicyBook.in_data_dir(tmp_path)
    book.set_park_after(120.0)
    assert '"parkAfterSeconds": 120\n' in settings_path(tmp_path).read_text()
    book.set_park_after(7.5)
    assert overlay_in_file(tmp_path)["parkAfterSeconds"] == 7.5


@pytest.mark.parametrize(
    "overlay",
    [
        None,  # a file written before there was any overlay preference
        {"glance": False},  # written when the glance was the only one
    ],
)
def test_an_older_file_without_the_new_keys_loads_with_defaults(
    tmp_path: Path, overlay: dict[str, object] | None, pay_manifest: Any, pay_tool: Any
) -> None:
    m = pay_manifest()
    old: dict[str, object] = {
        "version": 1,
        "policies": {"com.example.pay": {"pay_invoice": {"blocked": True}}},
    }
    if overlay is not None:
        old["overlay"] = overlay
    settings_path(tmp_path).write_text(json.dumps(old))

    book = PolicyBook.in_data_dir(tmp_path)
    assert book.problem is None
    assert book.verdict(m, pay_tool(m), {}).action == "block"  # the old choices are kept
    assert (book.overlay.idle, book.overlay.park_after_seconds) == ("pill", 60)
    assert book.overlay.glance is (overlay is None)

    book.set_idle("hidden")  # a change keeps everything else the old file said
    again = PolicyBook.in_data_dir(tmp_path)
    assert again.verdict(m, pay_tool(m), {}).action == "block"
    assert again.overlay.glance is (overlay is None)
    assert overlay_in_file(tmp_path)["idle"] == "hidden"


@pytest.mark.parametrize(
    ("overlay", "what"),
    [
        ({"idle": "wide"}, "overlay.idle: Input should be 'pill' or 'hidden'"),
        ({"idle": None}, "overlay.idle"),
        ({"parkAfterSeconds": 3}, "overlay.parkAfterSeconds: Value error, must be 0"),
        ({"parkAfterSeconds": 3601}, "overlay.parkAfterSeconds: Value error, must be 0"),
        ({"parkAfterSeconds": -5}, "overlay.parkAfterSeconds"),
        ({"parkAfterSeconds": "60"}, "overlay.parkAfterSeconds: Value error, must be a number"),
        ({"parkAfterSeconds": True}, "overlay.parkAfterSeconds: Value error, must be a number"),
        ({"parkAfterSeconds": 1e999}, "overlay.parkAfterSeconds"),  # inf after json.loads
        ({"parkAfter": 60}, "overlay.parkAfter: Extra inputs"),
    ],
)
def test_a_bad_overlay_value_is_a_corrupt_file_moved_aside(
    tmp_path: Path, overlay: dict[str, object], what: str, pay_manifest: Any, pay_tool: Any
) -> None:
    m = pay_manifest()
    good = PolicyBook.in_data_dir(tmp_path)
    good.set_asks_first(m, pay_tool(m), False)
    good.set_idle("hidden")
    path = settings_path(tmp_path)
    data = json.loads(path.read_text())
    data["overlay"].update(overlay)
    content = json.dumps(data).replace("Infinity", "1e999")
    path.write_text(content)

    book = PolicyBook.in_data_dir(tmp_path)
    assert book.problem is not None
    assert f"does not match the settings format at {what}" in book.problem
    # Safe defaults: everything asks, and the notch is back to a pill that parks after 60 s.
    assert book.verdict(m, pay_tool(m), {}).action == "ask"
    assert (book.overlay.idle, book.overlay.park_after_seconds) == ("pill", 60)
    aside = [p for p in tmp_path.iterdir() if p.name.startswith(SETTINGS_FILE_NAME + ".corrupt-")]
    assert len(aside) == 1 and aside[0].read_text() == content
    assert not path.exists()


@pytest.mark.parametrize("seconds", [1, 4.9, 3600.5, -1, float("nan"), float("inf")])
def test_the_book_refuses_a_park_time_outside_the_rule(tmp_path: Path, seconds: float) -> None:
    book = PolicyBook.in_data_dir(tmp_path)
    book.set_park_after(30)
    with pytest.raises(PolicyRefused, match=r"0 \(never park\) or 5 to 3600 seconds"):
        book.set_park_after(seconds)
    assert overlay_in_file(tmp_path)["parkAfterSeconds"] == 30
    assert book.overlay.park_after_seconds == 30


def test_the_book_refuses_an_unknown_idle_look(tmp_path: Path) -> None:
    book = PolicyBook.in_data_dir(tmp_path)
    with pytest.raises(PolicyRefused, match="'pill' or 'hidden', not 'wide'"):
        book.set_idle("wide")  # type: ignore[arg-type]
    assert not settings_path(tmp_path).exists()


def test_every_change_is_heard_by_a_running_notch(tmp_path: Path) -> None:
    book = PolicyBook.in_data_dir(tmp_path)
    heard: list[tuple[str, float]] = []
    book.subscribe(lambda: heard.append((book.overlay.idle, book.overlay.park_after_seconds)))
    book.set_idle("hidden")
    book.set_park_after(15)
    assert heard == [("hidden", 60), ("hidden", 15)]

    other = PolicyBook.in_data_dir(tmp_path)  # `notch settings` in another process
    other.set_idle("pill")
    assert book.reload() is True
    assert heard[-1] == ("pill", 15)


def test_two_writers_keep_each_others_overlay_choices(tmp_path: Path) -> None:
    app = PolicyBook.in_data_dir(tmp_path)
    other = PolicyBook.in_data_dir(tmp_path)
    other.set_idle("hidden")
    app.set_park_after(120)  # app has not reloaded, yet must keep the other's idle look
    app.set_glance(False)
    fresh = PolicyBook.in_data_dir(tmp_path)
    assert (fresh.overlay.idle, fresh.overlay.park_after_seconds) == ("hidden", 120)
    assert fresh.overlay.glance is False


# --- how `notch run` combines the file with its flags ---------------------------------------


def _config(*argv: str) -> NotchConfig:
    from notch_app.commands import run as run_command

    parser = argparse.ArgumentParser()
    run_command.configure(parser)
    return run_command.config_from(parser.parse_args(["--data-dir", "/tmp/d", *argv]))


def test_without_flags_the_overlay_follows_the_settings_file(tmp_path: Path) -> None:
    book = PolicyBook.in_data_dir(tmp_path)
    book.set_idle("hidden")
    book.set_park_after(120)
    config = _config()
    settings = overlay_settings_from(config, book.overlay)
    assert (settings.idle_mode, settings.park_after_s) == ("hidden", 120.0)
    # Everything the file does not hold keeps the config's value.
    assert settings.expand_ms == config.settings.expand_ms
    assert settings.theme == config.settings.theme


def test_flags_override_the_settings_file_for_that_run_only(tmp_path: Path) -> None:
    book = PolicyBook.in_data_dir(tmp_path)
    book.set_idle("hidden")
    book.set_park_after(120)
    config = _config("--idle", "pill", "--park-after", "0")
    settings = overlay_settings_from(config, book.overlay)
    assert (settings.idle_mode, settings.park_after_s) == ("pill", 0.0)
    # One flag pins only its own setting; the file still says the other.
    only_park = _config("--park-after", "2.5")
    settings = overlay_settings_from(only_park, book.overlay)
    assert (settings.idle_mode, settings.park_after_s) == ("hidden", 2.5)
    # The flags never write the file.
    assert overlay_in_file(tmp_path) == {
        "answerByVoice": False,
        "glance": True,
        "glanceSeconds": 4,
        "idle": "hidden",
        "parkAfterSeconds": 120,
        "theme": "system",
    }


@pytest.mark.parametrize("value", ["-1", "nan", "inf"])
def test_a_bad_park_after_flag_is_refused(value: str) -> None:
    with pytest.raises(ValueError, match=r"--park-after .*: use 0 \(never park\) or more seconds"):
        _config("--park-after", value)


@pytest.mark.parametrize("seconds", [0, 3, 21, -4, True, 4.5])
def test_a_glance_time_not_offered_is_refused_and_the_file_is_unchanged(
    tmp_path: Path, seconds: object
) -> None:
    book = PolicyBook.in_data_dir(tmp_path)
    with pytest.raises(PolicyRefused, match="a glance stays 2, 4, 6, 10, 20 seconds"):
        book.set_glance_seconds(seconds)  # type: ignore[arg-type]
    assert book.overlay.glance_seconds == 4


def test_a_hand_edited_glance_time_outside_the_choices_is_reported_not_guessed(
    tmp_path: Path,
) -> None:
    settings_path(tmp_path).write_text(
        json.dumps({"version": 1, "overlay": {"glanceSeconds": 99}}), encoding="utf-8"
    )
    book = PolicyBook.in_data_dir(tmp_path)
    assert book.problem is not None and "glanceSeconds" in book.problem
    assert book.overlay.glance_seconds == 4


def test_the_overlay_theme_is_kept_and_a_theme_flag_wins_for_that_run(tmp_path: Path) -> None:
    """Issue 22: Settings → In the notch → Look (System / Light / Dark) is kept in the
    file; `notch run --theme` overrides it for that run only."""
    book = PolicyBook.in_data_dir(tmp_path)
    assert book.overlay.theme == "system"
    book.set_theme("light")
    assert overlay_in_file(tmp_path)["theme"] == "light"
    assert PolicyBook.in_data_dir(tmp_path).overlay.theme == "light"  # after a restart
    assert overlay_settings_from(_config(), book.overlay).theme == "light"
    assert overlay_settings_from(_config("--theme", "dark"), book.overlay).theme == "dark"
    with pytest.raises(PolicyRefused, match="'system', 'light' or 'dark', not 'sepia'"):
        book.set_theme("sepia")  # type: ignore[arg-type]
    assert overlay_in_file(tmp_path)["theme"] == "light"
