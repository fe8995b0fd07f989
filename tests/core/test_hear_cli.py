"""`notch hear` as an author or a script runs it: a real process, its lines and exit codes."""

from __future__ import annotations

import subprocess
import sys

import pytest

from notch_app.cli import main


def hear(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "notch_app", "hear", *args],
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
    )


def test_one_verdict_and_text_line_per_argument() -> None:
    done = hear("yes", "don't send it", "make it shorter", "um")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "yes\tyes",
        "no\tdon't send it",
        "revise\tmake it shorter",
        "unclear\tum",
    ]


def test_reads_one_reply_per_line_from_stdin_when_given_no_text() -> None:
    done = hear(stdin="sí, envíalo\nnein danke\n\noui mais plus court\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "yes\tsí, envíalo",
        "no\tnein danke",
        "unclear\t",
        "revise\toui mais plus court",
    ]


def test_lang_reads_every_reply_in_that_language() -> None:
    # "si" alone is a yes in Spanish; "los" is German for "go ahead" but Spanish for "the".
    assert hear("--lang", "de", "los").stdout == "yes\tlos\n"
    assert hear("--lang", "es", "los").stdout == "unclear\tlos\n"


def test_an_unknown_lang_is_a_usage_error_naming_the_supported_ones() -> None:
    done = hear("--lang", "it", "sì")
    assert done.returncode == 2
    assert done.stdout == ""
    assert "--lang 'it' is not supported" in done.stderr
    assert "en, es, de, fr" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_reply_cannot_forge_extra_lines_or_columns() -> None:
    # A tab or newline inside one argument must not read as a second verdict line.
    done = hear("no\nyes\tyes")
    assert done.returncode == 0
    assert done.stdout.splitlines() == ["no\tno yes yes"]


def test_bytes_that_are_not_utf8_on_stdin_are_noise_not_a_crash() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "notch_app", "hear"],
        input=b"yes\xff\xfe\nno\n",
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert [line.split(b"\t")[0] for line in done.stdout.splitlines()] == [b"yes", b"no"]


def test_listed_in_notch_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    assert "hear" in capsys.readouterr().out
