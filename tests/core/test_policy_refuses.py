"""Rules that refuse ("never pay over 5,000"), end to end: set with the real `notch policy`
command, asked with the real `notch ask` over the socket of an in-process Notch whose
service uses the person's PolicyBook, as app.py wires it. The command's own refusals and
a rule for an integration not loaded here go through `notch_app.cli.main` in this
process, the function the `notch` script runs with its argv: the same parsing, checks
and settings file, without a process's ~0.35 s of imports each."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from notch_app.cli import main
from notch_app.manifest.model import Manifest
from notch_app.runtime.catalog import Catalog
from notch_app.runtime.policy_book import NotOneOfGuard, OverGuard, PersonPolicy, PolicyBook

PAY = "com.example.pay"
REFUSED = (
    "The person does not allow pay_invoice when amount is over 5,000; nothing ran. "
    "Ask them first, or lower amount to 5,000 or less."
)


def policy(base: Path, *words: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "notch_app", "policy", *words,
         "--data-dir", str(base / "data"), "--manifests", str(base / "m")],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip


def policy_here(
    base: Path, capsys: pytest.CaptureFixture[str], *words: str
) -> subprocess.CompletedProcess[str]:
    """As `policy(base, *words)`, through `main` in this process."""
    argv = ["policy", *words, "--data-dir", str(base / "data"), "--manifests", str(base / "m")]
    capsys.readouterr()  # only this call's output
    code = main(argv)
    said = capsys.readouterr()
    return subprocess.CompletedProcess(argv, code, said.out, said.err)


async def ask(sock: str, arguments: dict[str, Any], *extra: str) -> tuple[int, Any]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "notch_app", "ask", "--socket", sock, "--integration", PAY,
        "--tool", "pay_invoice", "--args", json.dumps(arguments), *extra,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, _ = await process.communicate()
    return process.returncode or 0, json.loads(out.decode()) if out.strip() else None


def _installed(base: Path, manifest: Manifest) -> Catalog:
    folder = base / "m" / "pay"
    folder.mkdir(parents=True)
    (folder / "manifest.json").write_text(
        json.dumps(manifest.model_dump(by_alias=True, exclude_none=True, mode="json"))
    )
    catalog, problems = Catalog.load([base / "m"])
    assert problems == [] and catalog.integration(PAY) is not None
    return catalog


@pytest.mark.asyncio
@pytest.mark.timeout(120)
async def test_a_refuse_rule_answers_at_once_with_a_sentence_and_a_glance(
    base: Path, running_notch: Any, pay_manifest: Callable[..., Manifest]
) -> None:
    catalog = _installed(base, pay_manifest(view_title="Pay"))
    done = policy(base, "set", PAY, "pay_invoice", "--refuse", "--over", "amount", "5,000")
    assert done.returncode == 0, done.stderr
    assert "refuses when amount is over 5,000" in done.stdout
    listed = json.loads(policy(base, "list", "--json").stdout)
    entry = next(a for a in listed["actions"] if a["tool"] == "pay_invoice")
    assert entry["refusals"] == [{"kind": "over", "argument": "amount", "limit": 5000}]

    async with running_notch(base, catalog=catalog) as (notch, cards):
        notch.service.policy = PersonPolicy(PolicyBook.in_data_dir(base / "data"))
        sock = str(notch.server.path)

        # Over the limit: refused at once, no card; the agent hears what to do instead.
        code, decision = await ask(sock, {"amount": 7000, "payee": "ACME"})
        assert (code, decision["outcome"], decision["arguments"]) == (1, "blocked", None)
        assert decision["forModel"] == REFUSED
        assert cards.presented == []
        # The person sees one line saying a rule of theirs stopped it.
        assert [text for _, text in cards.glances] == ["Refused pay_invoice: amount is over 5,000"]

        # The agent tries to slip under: a float a hair over, an exponent, a nested
        # list of payments, all refused; exactly the limit is not over it, so it asks.
        for sneaky in (5000.01, 7e3):
            code, decision = await ask(sock, {"amount": sneaky})
            assert decision["outcome"] == "blocked", sneaky
        # Asking again changes nothing: the same refusal, still no card.
        code, decision = await ask(sock, {"amount": 7000, "payee": "ACME"}, "--call-id", "again")
        assert decision["forModel"] == REFUSED and cards.presented == []

        # Within the limit: asks first as before (the rule only refuses past it).
        pending = asyncio.ensure_future(ask(sock, {"amount": 5000}, "--call-id", "within"))
        await cards.wait_for_cards(1, timeout=30)
        cards.approve("within")
        assert (await pending)[1]["outcome"] == "approved"

        # The log records the refusal as the person's policy, with its line.
        logged = [e for e in notch.service.store.log() if e.outcome == "blocked"]
        assert logged and all(e.decided_by == "policy" for e in logged)


@pytest.mark.asyncio
@pytest.mark.timeout(120)
async def test_refusal_wins_over_asks_first_off_and_clears_with_the_command(
    base: Path, running_notch: Any, pay_manifest: Callable[..., Manifest]
) -> None:
    catalog = _installed(base, pay_manifest(view_title="Pay"))
    book = PolicyBook.in_data_dir(base / "data")
    manifest = catalog.integration(PAY)
    assert manifest is not None
    tool = manifest.tool("pay_invoice")
    assert tool is not None
    book.set_asks_first(manifest, tool, False)
    book.add_refusal(manifest, tool, OverGuard(argument="amount", limit=5000))
    async with running_notch(base, catalog=catalog) as (notch, _cards):
        notch.service.policy = PersonPolicy(book)
        sock = str(notch.server.path)
        _, decision = await ask(sock, {"amount": 12})
        assert decision["outcome"] == "autoApproved"
        _, decision = await ask(sock, {"amount": 9000})
        assert (decision["outcome"], decision["forModel"]) == ("blocked", REFUSED)
        # A "not one of" refusal looks at every item of a list: one outsider refuses.
        book.add_refusal(
            manifest, tool, NotOneOfGuard(argument="recipients", allowed=["sam", "kim"])
        )
        _, decision = await ask(sock, {"amount": 1, "recipients": ["sam", "eve"]})
        assert decision["outcome"] == "blocked"
        assert decision["forModel"] == (
            "The person does not allow pay_invoice when recipients is not one of sam, kim; "
            "nothing ran. Ask them first, or use one of the allowed values (sam, kim)."
        )
        _code, decision = await ask(sock, {"amount": 1, "recipients": ["sam", "kim"]})
        assert decision["outcome"] == "autoApproved"

        done = policy(base, "set", PAY, "pay_invoice", "--refuse", "--clear")
        assert done.returncode == 0, done.stderr
        book.reload()
        _code, decision = await ask(sock, {"amount": 9000})
        assert decision["outcome"] == "autoApproved"


def test_the_command_refuses_a_threshold_without_refuse_and_a_bad_argument(
    base: Path, pay_manifest: Callable[..., Manifest], capsys: pytest.CaptureFixture[str]
) -> None:
    _installed(base, pay_manifest(view_title="Pay"))
    set_pay = ("set", PAY, "pay_invoice")
    done = policy_here(base, capsys, *set_pay, "--block", "--over", "amount", "5")
    assert done.returncode == 2 and "go with --refuse" in done.stderr
    done = policy_here(base, capsys, *set_pay, "--refuse", "--over", "amont", "5")
    assert done.returncode == 2 and "did you mean 'amount'" in done.stderr
    done = policy_here(base, capsys, *set_pay, "--refuse", "--over", "payee", "5")
    assert done.returncode == 2 and "not a number" in done.stderr
    # --refuse alone refuses always (the Block of old).
    done = policy_here(base, capsys, *set_pay, "--refuse")
    assert done.returncode == 0 and "blocked" in done.stdout


def test_a_refusal_for_a_gateway_integration_not_loaded_here(
    base: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (base / "m").mkdir()
    over = ("--refuse", "--over", "amount", "100")
    done = policy_here(base, capsys, "set", "mcp.local.bank", "pay", *over)
    assert done.returncode == 0, done.stderr
    book = PolicyBook.in_data_dir(base / "data")
    stored = book.stored("mcp.local.bank", "pay")
    assert stored is not None and stored.refusals == [OverGuard(argument="amount", limit=100)]
