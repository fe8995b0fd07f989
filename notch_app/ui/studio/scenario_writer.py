"""Save as scenario: the card as the author left it, written as `scenarios/<name>.json`
in the format `notch test` reads (notch_app/card/scenario.py), so it passes as written.

The scenario proposes the arguments the card was opened with, `set`s each of the author's
edits through the real widgets (in the order made), checks the confirm gate, presses
confirm or cancel and, when approved, names the exact final arguments. Nothing here
imports Qt.
"""

from __future__ import annotations

import copy
import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final, Literal

from notch_app.card.paths import MISSING
from notch_app.card.scenario import Scenario
from notch_app.card.state import CardState

Outcome = Literal["approved", "declined"]
MAX_NAME_CHARS: Final = 80
_NOT_IN_NAME: Final = re.compile(r"[^a-z0-9]+")


class ScenarioNotSaved(Exception):
    """The scenario cannot be written; the message names the reason and the fix."""


def scenario_file_name(name: str) -> str:
    """`Approve with an edit!` → `approve-with-an-edit`: lower-case letters, digits and
    dashes only, so a name can never leave the scenarios folder. Raises ScenarioNotSaved
    for a name with none of those."""
    slug = _NOT_IN_NAME.sub("-", name.strip().lower()).strip("-")[:MAX_NAME_CHARS].strip("-")
    if not slug:
        raise ScenarioNotSaved(
            "give the scenario a name with letters or digits (it becomes scenarios/NAME.json)"
        )
    return slug


def scenario_document(
    *,
    name: str,
    manifest: str,
    tool: str,
    state: CardState,
    outcome: Outcome,
) -> dict[str, Any]:
    """The scenario for the card in `state`: its proposal, the author's edits (each a
    `set` through the real widget), the gate, the press and the outcome. `manifest` is the
    manifest's path relative to the scenarios folder. Raises ScenarioNotSaved when the
    outcome cannot happen (approved while confirm is closed)."""
    if outcome == "approved" and not state.confirm_enabled:
        why = "; ".join(state.blockers()) or "confirm is closed"
        raise ScenarioNotSaved(
            f"confirm is closed ({why}), so this card cannot be approved: fix the card or "
            "save it as declined"
        )
    edits: dict[str, Any] = {}
    for path in state.edited_paths():
        value = state.value(path)
        edits[path] = "" if value is MISSING else value  # a cleared field is typed empty
    steps: list[dict[str, Any]] = []
    if edits:
        steps.append({"set": edits})
    steps.append({"expect": {"confirmEnabled": state.confirm_enabled}})
    steps.append({"press": "confirm" if outcome == "approved" else "cancel"})
    document: dict[str, Any] = {
        "name": name.strip()[:200] or tool,
        "manifest": manifest,
        "tool": tool,
        "arguments": copy.deepcopy(state.proposed),
        "steps": steps,
        "outcome": outcome,
    }
    if outcome == "approved":
        document["finalArguments"] = state.final_arguments()
    Scenario.model_validate(document)  # what notch test reads: a slip here is Notch's bug
    return document


def write_scenario(folder: Path, name: str, document: Mapping[str, Any]) -> Path:
    """Write `document` as `folder/scenarios/<file name of name>.json` and return the path.
    Never overwrites a file and never follows a link. Raises ScenarioNotSaved (the
    reason and the fix) when the file exists or cannot be written."""
    place = folder / "scenarios"
    if place.is_symlink():
        raise ScenarioNotSaved(
            f"{place} is a link; scenarios are written only into the integration's own "
            "scenarios folder: replace the link with a folder"
        )
    try:
        place.mkdir(exist_ok=True)
    except OSError as exc:
        raise ScenarioNotSaved(f"cannot make {place}: {exc.strerror or exc}") from exc
    target = place / f"{scenario_file_name(name)}.json"
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(target, flags, 0o644)
    except FileExistsError as exc:
        raise ScenarioNotSaved(
            f"{target.relative_to(folder)} already exists; choose another name (or delete "
            "that file first)"
        ) from exc
    except OSError as exc:
        raise ScenarioNotSaved(f"cannot write {target}: {exc.strerror or exc}") from exc
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
    return target
