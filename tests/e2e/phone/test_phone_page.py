"""Answer from your phone, in real browsers at a phone's size (Chromium and Firefox from
Debian): pairing by the URL the QR code holds, a card on the page within a second of
being asked, approve / decline / words reaching the agent over the real socket, and the
attacks: a replayed answer, an answer for another card, an answer after the desktop
decided, a forged signature, an unpaired browser, a request from another site's page."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from notch_app.ipc.client import AsyncNotchClient

# One event loop for the module: its Firefox outlives a test (see `browsers`).
pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]

MAIL = "dev.notch.examples.mail"
REPO = Path(__file__).resolve().parents[3]
MAIL_ARGS: dict[str, Any] = json.loads(
    (REPO / "manifests" / "mail" / "preview.json").read_text(encoding="utf-8")
)["tools"]["send_email"]["args"]
BROWSERS = ["chromium", "firefox"]


def card(call_id: str) -> str:
    return f'[data-call-id="{call_id}"]'


def shown(call_id: str) -> str:
    return f"!!document.querySelector('{card(call_id)}')"


# Signs and sends an answer as the page does, for a card object the page holds; its
# status. `KEY` is the phone's own key unless the test gives another.
SEND = """(async () => {{
  const c = {card};
  const payload = JSON.stringify({{v: 1, device: state.device.id, callId: c.callId,
    digest: c.digest, decision: {decision}, words: "", nonce: c.nonce}});
  const key = {key};
  const signature = await sign(key, payload);
  const body = JSON.stringify({{payload, signature}});
  if ({keep}) {{ window.kept = body; return 0; }}
  const r = await fetch("/api/answer", {{method: "POST", credentials: "same-origin",
    headers: {{"Content-Type": "application/json", "X-Notch": "1"}}, body}});
  return r.status;
}})()"""
OWN_KEY = "state.key.privateKey"
OTHER_KEY = (
    '(await crypto.subtle.generateKey({name: "ECDSA", namedCurve: "P-256"}, false, '
    '["sign", "verify"])).privateKey'
)


def send(card_js: str, decision: str, key: str = OWN_KEY, keep: bool = False) -> str:
    return SEND.format(
        card=card_js, decision=json.dumps(decision), key=key, keep="true" if keep else "false"
    )


def held(call_id: str) -> str:
    return f"state.shown.get({json.dumps(call_id)}).card"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browsers(phone_browser: Any) -> AsyncIterator[Callable[[str, str], Any]]:
    """`async with browsers(name, pin) as tab`: `phone_browser`'s, but one Firefox for the
    module's tests (its start is ~6 s of CPU; each `tab()` is still a phone of its own, in
    a user context of its own). Chromium starts per test: it pins the test's certificate."""
    firefox = contextlib.AsyncExitStack()
    tabs: list[Any] = []

    @contextlib.asynccontextmanager
    async def opened(name: str, pin: str) -> AsyncIterator[Any]:
        if name != "firefox":
            async with phone_browser(name, pin) as own:
                yield own
            return
        if not tabs:
            tabs.append(await firefox.enter_async_context(phone_browser(name, pin)))
        made: list[Any] = []

        async def tab() -> Any:
            made.append(await tabs[0]())
            return made[-1]

        try:
            yield tab
        finally:
            for phone in made:  # the next test's phone sees none of this one's pages
                await phone.close()

    async with firefox:
        yield opened


async def pair(phone: Any, notch: Any, wait_js: Callable[..., Any], name: str) -> None:
    """Open the QR code's URL and pair as a person would: name it, press Pair."""
    await phone.goto(notch.pairing_url())
    await wait_js(phone, "document.body.dataset.state === 'pairing'")
    await phone.js("document.getElementById('pair-name').value = ''")
    await phone.type("#pair-name", name)
    await phone.click("#pair-button")
    await wait_js(phone, "document.body.dataset.state === 'cards'")


@pytest.mark.timeout(120)
@pytest.mark.parametrize("browser", BROWSERS)
async def test_pairing_then_a_card_within_a_second_and_every_answer_reaches_the_agent(
    browser: str, phone_notch: Any, browsers: Any, wait_js: Any
) -> None:
    # Chromium trusts exactly the page's certificate (its SPKI pinned, as the QR pins it).
    async with phone_notch() as notch, browsers(browser, notch.pin) as tab:
        phone = await tab()
        await pair(phone, notch, wait_js, "Pixel 8")
        (device,) = notch.answers.paired()
        assert device.name == "Pixel 8"
        assert await phone.js("location.hash") == ""  # the used code is gone from the URL

        args = MAIL_ARGS
        async with AsyncNotchClient(notch.notch.server.path) as agent:
            began = time.monotonic()
            asked = asyncio.ensure_future(agent.confirm(MAIL, "send_email", args, call_id="p1"))
            await wait_js(phone, shown("p1"), timeout=5)
            assert time.monotonic() - began < 1.0, "the card took over a second to show"
            text = await phone.js(f"document.querySelector('{card('p1')}').innerText")
            assert "sam@example.com" in text and "Re: Q3 report" in text
            # Approve is held a moment after the card appears, as on the desktop.
            await wait_js(
                phone, f"document.querySelector('{card('p1')} .approve').disabled === false"
            )
            await phone.click(f"{card('p1')} .approve")
            decision = await asyncio.wait_for(asked, 10)
            assert (decision.outcome, decision.decided_by) == ("approved", "phone")
            assert decision.message == "answered on Pixel 8"
            assert notch.cards.cards == {}  # the desktop card went with it

            asked = asyncio.ensure_future(agent.confirm(MAIL, "send_email", args, call_id="p2"))
            await wait_js(phone, shown("p2"))
            await phone.click(f"{card('p2')} .decline")
            assert (await asyncio.wait_for(asked, 10)).outcome == "declined"

            asked = asyncio.ensure_future(agent.confirm(MAIL, "send_email", args, call_id="p3"))
            await wait_js(phone, shown("p3"))
            await phone.click(f"{card('p3')} .change summary")
            await phone.type(f"{card('p3')} .words", "send it to Lee instead")
            await phone.click(f"{card('p3')} .send-words")
            decision = await asyncio.wait_for(asked, 10)
            assert (decision.outcome, decision.reason, decision.feedback) == (
                "declined", "revise", "send it to Lee instead",
            )  # fmt: skip
            logged = {e.call_id: e for e in notch.notch.service.store.log()}
            assert logged["p1"].decided_by == "phone"
            assert logged["p1"].message == "answered on Pixel 8"


@contextlib.asynccontextmanager
async def other_site(body: str, target: str) -> AsyncIterator[str]:
    """Another site's page (plain http on another port) that tries to answer for the
    person with the browser's cookies: a CORS fetch, a no-cors fetch, a read of the
    cards. It writes what happened into its title."""
    page = f"""<!doctype html><title>running</title><script>
(async () => {{
  const out = [];
  const body = {json.dumps(body)};
  try {{ const r = await fetch("{target}/api/answer", {{method: "POST", credentials: "include",
      headers: {{"Content-Type": "application/json", "X-Notch": "1"}}, body}});
      out.push("cors:" + r.status); }} catch (e) {{ out.push("cors:blocked"); }}
  try {{ await fetch("{target}/api/answer", {{method: "POST", mode: "no-cors",
      credentials: "include", headers: {{"Content-Type": "text/plain"}}, body}});
      out.push("nocors:sent"); }} catch (e) {{ out.push("nocors:blocked"); }}
  try {{ const r = await fetch("{target}/api/cards", {{credentials: "include"}});
      out.push("read:" + r.status); }} catch (e) {{ out.push("read:blocked"); }}
  document.title = "done " + out.join(" ");
}})();
</script>""".encode()

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(Exception):
            await reader.readuntil(b"\r\n\r\n")
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nConnection: close\r\n"
                + f"Content-Length: {len(page)}\r\n\r\n".encode()
                + page
            )
            await writer.drain()
        writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        server.close()
        await server.wait_closed()


@pytest.mark.timeout(120)
@pytest.mark.parametrize("browser", BROWSERS)
async def test_the_attacks_on_the_phone_page_are_refused(
    browser: str, phone_notch: Any, browsers: Any, wait_js: Any
) -> None:
    async with phone_notch() as notch, browsers(browser, notch.pin) as tab:
        phone = await tab()
        await pair(phone, notch, wait_js, "Pixel 8")
        args = MAIL_ARGS
        async with AsyncNotchClient(notch.notch.server.path) as agent:
            one = asyncio.ensure_future(agent.confirm(MAIL, "send_email", args, call_id="c1"))
            two = asyncio.ensure_future(
                agent.confirm(MAIL, "send_email", {**args, "subject": "Two"}, call_id="c2")
            )
            await wait_js(phone, f"{shown('c1')} && {shown('c2')}")
            # Keep what the page sends, to replay it later.
            await phone.js(
                "(() => { window.sent = []; const f = window.fetch; window.fetch = (u, i) => {"
                " if (String(u).includes('/api/answer')) sent.push(i.body); return f(u, i); };"
                " return true; })()"
            )

            # A forged signature: a key the phone never registered.
            assert await phone.js(send(held("c1"), "approve", OTHER_KEY)) == 403
            # Another card's answer: c2's callId and digest with c1's nonce, well signed.
            crossed = f"{{...{held('c2')}, nonce: {held('c1')}.nonce}}"
            assert await phone.js(send(crossed, "approve")) == 409
            await wait_js(phone, shown("c1"))

            # The real answer, then the same bytes again: a replay.
            await phone.click(f"{card('c1')} .decline")
            assert (await asyncio.wait_for(one, 10)).outcome == "declined"
            replayed = await phone.js(
                "(async () => (await fetch('/api/answer', {method: 'POST', credentials: "
                "'same-origin', headers: {'Content-Type': 'application/json', 'X-Notch': '1'},"
                " body: sent[sent.length - 1]})).status)()"
            )
            assert replayed == 409

            # After the desktop decided: the phone's answer, signed and fresh, is refused.
            await wait_js(phone, f"{held('c2')}.nonce")
            await phone.js(f"(window.late = {held('c2')}, true)")
            notch.cards.approve("c2")
            assert (await asyncio.wait_for(two, 10)).outcome == "approved"
            assert await phone.js(send("window.late", "decline")) == 409
            assert notch.notch.service.store.decision("c2").outcome == "approved"

            three = asyncio.ensure_future(
                agent.confirm(MAIL, "send_email", {**args, "subject": "Three"}, call_id="c3")
            )
            await wait_js(phone, shown("c3"))
            await wait_js(phone, f"{held('c3')}.nonce")
            # A signed, fresh approval for c3, kept but not sent: another site tries it.
            await phone.js(send(held("c3"), "approve", keep=True))
            body = await phone.js("window.kept")
            taken = notch.answers.server.page.answers
            async with other_site(body, notch.origin) as evil:
                await phone.goto(evil)
                said = await wait_js(
                    phone, "document.title.startsWith('done') && document.title", timeout=20
                )
            # No CORS answer ever lets its fetch through; the one it could still send blind
            # (no-cors) is refused by the page; it can never read the cards.
            assert "cors:blocked" in said and "read:blocked" in said, said
            assert notch.answers.server.page.answers == taken  # nothing was taken
            assert not three.done()

            # An unpaired browser (its own cookies, no key): only the pairing screen.
            stranger = await tab()
            await stranger.goto(notch.origin + "/")
            await wait_js(stranger, "document.body.dataset.state === 'unpaired'")
            text = await stranger.js("document.body.innerText")
            assert "Three" not in text and "sam@example.com" not in text
            assert (
                await stranger.js(
                    "(async () => (await fetch('/api/cards', {headers: {'X-Notch': '1'}})).status)()"
                )
                == 401
            )

            # Back on the Notch page, the same kept body is taken: it was the site that
            # was refused, not the answer.
            await phone.goto(notch.origin + "/")
            await wait_js(phone, shown("c3"))
            status = await phone.js(
                f"(async () => (await fetch('/api/answer', {{method: 'POST', credentials: "
                f"'same-origin', headers: {{'Content-Type': 'application/json', "
                f"'X-Notch': '1'}}, body: {json.dumps(body)}}})).status)()"
            )
            assert status == 200
            assert (await asyncio.wait_for(three, 10)).outcome == "approved"

            # Unpair: the page is told at once; its key no longer answers.
            notch.answers.unpair(notch.answers.paired()[0].device_id)
            await wait_js(phone, "document.body.dataset.state === 'unpaired'")
