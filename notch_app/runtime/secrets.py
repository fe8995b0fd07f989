"""An integration's API keys and preferences, and the environment its server starts with.

Secrets, the manifest's `auth` fields with `secret: true`, live in the OS keyring through
the `keyring` library (Secret Service or KWallet on Linux, the Keychain on macOS, the
Credential Manager on Windows): service `notch:<integration id>`, username the field's
key. Ids and keys are checked against the manifest's own patterns first, so no odd name
(`a:b`, `../x`, a NUL) can reach another integration's entry. A secret never goes into the
settings file, the log, a card, an exception message or a command line; the only place it
is handed on is the environment of the integration's own server (`integration_environment`).

Preferences, and auth fields that are not secret, live in the settings file
(`notch-settings.json`, key `integrations`); whether a stored value still fits the
manifest's type is checked here, where it is used, and a value that does not is named
with its place and the fix (`BadPreference`), never dropped.

No OS keyring (a headless machine with no Secret Service running): Notch refuses to keep
or read secrets and says how to get a keyring (`NoKeyring`); it never falls back to a
plain-text file on its own. Keyring's auto-detection may pick a backend it does not
recommend (keyrings.alt's plain-text file, when installed): Notch refuses those unless
the person chose the backend explicitly (`PYTHON_KEYRING_BACKEND` or keyring's
`keyringrc.cfg`), and refuses plain-text, null and fail backends even then.
"""

from __future__ import annotations

import logging
import math
import os
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from notch_app.manifest import limits
from notch_app.manifest.limits import REVERSE_DNS
from notch_app.runtime.folders import SETTINGS_FILE_NAME, default_data_dir
from notch_app.runtime.session_bus import reach_session_bus

if TYPE_CHECKING:  # the settings: read only where there is a file (it loads pydantic)
    import keyring.backend

    from notch_app.runtime.settings import IntegrationValues

__all__ = [
    "MAX_SECRET_CHARS",
    "SERVICE_PREFIX",
    "AuthSpec",
    "BadPreference",
    "MissingSecret",
    "NoKeyring",
    "PreferenceSpec",
    "SecretRefused",
    "SecretStore",
    "SetupProblem",
    "auth_specs",
    "environment_text",
    "integration_environment",
    "keyring_problem",
    "preference_specs",
    "preference_value",
    "service_name",
]

log = logging.getLogger("notch.secrets")

SERVICE_PREFIX: Final = "notch:"
MAX_SECRET_CHARS: Final = 16 * 1024
"""Longer than any API key or private key; a bound on what stdin may hand us."""

_FIELD_KEY = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]*$")
_INTEGRATION_ID = re.compile(REVERSE_DNS)


# --- problems: each str() is a sentence for the person, never holding a secret ------------


class SetupProblem(Exception):
    """An integration cannot start as set up: a secret or preference is missing or wrong,
    or there is no keyring. str() is a plain sentence naming the field and the fix."""


class MissingSecret(SetupProblem):
    """A required auth field has no value. `.integration` and `.field` name it."""

    def __init__(
        self,
        integration: str,
        field: str,
        *,
        label: str | None = None,
        secret: bool = True,
        why: str | None = None,
    ) -> None:
        self.integration = integration
        self.field = field
        self.label = label
        self.secret = secret
        self.why = why
        super().__init__(str(self))

    def __str__(self) -> str:
        what = f"{self.label} ({self.field})" if self.label else self.field
        if self.secret:
            how = (
                f"Set it in Notch's Settings (the integration's API keys), or run "
                f"`notch secrets set {self.integration} {self.field}` and type it when asked."
            )
        else:
            how = "Set it in Notch's Settings, on the integration's page."
        text = f"{self.integration} needs {what}, which is not set. {how}"
        return f"{text} {self.why}" if self.why else text


class NoKeyring(SetupProblem):
    """No usable OS keyring: secrets can be neither kept nor read. The message says why
    and how to get one."""


class SecretRefused(SetupProblem, ValueError):
    """An integration id, field key or secret value that Notch will not store."""


class BadPreference(SetupProblem, ValueError):
    """A preference value that does not fit the manifest's type; names the place and fix."""


# --- the fields a manifest declares, from the typed model or a plain mapping ---------------


def _get(item: Any, name: str, default: Any = None) -> Any:
    if isinstance(item, Mapping):
        return item.get(name, default)
    return getattr(item, name, default)


@dataclass(frozen=True, slots=True)
class AuthSpec:
    """One `auth` field: `key` names the env var; `secret` ones live in the keyring."""

    key: str
    label: str
    secret: bool = False
    required: bool = False
    placeholder: str | None = None
    description: str | None = None


@dataclass(frozen=True, slots=True)
class PreferenceSpec:
    """One `preferences` entry: text, select, toggle or number."""

    name: str
    title: str
    type: str = "text"
    default: str | bool | int | float | None = None
    options: tuple[tuple[str, str], ...] = ()
    """(value, label) pairs of a select."""
    required: bool = False
    description: str | None = None
    placeholder: str | None = None
    minimum: float | None = None
    maximum: float | None = None


def auth_specs(auth: Any) -> tuple[AuthSpec, ...]:
    """The auth fields of a manifest's `auth` (the model, a mapping, a list of fields, or
    None). Fields without a usable key are skipped: the manifest's validation names them."""
    if auth is None:
        return ()
    fields = _get(auth, "fields", None) if not isinstance(auth, list | tuple) else auth
    out: list[AuthSpec] = []
    for field in fields or ():
        key = _get(field, "key", None) or _get(field, "name", None)
        if not isinstance(key, str) or not key:
            continue
        label = _get(field, "label", None) or _get(field, "title", None) or key
        out.append(
            AuthSpec(
                key=key,
                label=str(label),
                secret=bool(_get(field, "secret", False)),
                required=bool(_get(field, "required", False)),
                placeholder=_get(field, "placeholder", None),
                description=_get(field, "description", None),
            )
        )
    return tuple(out)


def preference_specs(preferences: Iterable[Any] | None) -> tuple[PreferenceSpec, ...]:
    """The preferences of a manifest (models or mappings); unnamed entries are skipped."""
    out: list[PreferenceSpec] = []
    for pref in preferences or ():
        name = _get(pref, "name", None) or _get(pref, "key", None)
        if not isinstance(name, str) or not name:
            continue
        options: list[tuple[str, str]] = []
        for option in _get(pref, "options", None) or ():
            if isinstance(option, str):
                options.append((option, option))
            else:
                value = _get(option, "value", None)
                if value is not None:
                    options.append((str(value), str(_get(option, "label", None) or value)))
        low = _get(pref, "minimum", None)
        high = _get(pref, "maximum", None)
        out.append(
            PreferenceSpec(
                name=name,
                title=str(_get(pref, "title", None) or _get(pref, "label", None) or name),
                type=str(_get(pref, "type", "text") or "text"),
                default=_get(pref, "default", None),
                options=tuple(options),
                required=bool(_get(pref, "required", False)),
                description=_get(pref, "description", None),
                placeholder=_get(pref, "placeholder", None),
                minimum=_get(pref, "min", None) if low is None else low,
                maximum=_get(pref, "max", None) if high is None else high,
            )
        )
    return tuple(out)


def preference_value(spec: PreferenceSpec, value: object) -> str | bool | int | float:
    """`value` checked against the preference's type: text and select are text (a select's
    one of its options), toggle true/false, number a finite number within its bounds.

    Raises BadPreference saying what the value should be.
    """
    kind = spec.type
    if kind == "toggle":
        if not isinstance(value, bool):
            raise BadPreference(f"{spec.name} is a toggle: use true or false, not {value!r}")
        return value
    if kind == "number":
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise BadPreference(f"{spec.name} is a number: write it without quotes, not {value!r}")
        if not math.isfinite(value):
            raise BadPreference(f"{spec.name} must be a finite number")
        if spec.minimum is not None and value < spec.minimum:
            raise BadPreference(f"{spec.name} must be at least {spec.minimum}, not {value}")
        if spec.maximum is not None and value > spec.maximum:
            raise BadPreference(f"{spec.name} must be at most {spec.maximum}, not {value}")
        return value
    if not isinstance(value, str):
        raise BadPreference(f"{spec.name} is text: put the value in quotes, not {value!r}")
    if "\0" in value:
        raise BadPreference(f"{spec.name} cannot hold a NUL character")
    if kind == "select" and spec.options and value not in {v for v, _ in spec.options}:
        allowed = ", ".join(repr(v) for v, _ in spec.options[:12])
        raise BadPreference(f"{spec.name} must be one of {allowed}, not {value!r}")
    return value


def environment_text(value: str | bool | int | float) -> str:
    """How a preference reads in the server's environment: true/false, 5, 2.5, text."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return str(value)


# --- the keyring ---------------------------------------------------------------------------


def service_name(integration_id: str) -> str:
    """The keyring service for an integration: `notch:<id>`. Raises SecretRefused for an
    id that is not reverse-DNS (the manifest's own rule), so none can alias another."""
    if (
        not isinstance(integration_id, str)
        or len(integration_id) > limits.MAX_NAME_CHARS
        or not _INTEGRATION_ID.fullmatch(integration_id)
    ):
        raise SecretRefused(
            f"{integration_id!r} is not an integration id: ids are reverse-DNS, lower case "
            "(like com.example.mail); copy it from `notch settings` or the manifest's id"
        )
    return SERVICE_PREFIX + integration_id


def _check_field(field: str) -> str:
    if (
        not isinstance(field, str)
        or len(field) > limits.MAX_NAME_CHARS
        or not _FIELD_KEY.fullmatch(field)
    ):
        raise SecretRefused(
            f"{field!r} is not an auth field key: keys start with a letter and hold letters, "
            "digits, _ . or - (copy it from the manifest's auth fields)"
        )
    return field


def _keyring_library() -> None:
    """Import `keyring` on first use: with its backends it is ~70-100 ms of CPU, which a
    `notch mcp` or `notch secrets` that reads no secret does not pay."""
    if sys.platform.startswith("linux"):
        # keyring imports every backend it ships; its macOS one runs ldconfig and gcc
        # through ctypes' find_library on Linux (0.1-0.4 s a start) and refuses to run
        # anywhere but macOS before it uses them: it is left unimported.
        sys.modules.setdefault("keyring.backends.macOS.api", None)  # type: ignore[arg-type]
    import keyring  # noqa: F401  (the import is the point: its backends, after the guard)


def _keyring() -> keyring.backend.KeyringBackend:
    """The backend keyring chose, after pointing this process at the person's session
    bus when a client started Notch without its address (runtime/session_bus.py): keyring
    chooses once, and the Secret Service is found through that bus or not at all."""
    reach_session_bus()
    _keyring_library()
    import keyring

    return keyring.get_keyring()


def _backend_name(backend: object) -> str:
    kind = type(backend)
    return f"{kind.__module__}.{kind.__qualname__}"


def _chosen_explicitly() -> bool:
    # The person's own choice through keyring's documented seams (env, keyringrc.cfg).
    if os.environ.get("PYTHON_KEYRING_BACKEND"):
        return True
    try:  # keyring is imported (keyring_problem)
        from keyring.core import load_config

        return load_config() is not None
    except Exception:  # a broken keyringrc.cfg is keyring's to report, not a choice
        return False


def keyring_problem(backend: keyring.backend.KeyringBackend | None = None) -> str | None:
    """Why secrets cannot be kept with `backend` (default: the one keyring chose), or None
    when it is a real keyring. See the module docstring for what is refused."""
    _keyring_library()
    from keyring.backends import chainer, fail, null

    chosen = _keyring() if backend is None else backend
    writer: object = chosen
    if isinstance(chosen, chainer.ChainerBackend):
        chained = list(type(chosen).backends)
        writer = chained[0] if chained else None
    name = _backend_name(writer)
    how = (
        "Start and unlock a keyring service (GNOME Keyring, KeePassXC's Secret Service or "
        "KWallet on Linux; the Keychain and Credential Manager work as they are), or "
        "choose a keyring backend with PYTHON_KEYRING_BACKEND. Notch never keeps API "
        "keys in a plain-text file."
    )
    if writer is None or isinstance(writer, fail.Keyring | null.Keyring):
        return f"No OS keyring is available to keep API keys (keyring found none). {how}"
    lowered = name.lower()
    if "plaintext" in lowered or "insecure" in lowered or "uncrypted" in lowered:
        return f"The keyring backend {name} keeps secrets as plain text; Notch refuses it. {how}"
    try:
        priority = float(getattr(writer, "priority", 0))
    except Exception as exc:  # a backend that is not viable here says so by raising
        return f"The keyring backend {name} cannot be used here ({type(exc).__name__}). {how}"
    if priority < 1 and not _chosen_explicitly():
        return (
            f"The only keyring backend found, {name}, is one the keyring library does not "
            f"recommend, so Notch does not pick it on its own. {how}"
        )
    return None


def _scrub(text: str, secret: str | None) -> str:
    return text.replace(secret, "[secret]") if secret else text


class SecretStore:
    """Integrations' secrets in the OS keyring (`backend`, default: keyring's choice).

    Every method raises NoKeyring when there is no usable keyring (or it refused, e.g.
    stays locked) and SecretRefused for an id or key that is not well formed.
    """

    def __init__(self, backend: keyring.backend.KeyringBackend | None = None) -> None:
        self._backend = backend

    @property
    def backend(self) -> keyring.backend.KeyringBackend:
        return _keyring() if self._backend is None else self._backend

    @property
    def problem(self) -> str | None:
        """Why secrets cannot be kept here, or None (see `keyring_problem`)."""
        return keyring_problem(self.backend)

    def _usable(self) -> keyring.backend.KeyringBackend:
        backend = self.backend
        problem = keyring_problem(backend)
        if problem is not None:
            raise NoKeyring(problem)
        return backend

    def get(self, integration_id: str, field: str) -> str | None:
        """The secret, or None when it is not set."""
        service = service_name(integration_id)
        _check_field(field)
        backend = self._usable()
        try:
            value = backend.get_password(service, field)
        except Exception as exc:
            # Any: a backend raises its library's own errors besides keyring's (the Secret
            # Service one: secretstorage's ItemNotFoundException or LockedException,
            # jeepney's DBusErrorResponse, a bus gone mid-call). Each is the keyring
            # failing, said with the field and the fix, never a library's bare message.
            raise NoKeyring(_keyring_refused("read", exc)) from None
        return value if value else None

    def is_set(self, integration_id: str, field: str) -> bool:
        """Whether the secret has a value; the value itself never leaves the keyring."""
        return self.get(integration_id, field) is not None

    def set(self, integration_id: str, field: str, value: str) -> None:
        """Keep `value` as the integration's `field`, replacing any earlier one.

        Raises SecretRefused for an empty value, one holding a NUL (an environment
        cannot carry it) or longer than MAX_SECRET_CHARS.
        """
        service = service_name(integration_id)
        _check_field(field)
        if not isinstance(value, str) or not value:
            raise SecretRefused(f"the value for {field} is empty; to remove it, clear it instead")
        if "\0" in value:
            raise SecretRefused(
                f"the value for {field} holds a NUL character; check what you pasted"
            )
        if len(value) > MAX_SECRET_CHARS:
            raise SecretRefused(
                f"the value for {field} is longer than {MAX_SECRET_CHARS} characters; "
                "check what you pasted"
            )
        backend = self._usable()
        try:
            backend.set_password(service, field, value)
        except Exception as exc:  # any backend's error, as in get
            raise NoKeyring(_scrub(_keyring_refused("keep", exc), value)) from None
        log.info("secret %s of %s set in %s", field, integration_id, _backend_name(backend))

    def clear(self, integration_id: str, field: str) -> bool:
        """Remove the secret; returns whether there was one."""
        service = service_name(integration_id)
        _check_field(field)
        backend = self._usable()
        from keyring.errors import PasswordDeleteError  # imported by _usable

        try:
            if not backend.get_password(service, field):
                return False
            backend.delete_password(service, field)
        except PasswordDeleteError:
            return False
        except Exception as exc:  # any backend's error, as in get
            raise NoKeyring(_keyring_refused("remove", exc)) from None
        log.info("secret %s of %s cleared", field, integration_id)
        return True


def _keyring_refused(what: str, exc: Exception) -> str:
    detail = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else ""
    return (
        f"The OS keyring could not {what} the secret ({type(exc).__name__}"
        + (f": {detail}" if detail else "")
        + "). Unlock the keyring (log in to the desktop session, or unlock it in its app) "
        "and try again."
    )


# --- the environment of an integration's server -------------------------------------------


def integration_environment(
    integration_id: str,
    auth_fields: Any,
    preference_fields: Iterable[Any] | None,
    *,
    settings_path: Path | None = None,
    store: SecretStore | None = None,
) -> dict[str, str]:
    """The variables to add to the environment of the integration's own server: every
    preference (the person's value, else the manifest's default) and every auth field,
    each named after the field's key or name as VoiceOS does (`ANTHROPIC_API_KEY`).

    `auth_fields` is the manifest's `auth` (model or mapping, with `fields`), a list of
    fields, or None; `preference_fields` the manifest's `preferences`. `settings_path` is
    the settings file (default: the data dir's). A secret wins over a preference of the
    same name.

    Raises MissingSecret for a required auth field with no value (also when there is no
    keyring to read it from: `.why` says so), BadPreference for a stored value that does
    not fit its type (naming the file, the key and the fix), SecretRefused for an id that
    is not reverse-DNS. An optional secret that cannot be read is left out.
    """
    service_name(integration_id)  # a malformed id is refused before anything is read
    path = Path(settings_path or default_data_dir() / SETTINGS_FILE_NAME)
    values = None
    # No file is no values (as `read_settings` says), told without loading pydantic:
    # `notch mcp` works this out while its server starts, on the same cores.
    if _may_exist(path):
        from notch_app.runtime.settings import read_settings

        values = read_settings(path).document.integrations.get(integration_id)
    env: dict[str, str] = {}

    _add_preferences(env, integration_id, preference_fields, values, path)
    secrets = store if store is not None else SecretStore()
    _add_auth(env, integration_id, auth_fields, values, path, secrets)
    return env


def _may_exist(path: Path) -> bool:
    """False only when there is no file at `path` (any other trouble `read_settings` says)."""
    try:
        path.stat()
    except FileNotFoundError:
        return False
    except OSError:
        return True
    return True


def _add_preferences(
    env: dict[str, str],
    integration_id: str,
    preference_fields: Iterable[Any] | None,
    values: IntegrationValues | None,
    path: Path,
) -> None:
    """Every preference into `env`: the person's value, else the manifest's default."""
    kept = values.preferences if values is not None else {}
    for pref in preference_specs(preference_fields):
        stored = kept.get(pref.name)
        if stored is None and pref.default is None:
            if pref.required:
                raise BadPreference(
                    f"{integration_id} needs its preference {pref.title} ({pref.name}), which "
                    "is not set. Set it in Notch's Settings, on the integration's page."
                )
            continue
        try:
            value = preference_value(pref, stored if stored is not None else pref.default)
        except BadPreference as exc:
            where = (
                f"{path}: integrations.{integration_id}.preferences.{pref.name}"
                if stored is not None
                else f"the manifest of {integration_id}: preferences {pref.name} default"
            )
            raise BadPreference(
                f"{where}: {exc}. Fix it in Notch's Settings (the integration's page) or in "
                "the file."
            ) from None
        env[pref.name] = environment_text(value)


def _add_auth(
    env: dict[str, str],
    integration_id: str,
    auth_fields: Any,
    values: IntegrationValues | None,
    path: Path,
    secrets: SecretStore,
) -> None:
    """Every auth field into `env`: a plain one from the settings file, a secret from the
    keyring only."""
    kept = values.auth if values is not None else {}
    for field in auth_specs(auth_fields):
        if not field.secret:
            plain = kept.get(field.key)
            if plain:
                env[field.key] = plain
            elif field.required:
                raise MissingSecret(integration_id, field.key, label=field.label, secret=False)
            continue
        if field.key in kept:
            # Put there by hand: a secret is read from the keyring only, never the file.
            log.warning(
                "%s: integrations.%s.auth.%s is a secret and is ignored there; move it to "
                "the keyring with `notch secrets set %s %s`",
                path, integration_id, field.key, integration_id, field.key,
            )  # fmt: skip
        try:
            secret = secrets.get(integration_id, field.key)
        except NoKeyring as exc:
            if field.required:
                raise MissingSecret(
                    integration_id, field.key, label=field.label, why=str(exc)
                ) from None
            log.warning("%s of %s left out: %s", field.key, integration_id, exc)
            continue
        if secret is None:
            if field.required:
                raise MissingSecret(integration_id, field.key, label=field.label)
            continue
        env[field.key] = secret
