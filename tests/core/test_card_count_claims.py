"""Counts a card states against the lists it acts on (issue 18): "Delete 1 file" over
nine paths is told; a true count, a count of something else, or a bound count is not."""

from __future__ import annotations

from typing import Any

import pytest

from notch_app.card.count_claims import count_disagreements
from notch_app.manifest.model import Tool

SCHEMA = {
    "type": "object",
    "properties": {
        "paths": {"type": "array", "items": {"type": "string"}},
        "days": {"type": "integer"},
    },
}


def _tool(title: str, *children: dict[str, Any]) -> Tool:
    view = {
        "schemaVersion": 1,
        "root": {"type": "card", "title": title, "children": list(children)},
    }
    return Tool.model_validate({"name": "trash", "inputSchema": SCHEMA, "confirmation": view})


LIST = {"type": "chips", "bind": "{{paths}}", "label": "Paths"}


@pytest.mark.parametrize(
    ("title", "children", "paths", "warned"),
    [
        ("Delete 1 file", [LIST], 9, True),
        ("Delete one file", [LIST], 1, False),
        ("Delete three files", [LIST], 2, True),
        ("Delete {{paths.length}} files", [LIST], 9, False),  # bound: always true
        ("Delete files older than 2 days", [LIST], 9, False),  # not the thing listed
        ("Trash", [{"type": "keyValue", "items": [{"label": "1 file", "value": "{{paths}}"}]}],
         4, True),
        ("Trash", [{"type": "text", "text": "Moves 2 files"}, LIST], 5, True),
        ("Trash", [{"type": "text", "text": "Moves 2 files"}, LIST], 2, False),
    ],
)  # fmt: skip
def test_a_count_is_checked_against_the_list_next_to_it(
    title: str, children: list[dict[str, Any]], paths: int, warned: bool
) -> None:
    tool = _tool(title, *children)
    said = count_disagreements(tool, {"paths": [f"/p{n}" for n in range(paths)]})
    assert bool(said) is warned, said
    if warned:
        assert f"holds {paths}" in said[0]


def test_hostile_arguments_never_raise() -> None:
    tool = _tool("Delete 1 file", LIST)
    for arguments in ({}, {"paths": None}, {"paths": "x" * 10_000}, {"paths": {"a": 1}}):
        assert count_disagreements(tool, arguments) == []
