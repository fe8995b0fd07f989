"""`notch policy` as a person runs it: exit codes and messages.

A real process where the process is the point: a change made and listed as a person
makes it, a refusal, and a running Notch's book seeing another process's change. The
other calls go through `notch_app.cli.main` in this process, the function the `notch`
script and `python -m notch_app` call with their argv (a process costs ~0.35 s of CPU,
most of it imports this process has done already); each such call reads and writes the
settings file as a process would, since nothing of the book is kept between calls."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from notch_app.cli import main
from notch_app.runtime.policy_book import PolicyBook
from notch_app.runtime.settings import settings_path

MAIL = "dev.notch.examples.mail"
PAY = "dev.notch.examples.payments"


def notch(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")  # no installed integrations leak in
    env.pop("NOTCH_DATA_DIR", None)
    return subprocess.run(
        [sys.executable, "-m", "notch_app", "policy", *args, "--data-dir", str(tmp_path / "data")],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


Policy = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def policy_here(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Policy:
    """`policy_here(tmp_path, *args)`: as `notch(tmp_path, *args)`, through `main` in this
    process, with the same environment changes; its exit code and output."""

    def run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
        argv = ["policy", *args, "--data-dir", str(tmp_path / "data")]
        with monkeypatch.context() as env:
            env.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
            env.delenv("NOTCH_DATA_DIR", raising=False)
            capsys.readouterr()  # only this call's output
            code = main(argv)
        said = capsys.readouterr()
        return subprocess.CompletedProcess(argv, code, said.out, said.err)

    return run


def test_set_list_and_reset(tmp_path: Path, policy_here: Policy) -> None:
    # The real process for a change and for the list a person reads.
    done = notch(tmp_path, "set", MAIL, "send_email", "--asks-first", "off")
    assert done.returncode == 0, done.stderr
    assert "runs the moment the agent picks it" in done.stdout
    assert policy_here(tmp_path, "set", PAY, "pay_invoice", "--block").returncode == 0
    guarded = policy_here(tmp_path, "guard", PAY, "pay_invoice", "--over", "amount", "500")
    assert guarded.returncode == 0

    listed = json.loads(policy_here(tmp_path, "list", "--json").stdout)
    by_tool = {(a["integration"], a["tool"]): a for a in listed["actions"]}
    assert by_tool[(MAIL, "send_email")]["policy"] == "off"
    assert by_tool[(PAY, "pay_invoice")]["policy"] == "blocked"
    assert by_tool[(PAY, "pay_invoice")]["guards"] == [
        {"kind": "over", "argument": "amount", "limit": 500}
    ]
    assert {"integration": MAIL, "tool": "search_mail"} in listed["readOnly"]

    text = notch(tmp_path, "list").stdout
    assert "send_email" in text and " off" in text
    assert "never asks (read-only): search_mail, get_thread" in text

    assert policy_here(tmp_path, "reset", MAIL).returncode == 0
    listed = json.loads(policy_here(tmp_path, "list", "--json").stdout)
    by_tool = {(a["integration"], a["tool"]): a for a in listed["actions"]}
    assert by_tool[(MAIL, "send_email")]["policy"] == "asksFirst"
    assert by_tool[(PAY, "pay_invoice")]["policy"] == "blocked"  # other integrations kept


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("set", "dev.notch.examples.mial", "send_email", "--asks-first", "off"),
            "no integration 'dev.notch.examples.mial' is loaded; did you mean "
            "'dev.notch.examples.mail'?",
        ),
        (("set", "mail", "send_email", "--block"), "did you mean 'dev.notch.examples.mail'?"),
        (
            ("set", MAIL, "send_emial", "--asks-first", "off"),
            "has no tool 'send_emial'; did you mean 'send_email'?",
        ),
        (
            ("set", MAIL, "search_mail", "--asks-first", "off"),
            "search_mail in dev.notch.examples.mail is read-only: it never asks",
        ),
        (("set", PAY, "get_invoice", "--block"), "is read-only"),
        (("guard", PAY, "pay_invoice", "--over", "amout", "5"), "did you mean 'amount'?"),
        (("guard", PAY, "pay_invoice", "--over", "amount", "lots"), "'lots' is not a number"),
        (("guard", PAY, "pay_invoice", "--over", "currency", "5"), "holds text, not a number"),
        (("reset", "com.nobody.here"), "no integration 'com.nobody.here' is loaded"),
        (
            ("set", MAIL, "send_email"),
            "one of the arguments --asks-first --block --refuse is required",
        ),
    ],
)
def test_refusals_exit_2_with_a_clear_message(
    tmp_path: Path, args: tuple[str, ...], message: str, policy_here: Policy
) -> None:
    # In-process; test_a_refusal_from_the_real_process covers the real process.
    done = policy_here(tmp_path, *args)
    err = done.stderr
    assert done.returncode == 2
    assert message in err
    assert "Traceback" not in err
    assert not settings_path(tmp_path / "data").exists()  # nothing was written


def test_a_refusal_from_the_real_process(tmp_path: Path) -> None:
    done = notch(tmp_path, "set", MAIL, "search_mail", "--asks-first", "off")
    assert done.returncode == 2
    assert done.stderr.startswith(
        "notch policy: search_mail in dev.notch.examples.mail is read-only"
    )


def test_extra_manifest_folders_are_loaded(tmp_path: Path, policy_here: Policy) -> None:
    folder = tmp_path / "mine" / "note"
    folder.mkdir(parents=True)
    mail = Path(__file__).parents[2] / "manifests/mail"
    manifest = json.loads((mail / "manifest.json").read_text())
    manifest["id"] = "com.example.note"
    (folder / "manifest.json").write_text(json.dumps(manifest))
    (folder / "icon.svg").write_bytes((mail / "icon.svg").read_bytes())  # icon must exist
    done = policy_here(
        tmp_path, "set", "com.example.note", "send_email", "--asks-first", "off",
        "--manifests", str(tmp_path / "mine"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    missing = policy_here(tmp_path, "list", "--manifests", str(tmp_path / "nowhere"))
    assert missing.returncode == 2 and "no such folder" in missing.stderr


def test_a_corrupt_settings_file_is_reported_and_everything_asks(
    tmp_path: Path, policy_here: Policy
) -> None:
    path = settings_path(tmp_path / "data")
    path.parent.mkdir(parents=True)
    path.write_text('{"version": 1, "policies": {"x": 3}}')
    done = policy_here(tmp_path, "list", "--json")
    assert done.returncode == 0
    assert "moved aside" in done.stderr and "every action asks first" in done.stderr
    listed = json.loads(done.stdout)
    assert {a["policy"] for a in listed["actions"]} == {"asksFirst"}


def test_a_running_book_sees_the_cli_change_on_reload(tmp_path: Path) -> None:
    running = PolicyBook.in_data_dir(tmp_path / "data")
    assert notch(tmp_path, "set", MAIL, "send_email", "--block").returncode == 0
    assert running.reload() is True
    stored = running.stored(MAIL, "send_email")
    assert stored is not None and stored.blocked


def test_off_is_kept_for_the_folder_it_was_loaded_from(tmp_path: Path, policy_here: Policy) -> None:
    """Issue 18: an "off" made here binds to where the integration was loaded from, so
    another folder (or server) under the same id and name asks again."""
    from notch_app.runtime.catalog import CatalogEntry, load_integrations
    from notch_app.runtime.policy_book.fingerprint import integration_source

    done = policy_here(tmp_path, "set", MAIL, "send_email", "--asks-first", "off")
    assert done.returncode == 0
    book = PolicyBook(settings_path(tmp_path / "data"))
    stored = book.stored(MAIL, "send_email")
    assert stored is not None and stored.source is not None
    catalog, _ = load_integrations([])
    entry = catalog.entry(MAIL)
    manifest = catalog.integration(MAIL)
    assert entry is not None and manifest is not None
    send = manifest.tool("send_email")
    assert send is not None
    here = integration_source(entry, manifest)
    assert book.verdict(manifest, send, {}, here).action == "auto"
    elsewhere = integration_source(CatalogEntry(manifest, tmp_path / "copy"), manifest)
    verdict = book.verdict(manifest, send, {}, elsewhere)
    assert verdict.action == "ask" and "from another source" in (verdict.reason or "")
