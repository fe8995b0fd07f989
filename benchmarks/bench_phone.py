"""Answer from your phone, measured: the time from a card asked (an agent's
`confirm.request` on the socket) to it shown on a paired phone's page (its element in
the page's DOM, stamped by a MutationObserver), p50 and p99 over N cards; and the page's
size in bytes (one request: HTML with its script and style inline).

    .venv/bin/python benchmarks/bench_phone.py [N] [--shot PNG]

Debian's Chromium through Playwright at a phone's viewport, the page's certificate
pinned; an in-process Notch (service, socket, phone page) as app.py composes them.
"""

from __future__ import annotations

import asyncio
import json
import ssl
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx
from playwright.async_api import async_playwright

from notch_app.headless import start
from notch_app.ipc.client import AsyncNotchClient
from notch_app.phone.answering import PhoneAnswers
from notch_app.phone.pairing import invite
from notch_app.runtime.catalog import Catalog
from notch_app.runtime.scripted import ScriptedPresenter

REPO = Path(__file__).resolve().parents[1]
MAIL = "dev.notch.examples.mail"
ARGS = json.loads((REPO / "manifests/mail/preview.json").read_text())["tools"]["send_email"]["args"]
FLAGS = ["--no-sandbox", "--disable-background-networking", "--disable-component-update",
         "--no-first-run", "--disable-sync", "--disable-gpu"]  # fmt: skip
WATCH = """() => { window.seenAt = {}; new MutationObserver((changes) => {
  const now = performance.timeOrigin + performance.now();
  for (const c of changes) for (const n of c.addedNodes)
    if (n.dataset && n.dataset.callId && !(n.dataset.callId in seenAt)) seenAt[n.dataset.callId] = now;
}).observe(document.getElementById('list'), {childList: true}); }"""


async def until(page: object, expression: str, timeout: float = 10.0) -> float:
    deadline = time.monotonic() + timeout
    while True:
        value = await page.evaluate(f"() => ({expression})")  # type: ignore[attr-defined]
        if value:
            return value  # type: ignore[no-any-return]
        if time.monotonic() > deadline:
            raise TimeoutError(expression)
        await asyncio.sleep(0.005)


async def main(count: int, shot: Path | None) -> None:
    catalog, _ = Catalog.load([REPO / "manifests"])
    base = Path(tempfile.mkdtemp(prefix="notch-b"))
    notch = await start(base / "s.sock", base / "data", catalog=catalog,
                        presenter=lambda sink: ScriptedPresenter(sink))  # fmt: skip
    answers = PhoneAnswers(notch.service, base / "data", host="127.0.0.1")
    await answers.follow(True, 0)
    assert answers.server is not None
    cert = answers.server.page.certificate
    origin = f"https://127.0.0.1:{answers.port}"
    pinned = ssl.create_default_context(cafile=str(cert.cert_path))
    async with httpx.AsyncClient(verify=pinned) as http:
        page_bytes = len((await http.get(origin + "/")).content)
    made = answers.invite()
    url = invite("127.0.0.1", answers.port or 0, made.code, made.fingerprint).url
    seen: list[float] = []
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(
            executable_path="/usr/bin/chromium",
            args=[*FLAGS, f"--ignore-certificate-errors-spki-list={cert.spki_pin}"],
        )
        context = await browser.new_context(viewport={"width": 390, "height": 844},
                                            device_scale_factor=3, is_mobile=True)  # fmt: skip
        page = await context.new_page()
        await page.goto(url)
        await page.fill("#pair-name", "Pixel 8")
        await page.click("#pair-button")
        await until(page, "document.body.dataset.state === 'cards'")
        await page.evaluate(WATCH)
        async with AsyncNotchClient(notch.server.path) as agent:
            for i in range(count):
                call_id = f"b{i}"
                asked_at = time.time() * 1000
                await agent.submit(MAIL, "send_email", ARGS, call_id=call_id)
                # The stamp is the page's own (MutationObserver); polling it here only
                # decides when to read it. (The page's CSP forbids eval, so no
                # wait_for_function: evaluate goes through the DevTools protocol.)
                stamp = await until(page, f"window.seenAt[{json.dumps(call_id)}]")
                seen.append(stamp - asked_at)
                if shot is not None and i == 0:
                    await until(page, "!document.querySelector('.approve').disabled")
                    await page.screenshot(path=str(shot), full_page=True)
                await agent.withdraw(call_id)
                await until(page, f"!document.querySelector('[data-call-id=\"{call_id}\"]')")
        await browser.close()
    await answers.stop()
    await notch.close()
    ordered = sorted(seen)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    print(f"cards: {count}; asked → shown on the phone page: p50 {statistics.median(seen):.1f} ms, "
          f"p99 {p99:.1f} ms, max {ordered[-1]:.1f} ms")  # fmt: skip
    print(f"page: {page_bytes} bytes (HTML with its script and style inline, uncompressed)")


if __name__ == "__main__":
    args = sys.argv[1:]
    shot = None
    if "--shot" in args:
        at = args.index("--shot")
        shot = Path(args[at + 1])
        del args[at : at + 2]
    asyncio.run(main(int(args[0]) if args else 100, shot))
