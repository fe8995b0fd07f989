"""The answer chords on Wayland: the XDG desktop portal's GlobalShortcuts.

On Wayland no program can grab keys from the others; the desktop can lend them through
the portal (org.freedesktop.portal.GlobalShortcuts: KDE Plasma 5.27+, GNOME 48+,
Hyprland; not xdg-desktop-portal-wlr, so not sway). Notch asks once, at startup, to bind
two shortcuts — "approve" (preferred Ctrl+Alt+Return) and "decline" (Ctrl+Alt+Escape) —
and the desktop asks the person to allow them (and lets them pick other keys). The
portal then says `Activated` whenever one is pressed, wherever the focus is.

What differs from the X11 grab: a bound shortcut belongs to Notch for as long as it
runs (the portal has no "only while a card is shown"), so between cards a press does
nothing; and the card's hint shows the keys the desktop actually bound.

Spoken with jeepney (pure Python D-Bus, already here for the keyring) on Notch's asyncio
loop: no thread, no Qt D-Bus marshalling of `a(sa{sv})`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import sys
from typing import Any

from PySide6.QtCore import QObject

from notch_app.ui.keys.answer_keys import AnswerKeys
from notch_app.ui.keys.chords import AnswerRole

PORTAL = "org.freedesktop.portal.Desktop"
PORTAL_PATH = "/org/freedesktop/portal/desktop"
SHORTCUTS = "org.freedesktop.portal.GlobalShortcuts"
REQUEST = "org.freedesktop.portal.Request"
ANSWER_TIMEOUT_S = 3.0
"""How long a portal call may take before Notch goes on without the chords."""
PERSON_TIMEOUT_S = 300.0
"""How long the desktop's "allow these shortcuts?" question may stay open."""
_SHORTCUTS: dict[AnswerRole, tuple[str, str]] = {
    "approve": ("Approve the card Notch shows", "CTRL+ALT+Return"),
    "decline": ("Decline the card Notch shows", "CTRL+ALT+Escape"),
}


def portal_shortcuts_version(timeout_s: float = ANSWER_TIMEOUT_S) -> int | None:
    """The version of GlobalShortcuts the session's portal offers, None when it offers
    none (no session bus, no portal, or a portal without it). Never raises."""
    if not os.environ.get("DBUS_SESSION_BUS_ADDRESS") and not os.environ.get("XDG_RUNTIME_DIR"):
        return None
    try:
        from jeepney import DBusAddress, Properties
        from jeepney.io.blocking import open_dbus_connection

        with open_dbus_connection(bus="SESSION") as conn:
            address = DBusAddress(PORTAL_PATH, bus_name=PORTAL, interface=SHORTCUTS)
            reply = conn.send_and_get_reply(Properties(address).get("version"), timeout=timeout_s)
    except Exception:  # no bus, no portal, no such interface: all mean "not offered"
        return None
    body = reply.body
    if reply.header.message_type.name != "method_return" or not body:
        return None
    _signature, version = body[0]
    return int(version)


class PortalAnswerKeys(AnswerKeys):
    """The chords bound through the GlobalShortcuts portal (see the module docstring).

    `bind()` (a coroutine on Notch's loop) asks the portal once; until it has answered,
    and if the person refuses or the portal fails, the chords are not offered and the
    card shows no hint for them. `grab()`/`release()` follow the card on screen: a press
    counts only while a card is shown."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._bound: dict[AnswerRole, str] = {}  # role → the keys the desktop bound
        self._shown = False
        self._router: Any = None
        self._task: asyncio.Task[None] | None = None
        self.problem: str | None = None
        """Why the chords are not offered (said once on stderr), None while fine."""

    @property
    def grabbed(self) -> frozenset[AnswerRole]:
        return frozenset(self._bound) if self._shown else frozenset()

    @property
    def hint(self) -> str:
        roles = self.grabbed
        return " · ".join(f"{self._bound[r]} {r}" for r in ("approve", "decline") if r in roles)

    @property
    def short_hint(self) -> str:
        roles = self.grabbed
        return " · ".join(self._bound[r] for r in ("approve", "decline") if r in roles)

    def grab(self) -> None:
        self._shown = True

    def release(self) -> None:
        self._shown = False

    def start(self) -> None:
        """Ask the portal for the chords, on the running asyncio loop (none: nothing)."""
        with contextlib.suppress(RuntimeError):  # no running loop: a test, an offscreen run
            self._task = asyncio.get_running_loop().create_task(self.bind())

    def close(self) -> None:
        self.release()
        if self._task is not None:
            self._task.cancel()
            self._task = None

    async def bind(self) -> None:
        """Create a portal session, bind the two shortcuts and listen for them until the
        connection ends. Never raises: a failure is said once and leaves no chords."""
        try:
            from jeepney import DBusAddress, MatchRule, new_method_call
            from jeepney.io.asyncio import open_dbus_router

            async with open_dbus_router(bus="SESSION") as router:
                self._router = router
                portal = DBusAddress(PORTAL_PATH, bus_name=PORTAL, interface=SHORTCUTS)
                activated = MatchRule(
                    type="signal", interface=SHORTCUTS, member="Activated", path=PORTAL_PATH
                )
                session = await self._create_session(router, portal, new_method_call)
                bound = await self._bind(router, portal, session, new_method_call)
                self._bound = bound
                with router.filter(activated, bufsize=16) as presses:
                    await _add_match(router, activated)
                    while True:
                        press = await presses.get()
                        self._on_activated(session, press.body)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self._give_up(f"the desktop's Global Shortcuts portal failed ({exc})")

    async def _request(
        self, router: Any, message: Any, token: str, timeout_s: float
    ) -> dict[str, Any]:
        """Send a portal call that answers through a Request object; its results."""
        from jeepney import MatchRule

        sender = router.unique_name.lstrip(":").replace(".", "_")
        path = f"/org/freedesktop/portal/desktop/request/{sender}/{token}"
        rule = MatchRule(type="signal", interface=REQUEST, member="Response", path=path)
        # Subscribed before the call: a fast portal may answer before the call returns.
        with router.filter(rule) as responses:
            await _add_match(router, rule)
            reply = await asyncio.wait_for(router.send_and_get_reply(message), ANSWER_TIMEOUT_S)
            if reply.header.message_type.name == "error":
                raise RuntimeError(f"{reply.header.fields.get(4, 'error')}: {reply.body}")
            response = await asyncio.wait_for(responses.get(), timeout_s)
        code, results = response.body
        if code == 1:
            raise PermissionError("you did not allow the shortcuts")
        if code != 0:
            raise RuntimeError(f"the portal answered {code}")
        return dict(results)

    async def _create_session(self, router: Any, portal: Any, call: Any) -> str:
        token = f"notch_{secrets.token_hex(6)}"
        options = {
            "handle_token": ("s", token),
            "session_handle_token": ("s", f"notch_session_{secrets.token_hex(6)}"),
        }
        results = await self._request(
            router, call(portal, "CreateSession", "a{sv}", (options,)), token, ANSWER_TIMEOUT_S
        )
        return str(results["session_handle"][1])

    async def _bind(
        self, router: Any, portal: Any, session: str, call: Any
    ) -> dict[AnswerRole, str]:
        token = f"notch_{secrets.token_hex(6)}"
        shortcuts = [
            (role, {"description": ("s", words), "preferred_trigger": ("s", keys)})
            for role, (words, keys) in _SHORTCUTS.items()
        ]
        message = call(
            portal, "BindShortcuts", "oa(sa{sv})sa{sv}",
            (session, shortcuts, "", {"handle_token": ("s", token)}),
        )  # fmt: skip
        results = await self._request(router, message, token, PERSON_TIMEOUT_S)
        bound: dict[AnswerRole, str] = {}
        for name, props in results.get("shortcuts", ("", []))[1]:
            if name in _SHORTCUTS:
                trigger = dict(props).get("trigger_description", ("s", ""))[1]
                role: AnswerRole = "approve" if name == "approve" else "decline"
                bound[role] = str(trigger) or _SHORTCUTS[role][1].replace("CTRL", "Ctrl").replace(
                    "ALT", "Alt"
                )
        if not bound:
            raise PermissionError("the desktop bound none of the shortcuts")
        return bound

    def _on_activated(self, session: str, body: tuple[Any, ...]) -> None:
        handle, shortcut = body[0], body[1]
        if handle != session or not self._shown or shortcut not in self._bound:
            return
        if shortcut == "approve":
            self.approvePressed.emit()
        else:
            self.declinePressed.emit()

    def _give_up(self, why: str) -> None:
        self._bound = {}
        if self.problem is None:
            self.problem = why
            print(f"notch: {why}; answer cards by click", file=sys.stderr)


async def _add_match(router: Any, rule: Any) -> None:
    """Ask the bus to send us the signals `rule` matches (jeepney filters them locally)."""
    from jeepney.bus_messages import message_bus

    await asyncio.wait_for(router.send_and_get_reply(message_bus.AddMatch(rule)), ANSWER_TIMEOUT_S)
