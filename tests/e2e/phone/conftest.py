"""Two real browsers at a phone's size, driven the same way by the phone page's tests and
its benchmark: Debian's Chromium through Playwright (its own executable, never one
Playwright downloads), and Debian's Firefox ESR through WebDriver BiDi, which Firefox
serves itself (`--remote-debugging-port`; no geckodriver, and Playwright's patched
Firefox cannot be fetched here), over a WebSocket.

Fixtures: `phone_browser(name, pin)` and `wait_js(browser, condition)`; the in-process
Notch with its phone page is `phone_notch` (the service, its socket and the page, as
app.py composes them, cards answered on the "desktop" by a ScriptedPresenter).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import pytest

if TYPE_CHECKING:  # playwright itself is imported where a browser starts
    from playwright.async_api import ViewportSize

PHONE: ViewportSize = {"width": 390, "height": 844}
"""A phone's viewport in CSS pixels (a Pixel 8 / iPhone 15 class screen)."""
PHONE_AGENT = (
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/126.0 Mobile Safari/537.36"
)
CHROMIUM = "/usr/bin/chromium"
FIREFOX = "/usr/bin/firefox-esr"
CHROMIUM_FLAGS = [
    "--no-sandbox",  # root in CI: Chromium's sandbox needs an unprivileged user
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--disable-gpu",
]
FIREFOX_PREFS = {
    # A quiet profile: nothing reaches out on its own (there is no network here anyway).
    "browser.shell.checkDefaultBrowser": False,
    "datareporting.policy.dataSubmissionEnabled": False,
    "toolkit.telemetry.reportingpolicy.firstRun": False,
    "app.update.disabledForTesting": True,
    "browser.safebrowsing.malware.enabled": False,
    "browser.safebrowsing.phishing.enabled": False,
    "extensions.update.enabled": False,
    "network.captive-portal-service.enabled": False,
    "network.connectivity-service.enabled": False,
    "services.settings.server": "data:,",
    "browser.aboutwelcome.enabled": False,
    "remote.prefs.recommended": True,
}


class PhoneBrowser(Protocol):
    """One tab at a phone's size."""

    name: str

    async def goto(self, url: str) -> None: ...

    async def js(self, expression: str) -> Any:
        """The value of `expression` (awaited if a promise) in the page."""

    async def click(self, selector: str) -> None:
        """A real pointer click in the middle of the element."""

    async def type(self, selector: str, text: str) -> None:
        """Focus the element and type `text` with real key events."""

    async def close(self) -> None: ...


def available(name: str) -> str | None:
    """Why the browser `name` cannot run here, or None."""
    if name == "chromium":
        if not Path(CHROMIUM).exists():
            return f"{CHROMIUM} is missing (Debian package chromium)"
        try:
            import playwright  # noqa: F401
        except ImportError:
            return "playwright is not installed (pip install -e '.[test]')"
        return None
    if not Path(FIREFOX).exists():
        return f"{FIREFOX} is missing (Debian package firefox-esr)"
    return None


# --- Chromium, through Playwright ------------------------------------------------------


class _Chromium:
    name = "chromium"

    def __init__(self, page: Any) -> None:
        self.page = page

    async def goto(self, url: str) -> None:
        await self.page.goto(url)

    async def js(self, expression: str) -> Any:
        return await self.page.evaluate(f"async () => ({expression})")

    async def click(self, selector: str) -> None:
        await self.page.locator(selector).first.click()

    async def type(self, selector: str, text: str) -> None:
        await self.page.locator(selector).first.click()
        await self.page.keyboard.type(text)

    async def close(self) -> None:
        await self.page.context.close()


@contextlib.asynccontextmanager
async def chromium(pin: str) -> AsyncIterator[Any]:
    """A Chromium that trusts only the certificate whose SPKI SHA-256 is `pin`: the page's
    own self-signed one, pinned as the QR code pins it. Yields a factory of fresh
    phone-sized tabs (each its own cookie jar and storage: a phone of its own)."""
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=[*CHROMIUM_FLAGS, f"--ignore-certificate-errors-spki-list={pin}"],
        )

        async def tab() -> PhoneBrowser:
            context = await browser.new_context(
                viewport=PHONE, device_scale_factor=3, is_mobile=True, has_touch=False,
                user_agent=PHONE_AGENT,
            )  # fmt: skip
            return _Chromium(await context.new_page())

        try:
            yield tab
        finally:
            await browser.close()


# --- Firefox, through WebDriver BiDi ------------------------------------------------------


class _Bidi:
    """A minimal WebDriver BiDi client: commands by id, results awaited."""

    def __init__(self, socket: Any) -> None:
        self.socket = socket
        self._ids = itertools.count(1)
        self._waiting: dict[int, asyncio.Future[Any]] = {}
        self._reader = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        async for raw in self.socket:
            message = json.loads(raw)
            future = self._waiting.pop(message.get("id", -1), None)
            if future is not None and not future.done():
                if message.get("type") == "error":
                    future.set_exception(RuntimeError(f"{message['error']}: {message['message']}"))
                else:
                    future.set_result(message.get("result"))

    async def send(self, method: str, params: dict[str, Any]) -> Any:
        number = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting[number] = future
        await self.socket.send(json.dumps({"id": number, "method": method, "params": params}))
        return await asyncio.wait_for(future, 30)

    async def close(self) -> None:
        self._reader.cancel()
        with contextlib.suppress(BaseException):
            await self._reader
        await self.socket.close()


class _Firefox:
    name = "firefox"

    def __init__(self, bidi: _Bidi, context: str, user_context: str) -> None:
        self.bidi = bidi
        self.context = context
        self.user_context = user_context

    async def goto(self, url: str) -> None:
        await self.bidi.send(
            "browsingContext.navigate", {"context": self.context, "url": url, "wait": "complete"}
        )

    async def js(self, expression: str) -> Any:
        result = await self.bidi.send(
            "script.evaluate",
            {
                "expression": f"(async () => JSON.stringify(await ({expression})))()",
                "target": {"context": self.context},
                "awaitPromise": True,
                "resultOwnership": "none",
            },
        )
        if result.get("type") == "exception":
            raise RuntimeError(result["exceptionDetails"]["text"])
        value = result["result"].get("value")
        return None if value is None else json.loads(value)

    async def _center(self, selector: str) -> tuple[int, int]:
        box = await self.js(
            f"(() => {{ const r = document.querySelector({json.dumps(selector)})"
            ".getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()"
        )
        return int(box[0]), int(box[1])

    async def click(self, selector: str) -> None:
        await self.js(f"document.querySelector({json.dumps(selector)}).scrollIntoView()")
        x, y = await self._center(selector)
        await self.bidi.send(
            "input.performActions",
            {
                "context": self.context,
                "actions": [
                    {
                        "type": "pointer",
                        "id": "finger",
                        "parameters": {"pointerType": "mouse"},
                        "actions": [
                            {"type": "pointerMove", "x": x, "y": y},
                            {"type": "pointerDown", "button": 0},
                            {"type": "pointerUp", "button": 0},
                        ],
                    }
                ],
            },
        )

    async def type(self, selector: str, text: str) -> None:
        await self.click(selector)
        keys = []
        for ch in text:
            keys += [{"type": "keyDown", "value": ch}, {"type": "keyUp", "value": ch}]
        await self.bidi.send(
            "input.performActions",
            {"context": self.context, "actions": [{"type": "key", "id": "keys", "actions": keys}]},
        )

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.bidi.send("browser.removeUserContext", {"userContext": self.user_context})


@contextlib.asynccontextmanager
async def firefox() -> AsyncIterator[Any]:
    """Firefox ESR, headless, over WebDriver BiDi; insecure certificates are accepted for
    the session (Firefox has no SPKI pin flag: the page's own checks are what is tested).
    Yields a factory of fresh phone-sized tabs, each in a user context of its own (its own
    cookies and storage: a phone of its own)."""
    import websockets

    profile = Path(tempfile.mkdtemp(prefix="notch-ff-"))
    (profile / "user.js").write_text(
        "".join(f"user_pref({json.dumps(k)}, {json.dumps(v)});\n" for k, v in FIREFOX_PREFS.items())
    )
    proc = await asyncio.create_subprocess_exec(
        FIREFOX, "--headless", "--no-remote", "--profile", str(profile),
        "--remote-debugging-port=0", "about:blank",
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    bidi: _Bidi | None = None
    try:
        assert proc.stderr is not None
        address = None
        async with asyncio.timeout(60):
            while address is None:
                line = (await proc.stderr.readline()).decode(errors="replace")
                if not line:
                    raise RuntimeError("firefox-esr exited before it listened")
                found = re.search(r"WebDriver BiDi listening on (ws://\S+)", line)
                if found:
                    address = found.group(1)
        drain = asyncio.ensure_future(_drain(proc.stderr))
        socket = await websockets.connect(f"{address}/session", max_size=2**24)
        bidi = _Bidi(socket)
        await bidi.send(
            "session.new", {"capabilities": {"alwaysMatch": {"acceptInsecureCerts": True}}}
        )

        async def tab() -> PhoneBrowser:
            assert bidi is not None
            user = (await bidi.send("browser.createUserContext", {}))["userContext"]
            made = await bidi.send("browsingContext.create", {"type": "tab", "userContext": user})
            context = made["context"]
            await bidi.send(
                "browsingContext.setViewport",
                {"context": context, "viewport": PHONE, "devicePixelRatio": 3},
            )
            return _Firefox(bidi, context, user)

        yield tab
        drain.cancel()
    finally:
        if bidi is not None:
            with contextlib.suppress(Exception):
                await bidi.send("browser.close", {})
            await bidi.close()
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.terminate()
            try:
                await asyncio.wait_for(proc.wait(), 10)
            except TimeoutError:
                proc.kill()
                await proc.wait()
        shutil.rmtree(profile, ignore_errors=True)


async def _drain(stream: asyncio.StreamReader) -> None:
    while await stream.readline():
        pass


@contextlib.asynccontextmanager
async def phone_browser(name: str, pin: str) -> AsyncIterator[Any]:
    """`async with phone_browser("chromium" | "firefox", pin) as tab: page = await tab()`."""
    if name == "chromium":
        async with chromium(pin) as tab:
            yield tab
    else:
        async with firefox() as tab:
            yield tab


@pytest.fixture(scope="session", name="phone_browser")
def phone_browser_fixture() -> Callable[[str, str], Any]:
    """`async with phone_browser("chromium" | "firefox", pin) as tab`: `await tab()` is a
    fresh phone (a tab with its own cookies and storage). Skips when the browser is not
    installed (fails in CI: scripts/debian-packages.txt installs both)."""

    def open_browser(name: str, pin: str) -> Any:
        why = available(name)
        if why is not None:
            if os.environ.get("CI"):
                pytest.fail(why)
            pytest.skip(why)
        return phone_browser(name, pin)

    return open_browser


@pytest.fixture(scope="session", name="wait_js")
def wait_js_fixture(until: Callable[..., Any]) -> Callable[..., Any]:
    """`await wait_js(browser, condition, timeout=10)`: the value of `condition` (a script
    run in the page) once it is truthy, looked at again and again (`until`)."""

    async def wait_js(browser: PhoneBrowser, condition: str, timeout: float = 10.0) -> Any:
        return await until(lambda: browser.js(condition), f"{browser.name}: {condition}", timeout)

    return wait_js


def browser_version(name: str) -> str:
    binary = CHROMIUM if name == "chromium" else FIREFOX
    done = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30)
    return done.stdout.strip()


# --- an in-process Notch with its phone page --------------------------------------------

REPO = Path(__file__).resolve().parents[3]


class PhoneNotch:
    """A running service and socket with its phone page on 127.0.0.1 (as app.py composes
    them), the desktop's cards answered by `cards` (a ScriptedPresenter)."""

    def __init__(self, notch: Any, answers: Any) -> None:
        self.notch = notch
        self.answers = answers
        self.cards = notch.presenter
        self.origin = f"https://127.0.0.1:{answers.port}"
        self.pin = answers.server.page.certificate.spki_pin

    def pairing_url(self) -> str:
        """The URL the QR code holds, at the loopback address (as `notch phone pair
        --address 127.0.0.1` prints it)."""
        from notch_app.phone.pairing import invite

        made = self.answers.invite()
        return invite("127.0.0.1", self.answers.port, made.code, made.fingerprint).url


@pytest.fixture(name="phone_notch")
def phone_notch_fixture(tmp_path: Path) -> Callable[[], Any]:
    """`async with phone_notch() as notch`: a PhoneNotch over the bundled integrations."""

    @contextlib.asynccontextmanager
    async def started() -> AsyncIterator[PhoneNotch]:
        from notch_app.headless import start
        from notch_app.phone.answering import PhoneAnswers
        from notch_app.runtime.catalog import Catalog
        from notch_app.runtime.scripted import ScriptedPresenter

        catalog, problems = Catalog.load([REPO / "manifests"])
        assert not problems, problems
        short = Path(tempfile.mkdtemp(prefix="notch-p"))
        notch = await start(
            short / "notch.sock", tmp_path / "data", catalog=catalog,
            presenter=lambda sink: ScriptedPresenter(sink),
        )  # fmt: skip
        answers = PhoneAnswers(notch.service, tmp_path / "data", host="127.0.0.1")
        await answers.follow(True, 0)
        assert answers.server is not None, answers.problem
        try:
            yield PhoneNotch(notch, answers)
        finally:
            await answers.stop()
            await notch.close()
            shutil.rmtree(short, ignore_errors=True)

    return started
