"""The composition root: QApplication + qasync loop + confirmation service + socket + notch.

Integrations are loaded, in this order (the first copy of an integration id wins):
1. the bundled examples, the shipped `manifests/` folder (the repository's top-level one
   in a checkout, a copy inside the package once installed; see `notch_app.bundled`);
2. the person's integrations folder, `<user config dir>/notch/integrations`
   (`~/.config/notch/integrations` on Linux; see `user_integrations_dir()`);
3. every `--manifests` folder, in the order given.
An invalid manifest is reported on stderr with the `notch validate` messages and skipped.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import signal
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TextIO

from notch_app import headless
from notch_app.ipc.address import SocketError, leave_note, take_note_back
from notch_app.ipc.server import NotchServer
from notch_app.runtime.catalog import (
    Catalog,
    bundled_manifests_dir,
    load_integrations,
    user_integrations_dir,
)
from notch_app.runtime.policy_book import PolicyBook
from notch_app.runtime.policy_book.hook import PersonPolicy
from notch_app.runtime.presenter import DecisionSink
from notch_app.runtime.service import ConfirmationService
from notch_app.runtime.settings import OverlayPreferences, format_number
from notch_app.runtime.store import StoreError
from notch_app.ui.overlay_settings import IdleMode, OverlaySettings

if TYPE_CHECKING:
    from PySide6.QtWidgets import QApplication

    from notch_app.phone.answering import PhoneAnswers
    from notch_app.ui.overlay_cards import ManifestCardFactory
    from notch_app.ui.overlay_presenter import OverlayPresenter
    from notch_app.ui.tray import NotchTray
    from notch_app.ui.tray_pause import PauseControl

BUNDLED_MANIFESTS = bundled_manifests_dir()
"""The bundled example integrations: the shipped `manifests/` folder."""


@dataclass(slots=True)
class NotchConfig:
    socket_path: Path
    data_dir: Path
    manifest_dirs: list[Path] = field(default_factory=list)
    settings: OverlaySettings = field(default_factory=OverlaySettings)
    """Timings, theme and size. Its idle_mode and park_after_s are replaced by the
    person's settings file (see `overlay_settings_from`) unless overridden below."""
    tray: bool = True
    """Show a tray icon where the platform has one."""
    idle_override: IdleMode | None = None
    """`notch run --idle`: the idle look for this run, over the settings file."""
    park_after_override_s: float | None = None
    """`notch run --park-after`: the park time for this run, over the settings file."""
    theme_override: Literal["system", "light", "dark"] | None = None
    """`notch run --theme`: the overlay's look for this run, over the settings file."""
    phone_host: str | None = None
    """Where the phone page listens when turned on; None: the person's `notch phone on
    --host`, else this computer's local-network address (`phone/addresses.py`); tests and
    embedders may keep it on this machine (127.0.0.1)."""
    leave_note: bool = False
    """Say where this Notch listens in the person's state folder (`ipc/address.py`), so
    a client started with a bare environment finds it; `notch run` without --socket."""


def overlay_settings_from(config: NotchConfig, preferences: OverlayPreferences) -> OverlaySettings:
    """The overlay's settings: the person's choices from the settings file, except where
    this run's flags (`config.idle_override`, `config.park_after_override_s`) say else."""
    idle: IdleMode = config.idle_override or preferences.idle
    park = config.park_after_override_s
    return dataclasses.replace(
        config.settings,
        idle_mode=idle,
        theme=config.theme_override or preferences.theme,
        park_after_s=float(preferences.park_after_seconds if park is None else park),
        glance_ms=preferences.glance_seconds * 1000,
        answer_by_voice=preferences.answer_by_voice,
    )


class StartupError(Exception):
    """Notch cannot start; the message names the file and the fix."""


class NotchApp:
    """The running Notch. Create inside a running qasync loop, `await start()`, then wait
    for `stopped`; `await stop()` closes the socket, the service and the windows."""

    def __init__(self, config: NotchConfig, *, err: TextIO = sys.stderr) -> None:
        self.config = config
        self._err = err
        self.catalog = Catalog()
        self.service: ConfirmationService | None = None
        self.server: NotchServer | None = None
        self.presenter: OverlayPresenter | None = None
        self.tray: object | None = None
        self.pause_control: PauseControl | None = None
        """The person's pause, from the tray menu (ui/tray_pause.py)."""
        self.policy_book: PolicyBook | None = None
        self.settings_window: object | None = None
        self._settings_watcher: object | None = None
        self._cards: ManifestCardFactory | None = None
        self.overlay_settings = config.settings
        """What the overlay uses now: the settings file's choices under this run's flags."""
        self._unsubscribe_overlay: Callable[[], None] | None = None
        self.phone: PhoneAnswers | None = None
        """Answer from your phone (served while the person's setting says so)."""
        self._unsubscribe_phone: Callable[[], None] | None = None
        self._phone_said: str | None = None
        """What the person was last told about the phone page's address."""
        self._phone_following: asyncio.Future[None] | None = None
        self._last_choice: dict[str, object] = {}
        self.stopped = asyncio.Event()

    async def start(self) -> None:
        """Load integrations, open the store, show the notch, listen on the socket.

        Raises StartupError when the store cannot be opened or the socket is taken."""
        from notch_app.ui.overlay_cards import ManifestCardFactory
        from notch_app.ui.overlay_presenter import OverlayPresenter
        from notch_app.ui.settings.watcher import SettingsFileWatcher
        from notch_app.ui.tray import NotchTray
        from notch_app.ui.tray_pause import PauseControl

        self.reload_integrations()
        skipped = len(self.catalog.skipped)
        if skipped:
            loaded = len(self.catalog)
            print(
                f"notch: {loaded} integration{'s' * (loaded != 1)} loaded, {skipped} skipped "
                "for the reasons above; those integrations were skipped",
                file=self._err,
            )
        # The person's "Asks first" choices; a corrupt file is moved aside and everything asks.
        book = PolicyBook.in_data_dir(self.config.data_dir)
        if book.problem:
            print(f"notch: {book.problem}", file=self._err)
        self.policy_book = book
        settings = overlay_settings_from(self.config, book.overlay)
        self.overlay_settings = settings
        # A flag that differs from the file at startup is no news; later choices are.
        self._last_choice = {"--idle": book.overlay.idle}
        self._last_choice["--park-after"] = book.overlay.park_after_seconds
        self._last_choice["--theme"] = book.overlay.theme
        cards = ManifestCardFactory(self.catalog, theme=settings.theme, width=settings.card_width)
        self._cards = cards

        def overlay(sink: DecisionSink) -> OverlayPresenter:
            return OverlayPresenter(
                sink, cards, settings, describe=cards.title, glance_factory=cards.glance
            )

        try:
            running = await headless.start(
                self.config.socket_path,
                self.config.data_dir,
                presenter=overlay,
                catalog=self.catalog,
                policy=PersonPolicy(book),
            )
        except (StoreError, SocketError) as exc:
            raise StartupError(str(exc)) from None
        self.service, self.server = running.service, running.server
        if self.config.leave_note:
            leave_note(self.config.socket_path)
        presenter = running.presenter
        assert isinstance(presenter, OverlayPresenter)
        self.presenter = presenter
        # No cards are built off screen here: an idle Notch stays small (~20 MiB less),
        # and a gateway attaching readies the card code (`results_may_follow`).
        # Answer from your phone: off unless the person turned it on; follows Settings.
        from notch_app.phone.answering import PhoneAnswers

        self.phone = PhoneAnswers(self.service, self.config.data_dir, host=self._phone_host())
        await self.phone.follow(book.phone.enabled, book.phone.port)
        if self.phone.problem:
            print(f"notch: {self.phone.problem}", file=self._err)
        self._unsubscribe_phone = book.subscribe(self._follow_phone)
        # `notch policy` and the Settings window of another process write the same file.
        self._settings_watcher = SettingsFileWatcher(book)
        # The idle look and park time follow the person's Settings while Notch runs.
        self._unsubscribe_overlay = book.subscribe(self._follow_overlay_preferences)
        # The person's pause (tray → Ask for everything / Hold all cards / Resume).
        self.pause_control = PauseControl(self.service.pause, presenter)
        if self.config.tray and NotchTray.available():
            tray = self.make_tray()
            tray.show()
            self.tray = tray

    def make_tray(self) -> NotchTray:
        """The tray icon and its menu (not shown): recent decisions, the pause, Settings…
        and Quit. Call after `start()`."""
        from notch_app.ui.tray import NotchTray
        from notch_app.ui.tray_pause import PauseMenu

        presenter = self.presenter
        assert presenter is not None and self.pause_control is not None
        return NotchTray(
            quit=self.request_stop,
            open_settings=lambda _t: self.open_settings(),
            recent=presenter.recent_lines,
            show_recent=presenter.show_recent,
            pause=PauseMenu(self.pause_control),
        )

    def _phone_host(self) -> str:
        """The phone page's address (`NotchConfig.phone_host`); a chosen address that is no
        longer this computer's local one keeps the page on this computer alone, said."""
        from notch_app.phone.addresses import LOOPBACK, HostRefused, listen_host

        if self.config.phone_host is not None or self.policy_book is None:
            return self.config.phone_host or LOOPBACK
        chosen = self.policy_book.phone.host
        try:
            host, why = listen_host(chosen)
        except HostRefused as exc:
            host, why = LOOPBACK, f"{exc}; until then it listens on {LOOPBACK} (this computer only)"
        if why and self.policy_book.phone.enabled and why != self._phone_said:
            print(f"notch: {why}", file=self._err)  # once, not at every settings change
            self._phone_said = why
        return host

    def _follow_phone(self) -> None:
        if self.policy_book is None or self.phone is None:
            return
        wanted = self.policy_book.phone
        if self.phone.host != (host := self._phone_host()):  # `notch phone on --host`
            self.phone.host = host
            self._phone_following = asyncio.ensure_future(self._restart_phone())
            return
        if (wanted.enabled, wanted.port) != (self.phone.serving, self.phone.port or wanted.port):
            # Kept: a task nobody holds may be collected before it ends.
            self._phone_following = asyncio.ensure_future(
                self.phone.follow(wanted.enabled, wanted.port)
            )

    async def _restart_phone(self) -> None:
        """Serve the phone page again on its new address (when it is turned on)."""
        if self.phone is None or self.policy_book is None:
            return
        await self.phone.stop()
        await self.phone.follow(self.policy_book.phone.enabled, self.policy_book.phone.port)

    def _follow_overlay_preferences(self) -> None:
        if self.policy_book is None or self.presenter is None:
            return
        preferences = self.policy_book.overlay
        settings = overlay_settings_from(self.config, preferences)
        for flag, pinned, chosen in (
            ("--idle", self.config.idle_override, preferences.idle),
            ("--park-after", self.config.park_after_override_s, preferences.park_after_seconds),
            ("--theme", self.config.theme_override, preferences.theme),
        ):
            if pinned is None:
                continue
            # Said once per new choice, not on every change to the file.
            new_choice = self._last_choice.get(flag) != chosen
            self._last_choice[flag] = chosen
            if not new_choice or chosen == pinned:
                continue
            shown = format_number(pinned) if isinstance(pinned, float) else pinned
            print(
                f"notch: this run was started with {flag} {shown}, so your new setting "
                f"({format_number(chosen) if not isinstance(chosen, str) else chosen}) "
                "applies from the next start",
                file=self._err,
            )
        if settings != self.overlay_settings:
            self.presenter.apply_settings(settings)
            self.overlay_settings = settings
        if self._cards is not None and self._cards.theme != settings.theme:
            # The next card and glance take the new look; no restart (issue 22).
            self._cards.use_theme(settings.theme)

    def reload_integrations(self) -> list[str]:
        """Load every integration folder: at start, and again on Settings → Reload / Install /
        Remove.

        Returns the problems found (as `notch validate` lines); open cards keep their tool."""
        catalog, problems = load_integrations(self.config.manifest_dirs)
        for line in problems:
            print(line, file=self._err)
        self.catalog = catalog
        if self.service is not None:
            self.service.catalog = catalog
        if self._cards is not None:
            self._cards.use_catalog(catalog)
        return problems

    def open_settings(self) -> None:
        """Show the Settings window (tray → Settings…), creating it on first use."""
        from notch_app.ui.settings.window import SettingsWindow

        if self.policy_book is None:
            return
        window = self.settings_window
        if window is None:
            window = SettingsWindow(
                self.policy_book,
                lambda: self.catalog,
                user_integrations_dir(),
                reload_integrations=self.reload_integrations,
                allowances=self.service,
                phone=self.phone,
            )
            self.settings_window = window
        assert isinstance(window, SettingsWindow)
        window.show()
        window.raise_()
        window.activateWindow()

    def request_stop(self) -> None:
        self.stopped.set()

    async def stop(self) -> None:
        if self._unsubscribe_overlay is not None:
            self._unsubscribe_overlay()
            self._unsubscribe_overlay = None
        if self._unsubscribe_phone is not None:
            self._unsubscribe_phone()
            self._unsubscribe_phone = None
        if self.phone is not None:
            await self.phone.stop()
        if self.server is not None:
            if self.config.leave_note:
                take_note_back(self.config.socket_path)
            await self.server.close()
            self.server = None
        if self.service is not None:
            self.service.close()
            self.service = None
        if self.presenter is not None:
            self.presenter.close()
        if self.tray is not None:
            self.tray.hide()  # type: ignore[attr-defined]
        if self.settings_window is not None:
            self.settings_window.close()  # type: ignore[attr-defined]


Scenario = Callable[[NotchApp], Awaitable[None]]
"""Something to run once Notch is up (the demo's scripted agent); Notch stops after it."""


def run_notch(config: NotchConfig, scenario: Scenario | None = None, *, linger_s: float = 0) -> int:
    """Run Notch until Quit, Ctrl+C, SIGTERM, or the end of `scenario` (+ `linger_s`).

    Returns the process exit code: 0 after a clean stop, 2 when Notch cannot start (the
    reason printed on stderr), 1 when the display went away (said in one line)."""
    from notch_app.ui.pyside_imports import read_sources_unkept

    read_sources_unkept()  # before the Qt modules: ~3 MiB less for as long as Notch runs
    import qasync  # type: ignore[import-untyped]

    from notch_app.ui.desktop.display import display_lost

    app = _desktop_app()
    if app is None:
        return 2
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop:
        try:
            code: int = loop.run_until_complete(_serve(config, scenario, linger_s, loop))
        except RuntimeError:
            if display_lost() is None:
                raise
            return 1  # Qt stopped the loop: the display went away (said once already)
    return 1 if display_lost() is not None else code


def _desktop_app() -> QApplication | None:
    """The Qt application Notch runs in (made here unless one exists), or None when
    there is no display to run on (said on stderr)."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    from notch_app.ui.desktop.display import display_opened, prepare_display, watch_display

    if QApplication.instance() is None:
        # XWayland on a Wayland session, where the notch can place itself; no display at
        # all is said here, not by a Qt abort.
        problem = prepare_display()
        if problem is not None:
            print(f"notch: {problem}", file=sys.stderr)
            return None
        watch_display("notch")
        QApplication.setAttribute(Qt.ApplicationAttribute.AA_ShareOpenGLContexts)  # web widgets
    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    display_opened()
    app.setApplicationName("Notch")
    app.setApplicationDisplayName("Notch")
    app.setQuitOnLastWindowClosed(False)
    return app


async def _serve(
    config: NotchConfig,
    scenario: Scenario | None,
    linger_s: float,
    loop: asyncio.AbstractEventLoop,
) -> int:
    """Start Notch, play `scenario` (if any), wait for the stop, and stop: the exit code
    (2: Notch cannot start, 1: the scenario failed)."""
    notch = NotchApp(config)
    for sig in (signal.SIGINT, signal.SIGTERM):
        # Windows has no add_signal_handler: there Ctrl+C ends the process.
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, notch.request_stop)
    try:
        await notch.start()
    except StartupError as exc:
        print(f"notch: {exc}", file=sys.stderr)
        await notch.stop()
        return 2
    print(
        f"notch: listening on {config.socket_path} "
        f"({len(notch.catalog)} integrations; data in {config.data_dir})",
        file=sys.stderr,
        flush=True,
    )
    code = 0
    task: asyncio.Task[None] | None = None
    if scenario is not None:

        async def play() -> None:
            try:
                await scenario(notch)
                await asyncio.sleep(linger_s)
            finally:
                notch.request_stop()

        task = asyncio.ensure_future(play())
    await notch.stopped.wait()
    if task is not None and not task.done():
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
    elif task is not None and task.exception() is not None:
        print(f"notch: the scenario failed: {task.exception()}", file=sys.stderr)
        code = 1
    await notch.stop()
    return code
