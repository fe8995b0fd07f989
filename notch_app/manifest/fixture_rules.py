"""Preview fixtures (`preview.json`) checked against the manifest beside them.

Each fixture names a tool of the manifest and holds sample arguments that must validate
against that tool's inputSchema, so `notch render` and `notch test` draw real cards.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from notch_app.manifest.limits import MAX_GLANCE_BLOCKS
from notch_app.manifest.model import PreviewFixtures, Tool
from notch_app.manifest.paths import join_pointer
from notch_app.manifest.reading import Problem, SourceDocument, quote
from notch_app.manifest.schema import argument_problems, surely_valid
from notch_app.manifest.structure import did_you_mean, structure_problems


def fixture_problems(
    doc: SourceDocument, tool_names: list[str], checked: Mapping[str, Tool]
) -> tuple[PreviewFixtures | None, list[Problem]]:
    """The preview fixture file in `doc` against a manifest's tools: `tool_names` as
    written, `checked` the well-formed ones with a valid inputSchema. Never raises."""
    data = doc.data
    if not isinstance(data, dict):
        return None, [
            doc.problem(
                "",
                "schema-structure",
                'a preview fixture file is a JSON object {"schemaVersion": 1, "tools": '
                "{...}}; wrap the content in { }",
            )
        ]
    problems: list[Problem] = []
    fixtures: PreviewFixtures | None = None
    try:
        fixtures = PreviewFixtures.model_validate(data, strict=True)
    except ValidationError as exc:
        problems.extend(structure_problems(doc, exc, PreviewFixtures, data))
    tools = data.get("tools")
    if not isinstance(tools, dict):
        return fixtures, problems
    names = tool_names
    for name, entry in tools.items():
        pointer = join_pointer("/tools", name)
        if name not in names:
            problems.append(
                doc.problem(
                    pointer,
                    "fixture-unknown-tool",
                    f"the manifest has no tool {quote(name)}{did_you_mean(name, names)}; "
                    f"fixtures can name: {', '.join(names) or 'no tools'}",
                    key=True,
                )
            )
            continue
        if isinstance(entry, dict):
            problems.extend(glance_problems(doc, pointer, entry))
        tool = checked.get(name)
        args = entry.get("args") if isinstance(entry, dict) else None
        if tool is None or not isinstance(args, dict):
            continue
        if surely_valid(tool, args):
            continue  # decided without jsonschema: an idle Notch never loads it (~4 MiB)
        from referencing.exceptions import Unresolvable

        try:
            found = argument_problems(tool, args)
        except (Unresolvable, re.error, RecursionError, ValueError) as exc:
            # The inputSchema passed its checks but cannot be applied; say so, once.
            problems.append(
                doc.problem(
                    pointer + "/args",
                    "fixture-args-invalid",
                    f"these sample arguments cannot be checked: the inputSchema of {name!r} "
                    f"fails when applied ({type(exc).__name__}); fix the inputSchema",
                )
            )
            continue
        for ap in found:
            problems.append(
                doc.problem(
                    pointer + "/args" + ap.pointer,
                    "fixture-args-invalid",
                    f"sample argument {ap.path or 'object'!r} {ap.message} (per the inputSchema of "
                    f"{name!r}); change the fixture to a value the tool accepts",
                )
            )
    return fixtures, problems


GLANCE_COUNT = "fixture-glance-count"
GLANCE_DROPPED = "glance-block-dropped"


def glance_problems(doc: SourceDocument, pointer: str, entry: dict[str, Any]) -> list[Problem]:
    """A fixture tool entry's `expectedGlanceBlocks` (0..3, since more never show) and, when
    the entry carries a sample `result`, each of its glance blocks that would be dropped
    (warnings) and a shown count that differs from the expected one. Never raises."""
    if "expectedGlanceBlocks" not in entry and "result" not in entry:
        return []  # most fixtures: the glance code is not loaded for them
    problems: list[Problem] = []
    expected = entry.get("expectedGlanceBlocks")
    if isinstance(expected, bool) or not isinstance(expected, int):
        expected = None  # absent, or a shape error the model already reports
    elif expected > MAX_GLANCE_BLOCKS:
        problems.append(
            doc.problem(
                pointer + "/expectedGlanceBlocks",
                GLANCE_COUNT,
                f"expectedGlanceBlocks is {expected}, but a glance shows at most "
                f"{MAX_GLANCE_BLOCKS} blocks; expect 0 to {MAX_GLANCE_BLOCKS}",
            )
        )
        expected = None
    result = entry.get("result")
    if not isinstance(result, dict):
        return problems  # a count alone: the glance models are not loaded for it
    from notch_app.manifest.glance import GLANCE_KEY, dropped_pointer, find_glance, read_glance

    source = find_glance(result)
    base = pointer + "/result"
    if source is None:
        if expected:
            problems.append(
                doc.problem(
                    pointer + "/expectedGlanceBlocks",
                    GLANCE_COUNT,
                    f"expectedGlanceBlocks is {expected}, but the sample result carries no "
                    f"{GLANCE_KEY}; add the glance to the result at its top level, or expect 0",
                )
            )
        return problems
    reading = read_glance(source.value)
    for drop in reading.dropped:
        what = f"block {drop.index} ({drop.kind})" if drop.index >= 0 else "the glance"
        problems.append(
            doc.problem(
                base + dropped_pointer(source, drop),
                GLANCE_DROPPED,
                f"{what} of the sample result would not show: {drop.reason}",
                severity="warning",
            )
        )
    shown = len(reading.blocks)
    if expected is not None and shown != expected:
        kinds = ", ".join(block.type for block in reading.blocks) or "none"
        problems.append(
            doc.problem(
                pointer + "/expectedGlanceBlocks",
                GLANCE_COUNT,
                f"expectedGlanceBlocks is {expected}, but {shown} block"
                f"{'s' * (shown != 1)} of the sample result would show ({kinds}); fix the "
                "result's glance or the expected count",
            )
        )
    return problems


__all__ = ["GLANCE_COUNT", "GLANCE_DROPPED", "fixture_problems", "glance_problems"]
