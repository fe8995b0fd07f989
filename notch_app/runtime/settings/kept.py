"""`KeptSettings`: the person's settings file held in memory by a running Notch.

One copy, re-read on `reload()`, changed only under the file's lock after reading it
again (another process may have written), every change told to subscribers so a running
Notch applies it at once. Its preferences here are those that are not about one action;
`PolicyBook` (`runtime/policy_book/`) adds the person's rules for each action.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from pathlib import Path
from typing import Literal, Self

from pydantic import ValidationError

from notch_app.runtime.folders import default_data_dir
from notch_app.runtime.settings.document import (
    ASKER_GRACE_MAX_S,
    ASKER_GRACE_MIN_S,
    GLANCE_SECONDS_CHOICES,
    OVERLAY_THEMES,
    PARK_AFTER_MAX_S,
    PARK_AFTER_MIN_S,
    AgentPreferences,
    IdleLook,
    IntegrationValues,
    OverlayPreferences,
    OverlayTheme,
    PhonePreferences,
    SettingsDocument,
)
from notch_app.runtime.settings.file import (
    read_settings,
    settings_lock,
    settings_path,
    write_settings,
)

log = logging.getLogger("notch.policy")


class PolicyRefused(ValueError):
    """A policy or setting change that does not apply: a read-only tool, an unknown
    argument, a value out of range…"""


class PolicyWriteError(OSError):
    """The settings file could not be written (message names the file and the fix)."""


class KeptSettings:
    """The settings file at `path` as a running Notch keeps it, with the preferences that
    are not about one action (overlay, agents, phone, integration values).

    Not thread-safe: use it from one thread (the app's event loop). Separate processes
    (`notch policy` and a running Notch) are kept consistent by a file lock and by
    re-reading the file before every change.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._listeners: list[Callable[[], None]] = []
        loaded = read_settings(self.path)
        self._document = loaded.document
        self._writable = loaded.writable
        self.problem: str | None = loaded.problem
        """A note for the person when the file could not be used; shown in Settings."""

    @classmethod
    def in_data_dir(cls, data_dir: Path | None = None) -> Self:
        """The settings kept in `data_dir` (default: $NOTCH_DATA_DIR, else the user data
        dir); on `PolicyBook`, the book."""
        return cls(settings_path(data_dir if data_dir is not None else default_data_dir()))

    @property
    def document(self) -> SettingsDocument:
        return self._document

    # --- the overlay, agents, phone and integration values --------------------------

    @property
    def overlay(self) -> OverlayPreferences:
        return self._document.overlay

    def set_overlay(self, preferences: OverlayPreferences) -> None:
        """Store all the overlay's preferences at once. Raises PolicyWriteError."""
        self._mutate(lambda document: document.model_copy(update={"overlay": preferences}))

    def set_glance(self, on: bool) -> None:
        """Turn the passive glance for actions that run without a card on or off.

        Raises PolicyWriteError when the file cannot be written."""
        self._change_overlay(glance=bool(on))

    def set_answer_by_voice(self, on: bool) -> None:
        """Turn "Answer by voice" on or off. Raises PolicyWriteError."""
        self._change_overlay(answer_by_voice=bool(on))

    def set_idle(self, idle: IdleLook) -> None:
        """What the notch shows while nothing is waiting: "pill" or "hidden".

        Raises PolicyRefused for any other value, PolicyWriteError on write failure."""
        if idle not in ("pill", "hidden"):
            raise PolicyRefused(f"the idle notch is 'pill' or 'hidden', not {idle!r}")
        self._change_overlay(idle=idle)

    def set_theme(self, theme: OverlayTheme) -> None:
        """The overlay's look: "system", "light" or "dark".

        Raises PolicyRefused for any other value, PolicyWriteError on write failure."""
        if theme not in OVERLAY_THEMES:
            raise PolicyRefused(f"the theme is 'system', 'light' or 'dark', not {theme!r}")
        self._change_overlay(theme=theme)

    def set_park_after(self, seconds: float) -> None:
        """Park a card left untouched this many seconds; 0 never parks.

        Raises PolicyRefused outside 0 or 5..3600 seconds, PolicyWriteError on write
        failure."""
        in_range = (
            isinstance(seconds, int | float)
            and not isinstance(seconds, bool)
            and math.isfinite(seconds)
            and (seconds == 0 or PARK_AFTER_MIN_S <= seconds <= PARK_AFTER_MAX_S)
        )
        if not in_range:
            raise PolicyRefused(
                f"park after is 0 (never park) or {PARK_AFTER_MIN_S} to {PARK_AFTER_MAX_S} "
                f"seconds, not {seconds!r}"
            )
        if isinstance(seconds, float) and seconds.is_integer():
            seconds = int(seconds)  # the file reads `60`, not `60.0`
        self._change_overlay(park_after_seconds=seconds)

    @property
    def agents(self) -> AgentPreferences:
        """How agents that ask are treated (the grace period of a closed connection)."""
        return self._document.agents

    def set_asker_grace(self, seconds: float) -> None:
        """How long an agent's open cards wait for it after its last connection closes.

        Raises PolicyRefused outside ASKER_GRACE_MIN_S..ASKER_GRACE_MAX_S seconds,
        PolicyWriteError on write failure."""
        if (
            isinstance(seconds, bool)
            or not isinstance(seconds, int | float)
            or not math.isfinite(seconds)
            or not ASKER_GRACE_MIN_S <= seconds <= ASKER_GRACE_MAX_S
        ):
            raise PolicyRefused(
                f"the asker grace period is {ASKER_GRACE_MIN_S} to {ASKER_GRACE_MAX_S} "
                f"seconds, not {seconds!r}"
            )
        if isinstance(seconds, float) and seconds.is_integer():
            seconds = int(seconds)  # the file reads `10`, not `10.0`
        kept = seconds
        self._mutate(
            lambda document: document.model_copy(
                update={"agents": document.agents.model_copy(update={"asker_grace_seconds": kept})}
            )
        )

    @property
    def phone(self) -> PhonePreferences:
        """Answer from your phone: whether the page is served, and on which port."""
        return self._document.phone

    def set_phone(self, enabled: bool, port: int | None = None, host: str | None = None) -> None:
        """Turn "Answer from your phone" on or off (and choose its port, and its address:
        `host` checked by the caller, "" for the default again). Raises PolicyRefused for
        a port outside 1024..65535, PolicyWriteError on write failure."""
        update: dict[str, object] = {"enabled": bool(enabled)}
        if port is not None:
            update["port"] = port
        if host is not None:
            update["host"] = host or None
        try:
            kept = PhonePreferences.model_validate({**self.phone.model_dump(), **update})
        except ValidationError as exc:
            raise PolicyRefused(f"phone: {exc.errors()[0]['msg']}") from None
        self._mutate(lambda document: document.model_copy(update={"phone": kept}))

    def set_glance_seconds(self, seconds: int) -> None:
        """Keep a tool result's glance this many seconds (one of 2, 4, 6, 10, 20).

        Raises PolicyRefused for any other value, PolicyWriteError on write failure."""
        if isinstance(seconds, bool) or seconds not in GLANCE_SECONDS_CHOICES:
            choices = ", ".join(str(c) for c in GLANCE_SECONDS_CHOICES)
            raise PolicyRefused(f"a glance stays {choices} seconds, not {seconds!r}")
        self._change_overlay(glance_seconds=int(seconds))

    def values(self, integration_id: str) -> IntegrationValues:
        """The person's preference values and non-secret auth fields for an integration."""
        return self._document.integrations.get(integration_id) or IntegrationValues()

    def set_value(
        self,
        integration_id: str,
        section: Literal["preferences", "auth"],
        name: str,
        value: str | bool | int | float | None,
    ) -> None:
        """Store one preference (or non-secret auth field) value; None forgets it.

        The caller checks the value fits the manifest's field first
        (`notch_app.runtime.secrets.preference_value`). Never for a secret: those live in
        the OS keyring. Raises PolicyRefused for a value the file cannot hold,
        PolicyWriteError when the file cannot be written.
        """

        def apply(document: SettingsDocument) -> SettingsDocument:
            integrations = dict(document.integrations)
            current = integrations.get(integration_id) or IntegrationValues()
            kept = dict(getattr(current, section))
            if value is None:
                kept.pop(name, None)
            else:
                kept[name] = value
            entry = current.model_copy(update={section: kept})
            if entry.is_empty:
                integrations.pop(integration_id, None)  # the file stays short
            else:
                integrations[integration_id] = entry
            return document.model_copy(update={"integrations": integrations})

        if value is not None:
            try:  # refused with the rule it broke before the file is touched
                IntegrationValues.model_validate({section: {name: value}})
            except ValidationError as exc:
                first = exc.errors()[0]
                raise PolicyRefused(f"{integration_id} {section} {name}: {first['msg']}") from None
        self._mutate(apply)

    def _change_overlay(self, **update: object) -> None:
        # Checked before the lock is taken, so a bad value is refused with the rule the
        # person broke, and never reaches the file.
        try:
            OverlayPreferences.model_validate({**self.overlay.model_dump(), **update})
        except ValidationError as exc:
            first = exc.errors()[0]
            where = first["loc"][0] if first["loc"] else "overlay"
            raise PolicyRefused(f"overlay preference {where}: {first['msg']}") from None

        def apply(document: SettingsDocument) -> SettingsDocument:
            # Applied to the file as just re-read: another process's change to another
            # overlay preference is kept.
            return document.model_copy(
                update={"overlay": document.overlay.model_copy(update=update)}
            )

        self._mutate(apply)

    # --- file and listeners ------------------------------------------------------------

    def dismiss_problem(self) -> None:
        """The person has seen the note about an unusable settings file."""
        if self.problem is not None:
            self.problem = None
            self._notify()

    def reload(self) -> bool:
        """Re-read the file (changed by `notch policy` or by hand). Returns whether anything
        changed; subscribers are told. A corrupt file is moved aside: everything asks."""
        loaded = read_settings(self.path)
        if loaded.problem is not None:
            self.problem = loaded.problem
        changed = loaded.document != self._document or loaded.problem is not None
        self._document = loaded.document
        self._writable = loaded.writable
        if changed:
            self._notify()
        return changed

    def subscribe(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call `listener()` after every change; returns a function that unsubscribes."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def _notify(self) -> None:
        for listener in list(self._listeners):
            try:
                listener()
            except Exception:  # one broken listener must not stop the others
                log.exception("policy listener failed")

    def _mutate(self, change: Callable[[SettingsDocument], SettingsDocument]) -> None:
        try:
            with settings_lock(self.path):
                loaded = read_settings(self.path)  # another process may have written since
                if loaded.problem is not None:
                    self.problem = loaded.problem
                if not loaded.writable:
                    self._document = loaded.document
                    self._writable = False
                    raise PolicyWriteError(
                        f"{self.path} was written by a newer Notch; not changing it. "
                        "Update Notch, or move the file away to start fresh."
                    )
                document = SettingsDocument.model_validate(change(loaded.document).model_dump())
                write_settings(self.path, document)
        except PolicyWriteError:
            self._notify()
            raise
        except OSError as exc:
            raise PolicyWriteError(
                f"could not write {self.path}: {exc.strerror or exc}; check that the folder "
                "exists and is writable, or pass --data-dir"
            ) from exc
        self._document = document
        self._writable = True
        self._notify()
