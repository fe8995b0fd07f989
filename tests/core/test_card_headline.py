"""The headline: the card's first line states the action with its key facts.

Every bundled card's headline from its preview fixture, as a person reads it; amounts in
the person's locale, times in their zone, paths with `~` and the shared folder once; the
authored headline with bindings; and the agent that tries to make the headline say less
(or other) than what runs: a display name that holds another address, a right-to-left
override, a secret, a `count` that lies, a command with line breaks.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from notch_app.card.headline import MAX_CONFIRM_CHARS, MAX_HEADLINE_CHARS, Headline, headline
from notch_app.card.path_text import folder_and_names
from notch_app.card.person_locale import money_text, person_locale, when_text
from notch_app.card.state import CardState
from notch_app.manifest.model import Tool
from notch_app.manifest.validate import validate_path
from notch_app.runtime.catalog import Catalog

ROOT = Path(__file__).resolve().parents[2]
LONDON = ZoneInfo("Europe/London")
NOW = datetime(2025, 6, 1, 9, 0, tzinfo=LONDON)


def _bundled() -> dict[str, tuple[Tool, dict[str, Any]]]:
    catalog, _problems = Catalog.load([ROOT / "manifests"])
    out: dict[str, tuple[Tool, dict[str, Any]]] = {}
    for integration_id in catalog.ids():
        entry = catalog.entry(integration_id)
        assert entry is not None
        for tool in entry.manifest.tools:
            if tool.confirmation is None:
                continue
            sample = entry.fixtures.tools.get(tool.name) if entry.fixtures else None
            args = dict(sample.args) if sample is not None else {}
            out[f"{integration_id.rsplit('.', 1)[-1]}:{tool.name}"] = (tool, args)
    return out


BUNDLED = _bundled()


def _say(tool: Tool, args: dict[str, Any], **kw: Any) -> Headline:
    final = CardState(tool, args).final_arguments()
    options: dict[str, Any] = {"locale": "en_GB", "now": NOW, "zone": LONDON}
    options["home"] = "/home/maya"
    options.update(kw)
    return headline(tool, final, **options)


EXPECTED = {
    "mail:send_email": ("Send email to sam@example.com and 2 others", "Send to 3 people"),
    "payments:pay_invoice": (
        "Pay €1,250.00 to Studio Nord GmbH · Thu 5 Jun (in 4 days)",
        "Pay €1,250.00",
    ),
    "calendar:book_meeting": (
        "Book Design review: onboarding flow · Tue 3 Jun, 14:00–14:30 (in 2 days)",
        "Book meeting",
    ),
    "files:delete_files": ("Delete 3 files in ~/Downloads", "Delete 3 files"),
    "files:move_file": (
        "Move contract-signed.pdf to ~/Documents/Contracts/2025/acme-contract.pdf",
        "Move file",
    ),
    "claude-code:Bash": ("Run `npm test -- --watch=false` in ~/shop", "Run command"),
    "codex:Bash": ("Run `git push origin main` in ~/shop", "Run command"),
    "claude-code:Edit": ("Edit cart.ts in ~/shop/src", "Save the edit"),
    "claude-code:Write": ("Write NOTES.md in ~/shop", "Write the file"),
    "claude-code:WebFetch": ("Fetch docs.example.com/api/cart", "Fetch web page"),
    "claude-code:Other": ("Use create_issue", "Allow"),
    "elevenlabs:generate_speech": (
        "Say “VoiceOS turns your voice into action.” in Rachel's voice",
        "Generate speech",
    ),
    "music:publish_playlist": (
        "Publish “Morning focus” with 5 tracks",
        "Publish playlist",
    ),
}


@pytest.mark.parametrize("name", sorted(BUNDLED))
def test_every_bundled_card_has_a_plain_headline(name: str) -> None:
    tool, args = BUNDLED[name]
    said = _say(tool, args)
    assert said.text and len(said.text) <= MAX_HEADLINE_CHARS
    assert said.confirm and len(said.confirm) <= MAX_CONFIRM_CHARS
    assert "{{" not in said.text and "<<" not in said.text
    assert said.confirm.lower() not in ("confirm", "ok", "yes", "approve")
    if name in EXPECTED:
        assert (said.text, said.confirm) == EXPECTED[name]


def test_the_headline_follows_the_edited_arguments() -> None:
    tool, args = BUNDLED["mail:send_email"]
    edited = {**args, "to": ["Sam Lee <sam@example.com>"], "cc": []}
    said = _say(tool, edited)
    assert said.text == "Send email to Sam Lee (sam@example.com)"
    assert said.confirm == "Send to Sam Lee (sam@example.com)"[:MAX_CONFIRM_CHARS] or (
        said.confirm == "Send to 1 person"
    )


def test_amounts_read_in_the_persons_locale() -> None:
    tool, args = BUNDLED["payments:pay_invoice"]
    german = _say(tool, args, locale="de_DE").confirm
    assert german.startswith("Pay 1.250,00") and german.endswith("€")
    assert money_text(1250, "EUR", locale="en_US") == "€1,250.00"
    assert money_text("99.5", "usd", locale="en_US") == "$99.50"
    assert money_text(3, "not a currency", locale="en_GB") == "3"
    assert money_text(True, "EUR") is None
    assert money_text(float("nan"), "EUR") is None


def test_times_name_the_zone_when_it_is_not_the_persons() -> None:
    said = when_text("2025-06-03T14:00:00+02:00", minutes=30, locale="en_GB", now=NOW, zone=LONDON)
    assert said == "Tue 3 Jun, 14:00–14:30 UTC+2 (13:00 your time, in 2 days)"
    same = when_text("2025-06-03T14:00:00+01:00", locale="en_GB", now=NOW, zone=LONDON)
    assert same == "Tue 3 Jun, 14:00 (in 2 days)"
    assert when_text("2025-06-02", locale="en_GB", now=NOW, zone=LONDON) == "Mon 2 Jun (tomorrow)"
    next_year = when_text("2026-01-05T09:00", locale="en_GB", now=NOW, zone=LONDON)
    assert next_year is not None and next_year.startswith("Mon, 5 Jan 2026")
    assert when_text("soon", locale="en_GB") is None


def test_fifty_paths_say_their_folder_once() -> None:
    paths = [f"/home/maya/Documents/reports/2024/q{i % 4}/r{i}.pdf" for i in range(50)]
    folder, names = folder_and_names(paths, home="/home/maya")
    assert folder == "~/Documents/reports/2024"
    assert names[0] == "q0/r0.pdf" and len(names) == 50
    tool, args = BUNDLED["files:delete_files"]
    said = _say(tool, {**args, "paths": paths, "count": 3, "folder": "/home/maya/Documents"})
    # The count is the list's, not the `count` argument the agent wrote beside it.
    assert said.text == "Delete 50 files in ~/Documents/reports/2024"
    assert said.confirm == "Delete 50 files"


def test_a_display_name_cannot_show_another_address() -> None:
    tool, args = BUNDLED["mail:send_email"]
    said = _say(tool, {**args, "to": ['"boss@example.com" <attacker@evil.test>'], "cc": []})
    assert "attacker@evil.test" in said.text
    assert "boss@example.com" not in said.text


def test_invisible_characters_are_marked_in_the_headline() -> None:
    tool, args = BUNDLED["files:move_file"]
    said = _say(tool, {**args, "source": "/home/maya/invoice\u202efdp.exe"})
    assert "⟨U+202E⟩" in said.text
    assert "\u202e" not in said.text


def test_a_command_with_line_breaks_stays_one_line() -> None:
    tool, args = BUNDLED["claude-code:Bash"]
    said = _say(tool, {**args, "command": "echo hi\n\n\nrm -rf ~"})
    assert "\n" not in said.text
    assert "rm -rf ~" in said.text


def test_a_long_value_is_cut_not_the_line() -> None:
    tool, args = BUNDLED["payments:pay_invoice"]
    payee = {**args["payee"], "name": "N" * 400}
    said = _say(tool, {**args, "payee": payee})
    assert len(said.text) <= MAX_HEADLINE_CHARS
    assert said.text.startswith("Pay €1,250.00 to NNN")


def test_an_authored_headline_never_shows_a_secret() -> None:
    tool, args = BUNDLED["payments:pay_invoice"]
    view = tool.confirmation
    assert view is not None
    own = view.model_copy(
        update={"headline": "Pay {{amount}} {{currency}} with PIN {{approval_pin}}"}
    )
    sneaky = tool.model_copy(update={"confirmation": own})
    said = _say(sneaky, {**args, "approval_pin": "4711"})
    assert said.authored
    assert "4711" not in said.text
    # The amount's binding already names the currency: not "€1,250.00 EUR".
    assert said.text == "Pay €1,250.00 with PIN ••••••"


def test_a_headline_binding_to_no_argument_fails_validation(tmp_path: Path) -> None:
    source = ROOT / "manifests" / "music"
    folder = tmp_path / "music"
    folder.mkdir()
    for item in source.iterdir():
        if item.is_file():
            (folder / item.name).write_bytes(item.read_bytes())
    text = (folder / "manifest.json").read_text()
    (folder / "manifest.json").write_text(text.replace("{{playlist.name}}", "{{playlist.nme}}"))
    problems = validate_path(folder)
    assert any(
        p.rule == "binding-unknown-argument" and p.pointer.endswith("/confirmation/headline")
        for p in problems
    ), [str(p) for p in problems]


def test_the_desktop_locale_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("LC_ALL", "LC_MONETARY", "LC_TIME", "LANG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")
    assert person_locale() == "en"
    monkeypatch.setenv("LC_MONETARY", "de_DE.UTF-8")
    assert person_locale() == "de_DE"
