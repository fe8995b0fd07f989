"""A secret can't be read back from a digest (issue 18, finding 8).

`decisions.digest` (in the SQLite file, and in `confirm.get` for the asker) was the
SHA-256 of the real arguments, PIN included, beside the arguments with the PIN masked:
trying all 10^6 six-digit PINs against it took 1.3 s. Now a decision whose arguments
hold a secret value carries a digest over that value keyed with a per-request salt that
only the live decision carries (`digestSalt`, `digestKeyedPaths`); the file keeps the
keyed digest and no salt, and a request's own digest is of its arguments as stored
(masked). The asker's clients verify the keyed digest as before; Node reproduces it
with the README's code.

Here the attack is run as it was: every candidate PIN hashed the old way against every
digest the file holds and every digest `confirm.get` returns; it finds the PIN in an
old-style digest (so it works) and nothing in what Notch keeps now.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from notch_app.client import AsyncNotchClient, NotchClient, NotchDecisionRefused
from notch_app.runtime.decision import (
    Decision,
    DecisionNotVerified,
    arguments_digest,
    canonical_json,
)
from notch_app.runtime.redaction import REDACTED

MAIL = "com.example.mail"  # connect_account binds user.password to a passwordField
PIN = "493817"
AGENT = "the-pin-asking-agents-token-1"
README = Path(__file__).resolve().parents[2] / "README.md"
NODE = shutil.which("node")


def brute_force(masked: dict[str, Any], digests: set[str]) -> str | None:
    """The attack: each six-digit PIN put where the mask is, hashed as Notch used to
    (sha256 of the RFC 8785 JSON), compared with every digest found. ~1 s for 10^6."""
    marker = json.dumps(REDACTED, ensure_ascii=False)
    head, tail = canonical_json(masked).split(marker)
    fresh = hashlib.sha256(head.encode()).copy
    end = tail.encode()
    # Raw digests and one formatted write per candidate: the same 10^6 hashes, less
    # Python around each.
    wanted = {bytes.fromhex(d.removeprefix("sha256:")) for d in digests}
    for n in range(1_000_000):
        h = fresh()
        h.update(b'"%06d"%b' % (n, end))
        if h.digest() in wanted:
            return f"{n:06d}"
    return None


def digests_in(data: Path) -> set[str]:
    """Every digest in every file of the data dir (database, WAL), as an attacker reads them."""
    blob = b"".join(p.read_bytes() for p in data.rglob("*") if p.is_file())
    return set(re.findall(r"sha256:[0-9a-f]{64}", blob.decode("latin-1")))


def test_the_attack_finds_a_pin_in_a_digest_of_the_real_arguments() -> None:
    """The brute force is real: against the old digest it finds the PIN."""
    masked = {"user": {"name": "ann", "password": REDACTED}}
    old = arguments_digest({"user": {"name": "ann", "password": PIN}})
    assert brute_force(masked, {old}) == PIN


@pytest.mark.asyncio
@pytest.mark.timeout(120)
async def test_no_digest_the_file_or_confirm_get_holds_gives_the_pin_back(
    base: Path, running_notch: Any
) -> None:
    data = base / "data"
    asked = {"user": {"name": "ann", "password": PIN}}
    async with (
        running_notch(base) as (notch, cards),
        AsyncNotchClient(notch.server.path, token=AGENT) as client,
    ):
        live_wait = asyncio.ensure_future(
            client.confirm(MAIL, "connect_account", asked, call_id="pin")
        )
        await cards.wait_for_cards(1)
        cards.approve("pin")
        live = await asyncio.wait_for(live_wait, 5)  # the client verified it
        # The live decision: the real PIN, a keyed digest, the salt to check it.
        assert live.arguments == asked and live.digest_keyed == ("user.password",)
        assert live.digest_salt is not None and len(live.digest_salt) == 64
        assert live.digest != arguments_digest(asked)
        live.verify()
        # An undecided request with a PIN is stored too.
        other = {"user": {"name": "ann", "password": "000777"}}
        waiting = asyncio.ensure_future(
            client.confirm(MAIL, "connect_account", other, call_id="open")
        )
        await cards.wait_for_cards(1)
        await notch.service.drain()
        waiting.cancel()
        salt = live.digest_salt
    on_disk = digests_in(data)
    assert live.digest in on_disk, "the decision's digest is what the file keeps"
    assert salt not in (data / "notch.sqlite3").read_bytes().decode("latin-1"), "salt never stored"

    # After a restart the asker reads its decision back: the same keyed digest, no salt.
    async with (
        running_notch(base) as (notch, _),
        AsyncNotchClient(notch.server.path, token=AGENT) as client,
    ):
        replay = await client.call("confirm.get", {"callId": "pin", "token": AGENT})
        with pytest.raises(NotchDecisionRefused, match="must be asked for again"):
            await client.get("pin")
    assert replay["digest"] == live.digest and "digestSalt" not in replay
    assert replay["arguments"] == {"user": {"name": "ann", "password": REDACTED}}

    masked = {"user": {"name": "ann", "password": REDACTED}}
    # Every PIN against every digest: the decided one's, and the undecided one's request's
    # (on disk) — neither PIN comes back.
    assert brute_force(masked, on_disk | {replay["digest"]}) is None
    with sqlite3.connect(data / "notch.sqlite3") as db:
        rows = dict(db.execute("SELECT call_id, args_digest FROM requests").fetchall())
    assert rows["open"] == arguments_digest(masked), "the request's digest: as stored"


def test_a_keyed_digest_binds_the_secret_and_everything_else() -> None:
    """What the executor checks still refuses anything but what was approved."""
    salt = bytes(range(32))
    args = {"user": {"name": "ann", "password": PIN}}
    keyed = ("user.password",)
    good = Decision("c", "approved", MAIL, "connect_account", args, digest=arguments_digest(
        args, keyed, salt), digest_keyed=keyed, digest_salt=salt.hex())  # fmt: skip
    good.verify()
    Decision.from_wire(good.to_wire()).verify()  # the wire keeps what verifying needs
    for cheat in (
        {"user": {"name": "ann", "password": "000000"}},  # another PIN
        {"user": {"name": "bob", "password": PIN}},  # another account, same PIN
        {"user": {"name": "ann"}},  # the keyed value taken out
    ):
        with pytest.raises(DecisionNotVerified):
            Decision("c", "approved", MAIL, "connect_account", cheat, digest=good.digest,
                     digest_keyed=keyed, digest_salt=good.digest_salt).verify()  # fmt: skip
    for salt_hex in (None, "", "not hex"):
        with pytest.raises(DecisionNotVerified, match="digestSalt"):
            Decision("c", "approved", MAIL, "connect_account", args, digest=good.digest,
                     digest_keyed=keyed, digest_salt=salt_hex).verify()  # fmt: skip
    # Claiming no keyed paths: the plain digest is required, and this one is not it.
    with pytest.raises(DecisionNotVerified):
        Decision("c", "approved", MAIL, "connect_account", args, digest=good.digest).verify()


@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_notch_ask_and_the_blocking_client_verify_a_keyed_decision(
    base: Path, running_notch: Any
) -> None:
    async with running_notch(base, rule=lambda request: (True, None)) as (notch, _):
        path = str(notch.server.path)
        args = json.dumps({"user": {"name": "ann", "password": PIN}})
        shell = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "notch_app", "ask", "--socket", path, "--integration", MAIL,
            "--tool", "connect_account", "--args", args,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        out, err = await asyncio.wait_for(shell.communicate(), 30)
        assert shell.returncode == 0, err.decode()
        printed = json.loads(out)
        assert printed["digestKeyedPaths"] == ["user.password"] and printed["digestSalt"]

        def blocking() -> Decision:
            with NotchClient(notch.server.path) as client:
                return client.confirm(MAIL, "connect_account", json.loads(args))

        decision = await asyncio.to_thread(blocking)
        assert decision.runs and decision.digest_keyed == ("user.password",)


@pytest.mark.skipif(NODE is None, reason="node is not installed (CI has it)")
@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_the_readme_javascript_verifies_the_keyed_decisions_of_a_real_notch(
    base: Path, running_notch: Any
) -> None:
    text = README.read_text(encoding="utf-8")
    section = text[text.index("### Digest") :]
    blocks = re.findall(r"```js\n(.*?)```", section, re.S)
    assert len(blocks) >= 2, "README's Digest section shows the keyed check in a second block"
    script = "".join(blocks[:2]) + (
        "\nconst ds = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));"
        "\nprocess.stdout.write(JSON.stringify(ds.map((d) => verified(d))));"
    )
    secrets = [PIN, "pässwörd 😀", "", 'a"b\\c', "0" * 300]
    async with (
        running_notch(base, rule=lambda request: (True, None)) as (notch, _),
        AsyncNotchClient(notch.server.path) as client,
    ):
        wires = []
        for n, secret in enumerate(secrets):
            args = {"user": {"name": f"u{n}", "password": secret}}
            decision = await client.confirm(MAIL, "connect_account", args)
            wires.append(decision.to_wire())
        plain = await client.confirm(MAIL, "send_email", {"to": "sam@example.com"})
        wires.append(plain.to_wire())
    assert all("digestSalt" in w for w in wires[:-1]) and "digestSalt" not in wires[-1]
    tampered = json.loads(json.dumps(wires[0]))
    tampered["arguments"]["user"]["password"] = "000000"
    assert NODE is not None
    done = subprocess.run(
        [NODE, "-e", script], input=json.dumps([*wires, tampered]),
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    assert json.loads(done.stdout) == [True] * len(wires) + [False]


@pytest.mark.asyncio
@pytest.mark.timeout(60)
async def test_a_read_only_call_with_a_secret_gets_a_keyed_digest_the_client_verifies(
    base: Path, running_notch: Any
) -> None:
    # A read's decision is built once with the secret paths worked out when it was
    # checked: they must still key its digest (a plain one would let the PIN be guessed).
    asked = {"query": "from:ann", "api_key": PIN}
    async with running_notch(base) as (notch, _):

        def blocking() -> Decision:
            with NotchClient(notch.server.path) as client:
                return client.confirm(MAIL, "search_mail", asked)  # verified by the client

        decision = await asyncio.to_thread(blocking)
    assert decision.outcome == "notRequired" and decision.arguments == asked
    assert decision.digest_keyed == ("api_key",) and decision.digest_salt
    assert decision.digest is not None and decision.digest != arguments_digest(asked)
    assert brute_force({"query": "from:ann", "api_key": REDACTED}, {decision.digest}) is None
    assert decision.for_model.endswith("needs no approval (it only reads); it ran as you sent it.")
