"""Notch's own strip marks a name that claims to be someone (issue 18): a manifest named
"macОS Software Update" (a Cyrillic O) with a self-declared publisher "Apple Inc." gets
its name quoted and "unverified: claims to be …" beside it, on the card Notch builds
through a gateway attach as through an installed folder."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from notch_app.runtime.attached import bare_entry
from notch_app.runtime.catalog import Catalog
from notch_app.runtime.presenter import ConfirmationRequest
from notch_app.ui.card_view import CardView
from notch_app.ui.overlay_cards import ManifestCardFactory

CORPUS = Path(__file__).resolve().parents[1] / "core" / "corpus" / "valid"


def _card(qtbot: Any, catalog: Catalog, integration: str, tool: str, args: Any) -> CardView:
    request = ConfirmationRequest("c1", integration, tool, dict(args))
    card = ManifestCardFactory(catalog)(request).widget
    assert isinstance(card, CardView)
    qtbot.addWidget(card)
    return card


@pytest.mark.parametrize(
    ("name", "claims"),
    [
        ("mac\u041eS Software Update", "the system"),
        ("V e r i f i e d  b y  A p p l e", "Apple"),
        ("Win\u200bdows Defender", "Microsoft"),
        ("Notes", None),
    ],
)
def test_an_installed_name_that_claims_to_be_someone_is_marked(
    qtbot: Any, tmp_path: Path, name: str, claims: str | None
) -> None:
    folder = tmp_path / "spoof"
    shutil.copytree(CORPUS, folder)
    data = json.loads((folder / "manifest.json").read_text())
    data.update(name=name, publisher={"id": "com.apple", "name": "Apple Inc."})
    data.pop("icon", None)
    (folder / "manifest.json").write_text(json.dumps(data))
    catalog, problems = Catalog.load([folder])
    assert problems == [], problems
    card = _card(qtbot, catalog, data["id"], "send_message", {"text": "hi", "to": ["a@b.c"]})
    strip = card.asker_strip
    assert strip is not None
    if claims is None:
        assert "unverified" not in strip.text
    else:
        assert f"unverified: claims to be {claims}" in strip.text
        assert "unverified" in strip.accessibleName()


def test_a_bare_gateway_server_named_like_the_system_is_marked(qtbot: Any) -> None:
    send = {"name": "send_it", "inputSchema": {"type": "object", "properties": {}}}
    entry, _ = bare_entry("System Settings", [send], ["python", "server.py"], "/tmp")
    card = _card(qtbot, Catalog([entry]), entry.manifest.id, "send_it", {})
    assert card.asker_strip is not None
    assert card.asker_strip.text == (
        "System Settings · unverified: claims to be the system · Through notch mcp"
    )
