"""Keeping secrets out of the decision log.

Which values are secret is the tool's facts' one rule (`manifest/facts/tool_facts.py`: a
passwordField, `format: password`, `writeOnly`, a secret-sounding name — through `$ref`,
array items and combinators). Nothing on disk holds one: the store keeps `REDACTED` in
its place (and the paths it withheld), the log shows `REDACTED`; only the live decision
sent to the asking executor carries the value.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Final

from notch_app.manifest.paths import MISSING, PathError, delete_path, get_path, set_path

if TYPE_CHECKING:  # the facts and the model load pydantic and jsonschema: loaded on use,
    # so `notch log` and the store's readers start without them
    from notch_app.manifest.facts import ToolFacts
    from notch_app.manifest.model import Tool
    from notch_app.runtime.catalog import Catalog

REDACTED: Final = "•••••"


def secret_paths(tool: Tool) -> frozenset[str]:
    """The tool's secret argument paths as declared (a list's path stands for its
    elements): `tool_facts(tool).secrets`. Match a path of a call against them with
    `tool_facts(tool).is_secret(path)`, or find a call's own with `.secrets_in(args)`."""
    from notch_app.manifest.facts import tool_facts

    return tool_facts(tool).secrets


def redact(arguments: Mapping[str, Any], facts: ToolFacts) -> dict[str, Any]:
    """A copy of `arguments` with every secret value of the tool (`facts.secrets_in`)
    replaced by REDACTED. Absent values stay absent. Never modifies `arguments`."""
    return facts.masked(arguments, REDACTED)


def redact_paths(arguments: Mapping[str, Any], paths: Iterable[str]) -> dict[str, Any]:
    """A copy of `arguments` with the value at each path of `paths` (as a call spells
    them: `attendees.0.pin`) replaced by REDACTED; absent ones stay absent."""
    out = dict(arguments)
    for path in paths:
        if get_path(out, path) is not MISSING:
            out = set_path(out, path, REDACTED)
    return out


def without(arguments: Mapping[str, Any], paths: Iterable[str]) -> dict[str, Any]:
    """A copy of `arguments` with the values at `paths` (as a call spells them) removed
    (absent, to be asked for again). Never modifies `arguments`."""
    out = dict(arguments)
    # The last element of a list first, so removing one does not move the next one's index.
    for path in sorted(paths, key=_index_order, reverse=True):
        with contextlib.suppress(PathError):
            out = delete_path(out, path)
    return out


def _index_order(path: str) -> list[tuple[int, int, str]]:
    return [(0, int(s), "") if s.isdigit() else (1, 0, s) for s in path.split(".")]


def facts_in(catalog: Catalog, integration_id: str, tool_name: str) -> ToolFacts | None:
    """The facts of a tool in `catalog`; None when it is not installed there."""
    from notch_app.manifest.facts import tool_facts

    tool = catalog.tool(integration_id, tool_name)
    return None if tool is None else tool_facts(tool)
