"""The phone page and its API, over HTTPS on the local network (Starlette on uvicorn, in
Notch's own event loop).

    GET  /              the page (one file; with no paired session it shows only pairing)
    GET  /api/cards     the open cards for this phone (long poll: ?since=VERSION)
    POST /api/pair      a one-time code and the phone's public key → its session cookie
    POST /api/answer    {payload, signature}: one answer, signed by the phone's key

Who may do what:
- Nothing but the page itself (no card, no name) reaches a browser without a paired
  phone's session cookie (HttpOnly, Secure, SameSite=Strict); unpairing removes the
  device, so its cookie and key stop working at the next request.
- Every call of the API must come from the page itself: the Host is this machine's
  address (no DNS rebinding), the Origin (when sent) is the page's, a POST is JSON
  (which a cross-site form cannot send without a preflight, and no CORS header is ever
  sent), and `Sec-Fetch-Site`, when the browser sends it, says same-origin.
- An answer is signed with the key the phone made at pairing over the payload naming
  the callId, the argument digest, the decision, the words and a nonce that Notch
  issued for this card and this phone; the nonce is used up by the first answer, and
  the answer is refused when the card is no longer open (decided on the desktop,
  withdrawn, expired, replaced) or its arguments changed.
- No approval of a card that holds a secret field (decline and words still reach the
  agent); secret values are never sent to the phone.
- Rate limits: pairing attempts per address, answers and polls per phone.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import ipaddress
import json
import logging
import secrets
import socket
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from notch_app.phone.cards import PhoneCard, phone_card, request_digest
from notch_app.phone.devices import Device, DeviceBook, PhoneError, clean_name
from notch_app.phone.signatures import public_key_ok, signed_by
from notch_app.phone.tls import Certificate
from notch_app.phone.watch import PhoneWatch
from notch_app.runtime.service import ConfirmationService, ServiceError

log = logging.getLogger("notch.phone")

COOKIE: Final = "notch_phone"
POLL_WAIT_S: Final = 20.0
"""A poll with nothing new answers after this long (the page asks again at once)."""
MAX_BODY: Final = 8192
MAX_WORDS: Final = 500
PAIR_TRIES: Final = (5, 60.0)
"""Pairing attempts per address: at most 5 a minute (a code is 128 bits; this keeps
the log quiet and a misbehaving page slow)."""
ANSWERS: Final = (20, 60.0)
"""Answers per phone: at most 20 a minute."""
POLLS: Final = (600, 60.0)
"""Polls per phone: at most 600 a minute. A poll answers at every change of the open
cards, so a busy agent's burst costs a few each; a page that loops is held here."""
SAVE_WAIT_S: Final = 5.0
PAGE_DIR: Final = Path(__file__).with_name("page")

_SECURITY_HEADERS: Final = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
}


class _Limits:
    """Sliding-window counters: `allow(key, (count, seconds))`."""

    def __init__(self) -> None:
        self._seen: dict[str, deque[float]] = {}

    def allow(self, key: str, limit: tuple[int, float]) -> bool:
        count, window = limit
        now = time.monotonic()
        seen = self._seen.setdefault(key, deque())
        while seen and seen[0] <= now - window:
            seen.popleft()
        if len(seen) >= count:
            return False
        seen.append(now)
        if len(self._seen) > 4096:  # forget idle keys
            self._seen = {k: v for k, v in self._seen.items() if v}
        return True


@dataclass(slots=True)
class PhonePage:
    """The page's state: who is paired, the nonces issued, the watch on the open cards."""

    service: ConfirmationService
    devices: DeviceBook
    certificate: Certificate
    watch: PhoneWatch
    port: int
    nonces: dict[tuple[str, str], str] = field(default_factory=dict)
    """(device id, callId) → the nonce its next answer must carry (used once)."""
    limits: _Limits = field(default_factory=_Limits)
    answers: int = 0
    """Answers taken (signed, fresh, for an open card): for the log and tests."""

    # --- the page ------------------------------------------------------------------

    def page(self) -> tuple[bytes, str]:
        """The page's bytes and its Content-Security-Policy (the inline script and style
        allowed by hash; nothing else may load or connect but this origin)."""
        html = (PAGE_DIR / "index.html").read_text(encoding="utf-8")
        script = (PAGE_DIR / "page.js").read_text(encoding="utf-8")
        style = (PAGE_DIR / "page.css").read_text(encoding="utf-8")
        body = html.replace("/*STYLE*/", style).replace("/*SCRIPT*/", script)

        def sha(text: str) -> str:
            return base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()

        policy = (
            "default-src 'none'; "
            f"script-src 'sha256-{sha(script)}'; style-src 'sha256-{sha(style)}'; "
            "connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; "
            "frame-ancestors 'none'"
        )
        return body.encode("utf-8"), policy

    # --- open cards ------------------------------------------------------------------

    def cards_for(self, device: Device) -> list[dict[str, Any]]:
        """The open cards as this phone sees them, oldest first, each with its nonce."""
        out = []
        open_ids = set()
        for request in self.service.open_requests:
            card = phone_card(self.service.catalog, request)
            if card is None:
                continue
            open_ids.add(request.call_id)
            key = (device.device_id, card.call_id)
            nonce = self.nonces.get(key)
            if nonce is None:
                nonce = self.nonces[key] = secrets.token_urlsafe(18)
            out.append(card.to_json(nonce))
        for key in [k for k in self.nonces if k[1] not in open_ids]:
            del self.nonces[key]  # a card no longer open takes its nonces with it
        return out

    def card(self, call_id: str) -> tuple[Any, PhoneCard | None]:
        for request in self.service.open_requests:
            if request.call_id == call_id:
                return request, phone_card(self.service.catalog, request)
        return None, None


# --- checks every request passes ---------------------------------------------------------


def _host_ok(request: Request, port: int) -> bool:
    """The Host is this page's: an IP address (or localhost) with its port. A name from
    elsewhere (DNS rebinding) is refused."""
    host = request.headers.get("host", "")
    name, _, given = host.rpartition(":")
    if given != str(port):
        return False
    name = name.strip("[]")
    if name == "localhost":
        return True
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def _same_origin(request: Request) -> bool:
    """A request from the page itself: its Origin (when sent) is this origin, and the
    browser's Sec-Fetch-Site (when sent) says same-origin."""
    origin = request.headers.get("origin")
    if origin is not None and origin != f"https://{request.headers.get('host', '')}":
        return False
    site = request.headers.get("sec-fetch-site")
    return site is None or site == "same-origin"


def _refused(status: int, text: str) -> JSONResponse:
    return JSONResponse({"error": text}, status_code=status, headers=_SECURITY_HEADERS)


def _ok(data: Any, **headers: str) -> JSONResponse:
    return JSONResponse(data, headers={**_SECURITY_HEADERS, **headers})


async def _json_body(request: Request) -> Any:
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        raise ValueError("send JSON")
    body = await request.body()
    if len(body) > MAX_BODY:
        raise ValueError("too large")
    return json.loads(body)


def build_app(page: PhonePage) -> Starlette:
    """The page's ASGI app."""
    routes = _Routes(page)
    return Starlette(
        routes=[
            Route("/", routes.index, methods=["GET"]),
            Route("/api/cards", routes.cards, methods=["GET"]),
            Route("/api/pair", routes.pair, methods=["POST"]),
            Route("/api/answer", routes.answer, methods=["POST"]),
        ]
    )


@dataclass(frozen=True, slots=True)
class _Answer:
    """What a phone's signed answer says: which card, as it saw it, and what to do."""

    call_id: str
    digest: str
    decision: str
    nonce: str
    words: Any


class _Routes:
    """The page's four routes, each checked as this module's docstring says."""

    def __init__(self, page: PhonePage) -> None:
        self.page = page
        self.devices = page.devices

    def checked(self, request: Request, *, post: bool) -> JSONResponse | None:
        if not _host_ok(request, self.page.port):
            return _refused(421, "This page answers only at this computer's address.")
        if not _same_origin(request):
            return _refused(403, "Refused: the request did not come from the Notch page.")
        if post and request.headers.get("origin") is None:
            return _refused(403, "Refused: an answer must come from the Notch page.")
        if request.headers.get("x-notch") != "1":
            # A header no other site can make a browser send here without a preflight,
            # which this page never allows (no CORS header is ever sent).
            return _refused(403, "Refused: the request did not come from the Notch page.")
        return None

    def device_of(self, request: Request) -> Device | None:
        try:
            return self.devices.by_cookie(request.cookies.get(COOKIE))
        except PhoneError as exc:
            log.error("%s", exc)
            return None

    async def index(self, request: Request) -> Response:
        if not _host_ok(request, self.page.port):
            return _refused(421, "This page answers only at this computer's address.")
        body, policy = self.page.page()
        return Response(
            body,
            media_type="text/html; charset=utf-8",
            headers={**_SECURITY_HEADERS, "Content-Security-Policy": policy},
        )

    async def cards(self, request: Request) -> Response:
        page = self.page
        bad = self.checked(request, post=False)
        if bad is not None:
            return bad
        device = self.device_of(request)
        if device is None:
            return _refused(401, "This phone is not paired with Notch.")
        if not page.limits.allow(f"poll:{device.device_id}", POLLS):
            return _refused(429, "Too many requests; wait a moment.")
        try:
            since = int(request.query_params.get("since", "-1"))
        except ValueError:
            since = -1
        if since == page.watch.version:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(page.watch.changed.wait(), POLL_WAIT_S)
        device = self.device_of(request)  # unpaired while it waited: nothing more
        if device is None:
            return _refused(401, "This phone is not paired with Notch.")
        return _ok(
            {
                "version": page.watch.version,
                "device": {"id": device.device_id, "name": device.name},
                "cards": page.cards_for(device),
            }
        )

    async def pair(self, request: Request) -> Response:
        page, devices = self.page, self.devices
        bad = self.checked(request, post=True)
        if bad is not None:
            return bad
        where = request.client.host if request.client else "?"
        if not page.limits.allow(f"pair:{where}", PAIR_TRIES):
            return _refused(429, "Too many pairing attempts; wait a minute.")
        try:
            data = await _json_body(request)
        except ValueError:
            return _refused(400, "Send the pairing code as JSON.")
        if not isinstance(data, dict):
            return _refused(400, "Send the pairing code as JSON.")
        code, key, proof = data.get("code"), data.get("publicKey"), data.get("proof")
        if not public_key_ok(key):
            return _refused(400, "The phone's key is not an ECDSA P-256 public key.")
        assert isinstance(key, str)
        # The phone proves it holds the key it registers (signed over the code).
        if not isinstance(code, str) or not signed_by(key, f"notch-pair-v1:{code}".encode(), proof):
            return _refused(400, "The pairing request is not signed by the phone's key.")
        try:
            if not devices.take_pairing_code(code):
                return _refused(
                    403,
                    "This pairing code is not valid (used, expired or mistyped): show "
                    "a new one in Notch's Settings and scan it again.",
                )
            device, cookie = devices.add(clean_name(data.get("name", "")), key)
        except PhoneError as exc:
            return _refused(409, str(exc))
        log.info("paired a phone: %s", device.name)
        response = _ok({"device": {"id": device.device_id, "name": device.name}})
        response.set_cookie(
            COOKIE, cookie, max_age=400 * 24 * 3600, path="/", secure=True, httponly=True,
            samesite="strict",
        )  # fmt: skip
        page.watch.bump()
        return response

    async def answer(self, request: Request) -> Response:
        bad = self.checked(request, post=True)
        if bad is not None:
            return bad
        device = self.device_of(request)
        if device is None:
            return _refused(401, "This phone is not paired with Notch.")
        if not self.page.limits.allow(f"answer:{device.device_id}", ANSWERS):
            return _refused(429, "Too many answers in a minute; wait a moment.")
        said = await _signed_answer(request, device)
        if isinstance(said, JSONResponse):
            return said
        return await self._take(device, said)

    async def _take(self, device: Device, said: _Answer) -> Response:
        """Decide the card as the phone's signed answer says, once its nonce, the card
        and its arguments are still the ones the phone was shown."""
        page, call_id, decision = self.page, said.call_id, said.decision
        issued = page.nonces.get((device.device_id, call_id))
        if issued is None or not secrets.compare_digest(issued, said.nonce):
            return _refused(409, "Refused: this answer was already used, or is not for this card.")
        del page.nonces[(device.device_id, call_id)]  # used once, whatever happens next
        page.watch.bump()  # the page gets the card again with a fresh nonce, if still open
        request_, card = page.card(call_id)
        if request_ is None or card is None:
            return _refused(409, "This card is no longer waiting: it was decided, withdrawn, "
                                 "replaced or expired.")  # fmt: skip
        if not secrets.compare_digest(request_digest(request_), said.digest):
            return _refused(409, "This card changed since the phone showed it; look again.")
        if decision == "approve" and card.holds_secret:
            return _refused(403, "This card holds a secret field: approve it on the desktop.")
        text = said.words if isinstance(said.words, str) else ""
        text = " ".join("".join(c if c.isprintable() else " " for c in text).split())[:MAX_WORDS]
        if decision == "words" and not text:
            return _refused(400, "Type what the agent should do instead.")
        page.watch.answered[call_id] = device.name
        extra: dict[str, Any] = (
            {"reason": "revise", "feedback": text} if decision == "words" else {}
        )
        try:
            taken = page.service.decide(
                call_id, decision == "approve", None, [], "phone", answered_on=device.name,
                **extra,
            )  # fmt: skip
        except (ValueError, ServiceError) as exc:
            taken = False
            log.warning("phone answer for %s not taken: %s", call_id, exc)
        if not taken:
            page.watch.answered.pop(call_id, None)
            return _refused(409, "This card is no longer waiting: it was decided on the desktop.")
        page.answers += 1
        outcome = await _stored(page, call_id)
        if outcome is None:
            why = page.watch.not_saved.pop(call_id, "it could not be stored")
            return _refused(503, f"Your answer was not saved: {why}. Try again.")
        return _ok({"outcome": outcome})


async def _signed_answer(request: Request, device: Device) -> _Answer | JSONResponse:
    """The answer in `request`, signed by `device`'s key; else the refusal to send."""
    try:
        data = await _json_body(request)
        payload_text = data["payload"]
        signature = data["signature"]
        if not isinstance(payload_text, str) or len(payload_text) > MAX_BODY:
            raise ValueError
    except (ValueError, KeyError, TypeError):
        return _refused(400, "Send {payload, signature} as JSON.")
    if not signed_by(device.public_key, payload_text.encode("utf-8"), signature):
        return _refused(403, "Refused: the answer is not signed by this phone's key.")
    try:
        said = json.loads(payload_text)
        answer = _Answer(
            str(said["callId"]), str(said["digest"]), str(said["decision"]),
            str(said["nonce"]), said.get("words"),
        )  # fmt: skip
        if said.get("v") != 1 or said.get("device") != device.device_id:
            raise ValueError
        if answer.decision not in ("approve", "decline", "words"):
            raise ValueError
    except (ValueError, KeyError, TypeError, AttributeError):
        return _refused(400, "The answer does not say which card and what.")
    return answer


async def _stored(page: PhonePage, call_id: str) -> str | None:
    """The outcome once the phone's decision for `call_id` is stored and sent; None when
    it could not be stored (the card stays open)."""
    try:
        future = page.service.wait(call_id)
    except ServiceError:
        return None
    deadline = time.monotonic() + SAVE_WAIT_S
    while time.monotonic() < deadline:
        if future.done():
            return future.result().outcome if not future.cancelled() else None
        if call_id in page.watch.not_saved:
            return None
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(future), 0.1)
    return None


class _QuietServer(uvicorn.Server):
    """uvicorn in Notch's loop: Notch owns the signals (SIGTERM ends Notch, not just the
    page)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


class PhoneServer:
    """Serves `page` on `host`:`port` over TLS until `stop()`."""

    def __init__(self, page: PhonePage, host: str = "0.0.0.0") -> None:
        self.page = page
        config = uvicorn.Config(
            build_app(page),
            host=host,
            port=page.port,
            ssl_certfile=str(page.certificate.cert_path),
            ssl_keyfile=str(page.certificate.key_path),
            log_level="warning",
            access_log=False,
            lifespan="off",
            http="h11",
            ws="none",
            loop="none",
            server_header=False,
            date_header=False,
            timeout_keep_alive=30,
            limit_concurrency=64,
        )
        self._server = _QuietServer(config)
        self._host = host
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Listen. Raises PhoneError when the port is taken (or cannot be bound)."""
        listening = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listening.bind((self._host, self.page.port))
            listening.listen(64)
            listening.setblocking(False)
            self.page.port = listening.getsockname()[1]  # port 0: the one the kernel chose
        except OSError as exc:
            listening.close()
            raise PhoneError(
                f"the phone page cannot listen on port {self.page.port} "
                f"({exc.strerror or exc}): choose another with `notch phone on --port N`"
            ) from None
        self._task = asyncio.ensure_future(self._server.serve(sockets=[listening]))
        while not self._server.started:
            if self._task.done():
                raise PhoneError(f"the phone page stopped as it started ({self._task!r})")
            await asyncio.sleep(0.01)

    async def stop(self) -> None:
        self._server.should_exit = True
        self.page.watch.bump()  # long polls answer now
        if self._task is not None:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(self._task, 5)
