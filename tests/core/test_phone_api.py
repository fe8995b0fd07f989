"""The phone page's API over real TLS (the install's own certificate, pinned), against an
in-process Notch on its real socket, with a phone's key made as WebCrypto makes it
(ECDSA P-256, r‖s signatures). The browsers' own tests are tests/e2e/test_phone_page.py;
these are the protocol's promises and the attacks on it, fast."""

from __future__ import annotations

import asyncio
import base64
import json
import ssl
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from notch_app.phone.answering import PhoneAnswers

if TYPE_CHECKING:
    import httpx
    from cryptography.hazmat.primitives.asymmetric.ec import EllipticCurvePrivateKey

# httpx and cryptography are imported where a test uses them: at the top, every worker
# paid for them (~0.17 s) while collecting, also in runs that select none of these tests.

MAIL = "com.example.mail"


class Phone:
    """A phone's key, as the page makes it, and its signatures (r‖s, base64)."""

    def __init__(self) -> None:
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import ec

        self.key: EllipticCurvePrivateKey = ec.generate_private_key(ec.SECP256R1())
        spki = self.key.public_key().public_bytes(
            serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
        )
        self.public = base64.b64encode(spki).decode()

    def sign(self, text: str) -> str:
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

        r, s = decode_dss_signature(self.key.sign(text.encode(), ec.ECDSA(hashes.SHA256())))
        return base64.b64encode(r.to_bytes(32, "big") + s.to_bytes(32, "big")).decode()


@dataclass
class Page:
    answers: PhoneAnswers
    origin: str
    http: httpx.AsyncClient

    def headers(self, **more: str) -> dict[str, str]:
        return {"Origin": self.origin, "X-Notch": "1", "Sec-Fetch-Site": "same-origin", **more}

    async def pair(self, phone: Phone, name: str = "Pixel 8") -> dict[str, Any]:
        code = self.answers.invite().code
        reply = await self.http.post(
            "/api/pair",
            json={"code": code, "name": name, "publicKey": phone.public,
                  "proof": phone.sign(f"notch-pair-v1:{code}")},
            headers=self.headers(),
        )  # fmt: skip
        assert reply.status_code == 200, reply.text
        device: dict[str, Any] = reply.json()["device"]
        return device

    async def cards(self, since: int = -1) -> httpx.Response:
        return await self.http.get(f"/api/cards?since={since}", headers=self.headers())

    def answer_body(
        self, phone: Phone, device: str, card: dict[str, Any], decision: str, words: str = ""
    ) -> dict[str, str]:
        payload = json.dumps({"v": 1, "device": device, "callId": card["callId"],
                              "digest": card["digest"], "decision": decision,
                              "words": words, "nonce": card["nonce"]})  # fmt: skip
        return {"payload": payload, "signature": phone.sign(payload)}

    async def answer(self, body: dict[str, str]) -> httpx.Response:
        return await self.http.post("/api/answer", json=body, headers=self.headers())


@asynccontextmanager
async def phone_page(notch: Any, base: Path) -> AsyncIterator[Page]:
    import httpx

    answers = PhoneAnswers(notch.service, base / "data", host="127.0.0.1")
    await answers.follow(True, 0)
    assert answers.server is not None, answers.problem
    port = answers.port
    pinned = ssl.create_default_context(cafile=str(answers.server.page.certificate.cert_path))
    origin = f"https://127.0.0.1:{port}"
    try:
        async with httpx.AsyncClient(base_url=origin, verify=pinned, timeout=30) as http:
            yield Page(answers, origin, http)
    finally:
        await answers.stop()


async def waiting_card(page: Page, call_id: str) -> dict[str, Any]:
    async with asyncio.timeout(10):
        version = -1
        while True:
            reply = await page.cards(version)
            data = reply.json()
            version = data["version"]
            cards: list[dict[str, Any]] = data["cards"]
            for card in cards:
                if card["callId"] == call_id:
                    return card


@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_pair_then_approve_decline_and_words_reach_the_agent(
    base: Path, notch_and_client: Callable[..., Any]
) -> None:
    async with notch_and_client(base) as (notch, cards, agent), phone_page(notch, base) as page:
        phone = Phone()
        device = await page.pair(phone)
        assert device["name"] == "Pixel 8"

        asked = asyncio.ensure_future(
            agent.confirm(MAIL, "send_email", {"to": "sam"}, call_id="a1")
        )
        card = await waiting_card(page, "a1")
        assert card["headline"] == "Send email" and ["to", "sam"] in card["facts"]
        assert (
            await page.answer(page.answer_body(phone, device["id"], card, "approve"))
        ).json() == {"outcome": "approved"}
        decision = await asked
        assert (decision.outcome, decision.decided_by) == ("approved", "phone")
        assert decision.message == "answered on Pixel 8"
        # The desktop heard it was answered elsewhere (the overlay says where).
        assert ("a1", "approved") in cards.saved or "a1" not in cards.cards

        asked = asyncio.ensure_future(
            agent.confirm(MAIL, "send_email", {"to": "kim"}, call_id="a2")
        )
        card = await waiting_card(page, "a2")
        await page.answer(page.answer_body(phone, device["id"], card, "decline"))
        assert (await asked).outcome == "declined"

        asked = asyncio.ensure_future(
            agent.confirm(MAIL, "send_email", {"to": "eve"}, call_id="a3")
        )
        card = await waiting_card(page, "a3")
        await page.answer(page.answer_body(phone, device["id"], card, "words", "send it to Sam"))
        decision = await asked
        assert (decision.outcome, decision.reason, decision.feedback) == (
            "declined",
            "revise",
            "send it to Sam",
        )
        # The log records the phone.
        logged = {e.call_id: e for e in notch.service.store.log()}
        assert logged["a1"].decided_by == "phone" and "Pixel 8" in (logged["a1"].message or "")


@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_the_attacks_are_refused(base: Path, notch_and_client: Callable[..., Any]) -> None:
    import httpx

    async with notch_and_client(base) as (notch, cards, agent), phone_page(notch, base) as page:
        phone = Phone()
        device = await page.pair(phone)
        first = asyncio.ensure_future(agent.confirm(MAIL, "send_email", {"to": "a"}, call_id="c1"))
        second = asyncio.ensure_future(agent.confirm(MAIL, "send_email", {"to": "b"}, call_id="c2"))
        one = await waiting_card(page, "c1")
        two = await waiting_card(page, "c2")

        # A forged signature (another key) is refused; so is a tampered payload.
        forged = page.answer_body(Phone(), device["id"], one, "approve")
        assert (await page.answer(forged)).status_code == 403
        body = page.answer_body(phone, device["id"], one, "approve")
        tampered = {**body, "payload": body["payload"].replace('"c1"', '"c2"')}
        assert (await page.answer(tampered)).status_code == 403

        # An answer for another card: c2's callId with c1's nonce, signed properly.
        crossed = page.answer_body(phone, device["id"], {**two, "nonce": one["nonce"]}, "approve")
        assert (await page.answer(crossed)).status_code == 409

        # Replay: the first answer goes through, the same bytes again are refused.
        one = await waiting_card(page, "c1")
        good = page.answer_body(phone, device["id"], one, "decline")
        assert (await page.answer(good)).status_code == 200
        assert (await page.answer(good)).status_code == 409
        assert (await first).outcome == "declined"

        # After the desktop decided: the phone's answer is refused, nothing changes.
        two = await waiting_card(page, "c2")
        cards.approve("c2")
        assert (await second).outcome == "approved"
        late = await page.answer(page.answer_body(phone, device["id"], two, "decline"))
        assert late.status_code == 409
        assert notch.service.store.decision("c2").outcome == "approved"

        # Cross-site: another origin, a form post, no X-Notch, a foreign Host name.
        third = asyncio.ensure_future(agent.confirm(MAIL, "send_email", {"to": "c"}, call_id="c3"))
        card = await waiting_card(page, "c3")
        body = page.answer_body(phone, device["id"], card, "approve")
        for headers in (
            {"Origin": "https://evil.example", "X-Notch": "1"},
            {"Origin": page.origin, "X-Notch": "1", "Sec-Fetch-Site": "cross-site"},
            {"Origin": page.origin},
        ):
            reply = await page.http.post("/api/answer", json=body, headers=headers)
            assert reply.status_code == 403, headers
            assert "access-control-allow-origin" not in reply.headers
        form = await page.http.post(
            "/api/answer", data=body, headers={"Origin": page.origin, "X-Notch": "1"}
        )
        assert form.status_code == 400
        rebound = await page.http.get(
            "/api/cards",
            headers={**page.headers(), "Host": f"notch.evil.example:{page.answers.port}"},
        )
        assert rebound.status_code == 421
        assert not third.done()

        # An unpaired browser: no cookie, no cards; the page itself shows only pairing.
        async with httpx.AsyncClient(base_url=page.origin, verify=False) as stranger:
            assert (await stranger.get("/api/cards", headers=page.headers())).status_code == 401
            html = (await stranger.get("/")).text
            assert "send_email" not in html and "c3" not in html

        # Unpair: the key and cookie stop working at once.
        assert page.answers.unpair(device["id"])
        assert (await page.cards()).status_code == 401
        assert (await page.answer(body)).status_code == 401
        assert not third.done()
        cards.decline("c3")
        await third


@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_no_approval_of_a_secret_card_and_no_secret_value_sent(
    base: Path, notch_and_client: Callable[..., Any]
) -> None:
    async with notch_and_client(base) as (notch, _cards, agent), phone_page(notch, base) as page:
        phone = Phone()
        device = await page.pair(phone)
        args = {"user": {"name": "kim", "password": "hunter2"}}
        asked = asyncio.ensure_future(agent.confirm(MAIL, "connect_account", args, call_id="s1"))
        card = await waiting_card(page, "s1")
        assert card["approvable"] is False
        assert "hunter2" not in json.dumps(card)
        refused = await page.answer(page.answer_body(phone, device["id"], card, "approve"))
        assert refused.status_code == 403 and "desktop" in refused.json()["error"]
        card = await waiting_card(page, "s1")  # a fresh nonce: decline still works
        await page.answer(page.answer_body(phone, device["id"], card, "decline"))
        assert (await asked).outcome == "declined"


@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_pairing_codes_are_single_use_and_the_proof_must_match(
    base: Path, notch_and_client: Callable[..., Any]
) -> None:
    async with notch_and_client(base) as (notch, _cards, _agent), phone_page(notch, base) as page:
        phone, other = Phone(), Phone()
        code = page.answers.invite().code
        wrong = await page.http.post(
            "/api/pair",
            json={"code": code, "name": "x", "publicKey": phone.public,
                  "proof": other.sign(f"notch-pair-v1:{code}")},
            headers=page.headers(),
        )  # fmt: skip
        assert wrong.status_code == 400
        body = {"code": code, "name": "x", "publicKey": phone.public,
                "proof": phone.sign(f"notch-pair-v1:{code}")}  # fmt: skip
        assert (
            await page.http.post("/api/pair", json=body, headers=page.headers())
        ).status_code == 200
        again = await page.http.post("/api/pair", json=body, headers=page.headers())
        assert again.status_code == 403
        assert len(page.answers.paired()) == 1
        # Rate limit: a page guessing codes is slowed down.
        statuses = []
        for _ in range(6):
            reply = await page.http.post("/api/pair", json=body, headers=page.headers())
            statuses.append(reply.status_code)
        assert 429 in statuses
