"""Building tools with a given confirmation view, for card tests."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from pathlib import Path
from typing import Any

from notch_app.manifest.model import Tool
from notch_app.ui.card_view import CardView


def make_tool(
    root: dict[str, Any], properties: dict[str, Any], required: list[str] | None = None
) -> Tool:
    return Tool.model_validate(
        {
            "name": "do_thing",
            "inputSchema": {
                "type": "object",
                "properties": properties,
                "required": required or [],
            },
            "confirmation": {"schemaVersion": 1, "root": root},
        }
    )


def card(
    children: list[dict[str, Any]],
    properties: dict[str, Any],
    arguments: dict[str, Any],
    *,
    required: list[str] | None = None,
    confirm_label: str = "Do it",
    base_dir: Path | None = None,
    network_domains: tuple[str, ...] = (),
    theme: str = "dark",
) -> CardView:
    root = {
        "type": "card",
        "title": "Test card",
        "children": children,
        "footer": [
            {
                "type": "actions",
                "items": [
                    {"label": "Cancel", "role": "cancel"},
                    {"label": confirm_label, "role": "confirm"},
                ],
            }
        ],
    }
    view = CardView(
        make_tool(root, properties, required),
        arguments,
        base_dir=base_dir,
        network_domains=network_domains,
        theme=theme,
    )
    return view


class Decisions(list[tuple[bool, dict[str, Any], list[str]]]):
    def record(self, ok: bool, final: dict[str, Any], edited: list[str]) -> None:
        self.append((ok, final, edited))


def watch(view: CardView) -> Decisions:
    got = Decisions()
    view.decided.connect(got.record)
    return got
