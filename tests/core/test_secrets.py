"""Integrations' API keys in the OS keyring, preferences in the settings file, and the
environment an integration's server gets (`notch_app.runtime.secrets`).

The keyring is chosen through keyring's own seam (`keyring.set_keyring`) with a small
in-memory backend written here: the machine running the suite has no Secret Service.
`test_secrets_headless.py` checks what happens on such a machine for real.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import keyring
import keyring.backend
import keyring.errors
import pytest
from keyring.backends import fail

from notch_app.manifest.model import Manifest
from notch_app.runtime.policy_book import PolicyBook
from notch_app.runtime.secrets import (
    BadPreference,
    MissingSecret,
    NoKeyring,
    SecretRefused,
    SecretStore,
    integration_environment,
    keyring_problem,
    preference_specs,
    preference_value,
)
from notch_app.runtime.settings import read_settings, settings_path

MAIL = "com.example.mail"
SECRET = "sk-live-7f3a9c2e1b-DO-NOT-LEAK"

AUTH = {
    "kind": "apiKey",
    "fields": [
        {"key": "ACCOUNT", "label": "Account", "required": True},
        {"key": "API_KEY", "label": "API key", "secret": True, "required": True},
        {"key": "WEBHOOK_TOKEN", "label": "Webhook token", "secret": True},
    ],
}
PREFERENCES = [
    {"name": "folder", "title": "Folder", "type": "text", "default": "Inbox"},
    {
        "name": "weekStart",
        "title": "Week starts on",
        "type": "select",
        "default": "monday",
        "options": [{"label": "Monday", "value": "monday"}, "sunday"],
    },
    {"name": "notify", "title": "Notify", "type": "toggle", "default": False},
    {"name": "maxResults", "title": "Max results", "type": "number", "default": 20},
]


class MemoryKeyring(keyring.backend.KeyringBackend):
    """A keyring backend holding entries in a dict (the suite's stand-in for the OS's)."""

    priority: float = 1  # keyring reads any number (a float in its own backends)

    def __init__(self) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # keyring leaves it unannotated
        self.entries: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.entries.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.entries[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if (service, username) not in self.entries:
            raise keyring.errors.PasswordDeleteError("not set")
        del self.entries[(service, username)]


class LockedKeyring(MemoryKeyring):
    """A keyring that stays locked: every call fails the way Secret Service does."""

    def get_password(self, service: str, username: str) -> str | None:
        raise keyring.errors.KeyringLocked("Failed to unlock the collection!")

    def set_password(self, service: str, username: str, password: str) -> None:
        raise keyring.errors.PasswordSetError(f"could not store {password}")


@pytest.fixture
def ring() -> Iterator[MemoryKeyring]:
    before = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.set_keyring(before)


@pytest.fixture
def settings(tmp_path: Path) -> Path:
    return settings_path(tmp_path)


def _environment(settings: Path, store: SecretStore | None = None) -> dict[str, str]:
    return integration_environment(MAIL, AUTH, PREFERENCES, settings_path=settings, store=store)


# --- the environment the integration's server gets ------------------------------------------


def test_environment_holds_preferences_auth_fields_and_secrets_by_their_names(
    ring: MemoryKeyring, settings: Path
) -> None:
    book = PolicyBook(settings)
    book.set_value(MAIL, "auth", "ACCOUNT", "ada@example.com")
    book.set_value(MAIL, "preferences", "notify", True)
    book.set_value(MAIL, "preferences", "maxResults", 50)
    SecretStore().set(MAIL, "API_KEY", SECRET)

    env = _environment(settings)

    assert env == {
        "folder": "Inbox",  # the manifest's default
        "weekStart": "monday",
        "notify": "true",
        "maxResults": "50",
        "ACCOUNT": "ada@example.com",
        "API_KEY": SECRET,
    }  # WEBHOOK_TOKEN is optional and not set: left out
    assert ring.entries == {(f"notch:{MAIL}", "API_KEY"): SECRET}


def test_typed_manifest_models_work_as_well_as_plain_mappings(
    ring: MemoryKeyring, settings: Path
) -> None:
    manifest = Manifest.model_validate(
        {
            "schemaVersion": 1,
            "id": MAIL,
            "version": "1.0.0",
            "name": "Mail",
            "auth": {"kind": "apiKey", "fields": [AUTH["fields"][1]]},
            "preferences": [PREFERENCES[0], PREFERENCES[1]],
            "tools": [],
        }
    )
    SecretStore().set(MAIL, "API_KEY", SECRET)
    env = integration_environment(MAIL, manifest.auth, manifest.preferences, settings_path=settings)
    assert env == {"folder": "Inbox", "weekStart": "monday", "API_KEY": SECRET}


def test_a_missing_required_secret_names_the_field_and_how_to_set_it(
    ring: MemoryKeyring, settings: Path
) -> None:
    PolicyBook(settings).set_value(MAIL, "auth", "ACCOUNT", "ada@example.com")
    with pytest.raises(MissingSecret) as caught:
        _environment(settings)
    assert caught.value.field == "API_KEY"
    assert caught.value.integration == MAIL
    message = str(caught.value)
    assert "API key (API_KEY)" in message
    assert f"`notch secrets set {MAIL} API_KEY`" in message
    assert "Settings" in message


def test_a_missing_required_plain_auth_field_points_to_settings(
    ring: MemoryKeyring, settings: Path
) -> None:
    with pytest.raises(MissingSecret) as caught:
        _environment(settings)
    assert caught.value.field == "ACCOUNT"
    assert "notch secrets" not in str(caught.value)  # not a secret: set in Settings
    assert "Settings" in str(caught.value)


def test_the_person_s_value_wins_over_the_default_and_clearing_it_restores_the_default(
    ring: MemoryKeyring, settings: Path
) -> None:
    book = PolicyBook(settings)
    book.set_value(MAIL, "auth", "ACCOUNT", "ada@example.com")
    SecretStore().set(MAIL, "API_KEY", SECRET)
    book.set_value(MAIL, "preferences", "weekStart", "sunday")
    assert _environment(settings)["weekStart"] == "sunday"
    book.set_value(MAIL, "preferences", "weekStart", None)
    assert _environment(settings)["weekStart"] == "monday"


def test_a_secret_wins_over_a_preference_of_the_same_name(
    ring: MemoryKeyring, settings: Path
) -> None:
    SecretStore().set(MAIL, "API_KEY", SECRET)
    PolicyBook(settings).set_value(MAIL, "preferences", "API_KEY", "from-a-preference")
    env = integration_environment(
        MAIL,
        [AUTH["fields"][1]],
        [{"name": "API_KEY", "title": "x", "type": "text"}],
        settings_path=settings,
    )
    assert env == {"API_KEY": SECRET}


def test_a_secret_written_into_the_settings_file_by_hand_is_not_used(
    ring: MemoryKeyring, settings: Path, caplog: pytest.LogCaptureFixture
) -> None:
    settings.write_text(
        json.dumps(
            {
                "version": 1,
                "integrations": {MAIL: {"auth": {"ACCOUNT": "ada", "API_KEY": "typed-by-hand"}}},
            }
        )
    )
    with caplog.at_level(logging.WARNING), pytest.raises(MissingSecret) as caught:
        _environment(settings)
    assert caught.value.field == "API_KEY"
    assert "notch secrets set com.example.mail API_KEY" in caplog.text
    assert "typed-by-hand" not in caplog.text


# --- preferences in the settings file --------------------------------------------------------


def test_an_old_settings_file_without_preferences_loads_and_is_written_back_unchanged(
    settings: Path,
) -> None:
    old = {
        "version": 1,
        "policies": {MAIL: {"send_email": {"asksFirst": True, "guards": []}}},
        "overlay": {"glance": False, "idle": "pill", "parkAfterSeconds": 60},
    }
    settings.write_text(json.dumps(old))
    loaded = read_settings(settings)
    assert loaded.problem is None
    assert loaded.document.integrations == {}
    book = PolicyBook(settings)
    book.set_glance(True)
    written = json.loads(settings.read_text())
    assert "integrations" not in written  # an older Notch reads the file it always did
    assert written["overlay"]["glance"] is True


def test_a_value_that_no_longer_fits_is_named_with_its_place_and_kept(
    ring: MemoryKeyring, settings: Path
) -> None:
    settings.write_text(
        json.dumps(
            {
                "version": 1,
                "policies": {MAIL: {"send_email": {"asksFirst": False, "card": "abc"}}},
                "integrations": {
                    MAIL: {"preferences": {"maxResults": "fifty"}, "auth": {"ACCOUNT": "ada"}}
                },
            }
        )
    )
    SecretStore().set(MAIL, "API_KEY", SECRET)
    with pytest.raises(BadPreference) as caught:
        _environment(settings)
    message = str(caught.value)
    assert f"{settings}: integrations.{MAIL}.preferences.maxResults" in message
    assert "maxResults is a number" in message
    assert "Settings" in message
    # nothing lost: the file, the value and the person's policies are all still there
    data = json.loads(settings.read_text())
    assert data["integrations"][MAIL]["preferences"]["maxResults"] == "fifty"
    assert PolicyBook(settings).stored(MAIL, "send_email") is not None


def test_a_select_value_outside_its_options_is_refused_with_the_options() -> None:
    spec = preference_specs(PREFERENCES)[1]
    with pytest.raises(BadPreference, match="one of 'monday', 'sunday'"):
        preference_value(spec, "friday")
    assert preference_value(spec, "sunday") == "sunday"


@pytest.mark.parametrize(
    ("index", "value", "words"),
    [
        (2, "yes", "toggle: use true or false"),
        (3, True, "is a number"),
        (3, float("inf"), "finite"),
        (0, 12, "is text"),
        (0, "a\0b", "NUL"),
    ],
)
def test_preference_values_must_fit_their_type(index: int, value: Any, words: str) -> None:
    with pytest.raises(BadPreference, match=words):
        preference_value(preference_specs(PREFERENCES)[index], value)


def test_number_bounds_from_the_manifest_are_kept() -> None:
    (spec,) = preference_specs([{"name": "n", "title": "N", "type": "number", "min": 1, "max": 5}])
    with pytest.raises(BadPreference, match="at most 5"):
        preference_value(spec, 6)
    assert preference_value(spec, 5) == 5


def test_a_required_preference_without_value_or_default_is_named(
    ring: MemoryKeyring, settings: Path
) -> None:
    with pytest.raises(BadPreference, match=r"needs its preference Region \(region\)"):
        integration_environment(
            MAIL,
            None,
            [{"name": "region", "title": "Region", "type": "text", "required": True}],
            settings_path=settings,
        )


# --- the keyring, and an agent (or manifest) trying to reach what is not theirs ------------


@pytest.mark.parametrize(
    ("integration_id", "field"),
    [
        (f"{MAIL}:API_KEY", "API_KEY"),
        ("../com.example.mail", "API_KEY"),
        ("com.example.mail/../other", "API_KEY"),
        ("COM.EXAMPLE.MAIL", "API_KEY"),
        ("com.example.mail\0", "API_KEY"),
        ("", "API_KEY"),
        (MAIL, "API_KEY:x"),
        (MAIL, "../API_KEY"),
        (MAIL, "API KEY"),
        (MAIL, "API_KEY\n"),
        (MAIL, ""),
        (MAIL, "x" * 500),
    ],
)
def test_odd_ids_and_field_keys_are_refused_before_the_keyring_is_touched(
    ring: MemoryKeyring, integration_id: str, field: str
) -> None:
    store = SecretStore()
    with pytest.raises(SecretRefused):
        store.set(integration_id, field, SECRET)
    with pytest.raises(SecretRefused):
        store.get(integration_id, field)
    assert ring.entries == {}


def test_one_integration_cannot_read_another_s_secret(ring: MemoryKeyring, settings: Path) -> None:
    store = SecretStore()
    store.set("com.example.mail", "API_KEY", SECRET)
    for other in ("com.example.mai", "com.example.mail.evil", "com.example", "example.mail"):
        assert store.get(other, "API_KEY") is None
        assert store.get("com.example.mail", "api_key") is None
        with pytest.raises(MissingSecret):
            integration_environment(other, [AUTH["fields"][1]], None, settings_path=settings)


def test_set_replace_clear(ring: MemoryKeyring) -> None:
    store = SecretStore()
    assert not store.is_set(MAIL, "API_KEY")
    store.set(MAIL, "API_KEY", "first")
    store.set(MAIL, "API_KEY", SECRET)
    assert store.get(MAIL, "API_KEY") == SECRET
    assert store.clear(MAIL, "API_KEY") is True
    assert store.clear(MAIL, "API_KEY") is False
    assert not store.is_set(MAIL, "API_KEY")


@pytest.mark.parametrize(
    ("value", "words"), [("", "empty"), ("ab\0cd", "NUL"), ("k" * 20_000, "longer than")]
)
def test_values_no_environment_can_carry_are_refused_without_echoing_them(
    ring: MemoryKeyring, value: str, words: str
) -> None:
    with pytest.raises(SecretRefused, match=words) as caught:
        SecretStore().set(MAIL, "API_KEY", value)
    if value:
        assert value not in str(caught.value)
    assert ring.entries == {}


def test_a_locked_keyring_is_reported_without_the_secret(settings: Path) -> None:
    store = SecretStore(LockedKeyring())
    with pytest.raises(NoKeyring) as caught:
        store.set(MAIL, "API_KEY", SECRET)
    assert SECRET not in str(caught.value)
    assert "Unlock the keyring" in str(caught.value)
    with pytest.raises(MissingSecret) as missing:
        integration_environment(
            MAIL,
            [AUTH["fields"][1]],
            None,
            settings_path=settings,
            store=store,
        )
    assert missing.value.why is not None and "Unlock" in missing.value.why


def test_a_secret_never_reaches_the_log_the_settings_file_or_a_message(
    ring: MemoryKeyring, settings: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.DEBUG):
        book = PolicyBook(settings)
        book.set_value(MAIL, "auth", "ACCOUNT", "ada@example.com")
        store = SecretStore()
        store.set(MAIL, "API_KEY", SECRET)
        env = _environment(settings)
        store.clear(MAIL, "API_KEY")
        with pytest.raises(MissingSecret) as caught:
            _environment(settings)
    assert env["API_KEY"] == SECRET  # it was really there to leak
    assert SECRET not in caplog.text
    assert "API_KEY" in caplog.text  # the log says what happened, by name
    assert SECRET not in settings.read_text()
    assert SECRET not in str(caught.value) and SECRET not in repr(caught.value)


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="needs /proc")
def test_the_server_gets_the_secret_in_its_environment_never_on_its_command_line(
    ring: MemoryKeyring, settings: Path
) -> None:
    PolicyBook(settings).set_value(MAIL, "auth", "ACCOUNT", "ada@example.com")
    SecretStore().set(MAIL, "API_KEY", SECRET)
    env = {**os.environ, **_environment(settings)}
    server = subprocess.Popen(
        [sys.executable, "-c", "import sys; print('up', flush=True); sys.stdin.read()"],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    try:
        # Read /proc only once the server runs: before its exec, environ can still be empty.
        assert server.stdout is not None and server.stdout.readline() == b"up\n"
        cmdline = Path(f"/proc/{server.pid}/cmdline").read_bytes()
        environ = Path(f"/proc/{server.pid}/environ").read_bytes()
        listing = subprocess.run(
            ["ps", "-ww", "-o", "args=", "-p", str(server.pid)],
            capture_output=True,
            text=True,
            check=False,
        ).stdout
    finally:
        server.communicate(b"")
    assert f"API_KEY={SECRET}".encode() in environ.split(b"\0")  # only the server has it
    assert SECRET.encode() not in cmdline
    assert SECRET not in listing


# --- which keyring backends Notch accepts --------------------------------------------------


class PlaintextKeyring(MemoryKeyring):
    """Named like keyrings.alt's: a file anyone with the disk can read."""

    priority = 0.5


class UnrecommendedKeyring(MemoryKeyring):
    """Encrypted, but one keyring does not recommend (priority < 1), like keyrings.alt's."""

    priority = 0.6


def test_no_keyring_is_refused_with_how_to_get_one(settings: Path) -> None:
    # keyring leaves the backends' __init__ unannotated.
    store = SecretStore(fail.Keyring())  # type: ignore[no-untyped-call]
    problem = store.problem
    assert problem is not None and "No OS keyring" in problem
    assert "plain-text file" in problem
    with pytest.raises(NoKeyring):
        store.set(MAIL, "API_KEY", SECRET)
    with pytest.raises(MissingSecret) as caught:
        integration_environment(
            MAIL,
            [AUTH["fields"][1]],
            None,
            settings_path=settings,
            store=store,
        )
    assert caught.value.why == problem
    # an optional secret is left out; the server starts without it
    assert (
        integration_environment(
            MAIL,
            [AUTH["fields"][2]],
            None,
            settings_path=settings,
            store=store,
        )
        == {}
    )
    assert not any(p.name != settings.name for p in settings.parent.iterdir())  # no file


def test_a_plain_text_backend_is_refused_even_when_chosen(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", f"{__name__}.PlaintextKeyring")
    backend = PlaintextKeyring()
    problem = keyring_problem(backend)
    assert problem is not None and "plain text" in problem
    with pytest.raises(NoKeyring):
        SecretStore(backend).set(MAIL, "API_KEY", SECRET)
    assert backend.entries == {}


def test_an_unrecommended_backend_is_used_only_when_the_person_chose_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("PYTHON_KEYRING_BACKEND", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))  # no keyringrc.cfg
    backend = UnrecommendedKeyring()
    assert "does not recommend" in (keyring_problem(backend) or "")
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", f"{__name__}.UnrecommendedKeyring")
    assert keyring_problem(backend) is None
    SecretStore(backend).set(MAIL, "API_KEY", SECRET)
    assert backend.entries == {(f"notch:{MAIL}", "API_KEY"): SECRET}
