"""The tools the gateway offers, and which of them ask the person first.

For an integration folder the manifest is the whole truth: the client sees the manifest's
tools (titles, descriptions, schemas, annotations), and what the wrapped server says
about them in its own `tools/list` never changes whether they ask. For a bare server
there is nothing else to go on: its tools are listed as it lists them, and every tool
not marked `readOnlyHint: true` asks (with a card Notch generates).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import mcp_types as types

from notch_app.manifest.acting import acting_verdict
from notch_app.manifest.model import Manifest, Tool

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class GatewayTool:
    """One tool as the client sees it, and how a call to it is handled."""

    listed: types.Tool
    """What `tools/list` answers for it."""
    reads: bool
    """Forwarded at once, without asking (a read-only tool)."""
    acts: bool
    """Certainly acting: it must be confirmed on a card, so a `notRequired` answer from
    Notch (it has no card for the tool) is refused rather than run. A tool neither
    `reads` nor `acts` (an unknown verb, no hints) is asked about, and runs on whatever
    Notch decides."""
    background: bool = False
    """The manifest runs it in the background (`execution.mode`): listed in the side
    notch while it runs."""

    @property
    def name(self) -> str:
        return self.listed.name

    @property
    def title(self) -> str:
        annotations = self.listed.annotations
        return self.listed.title or (annotations.title if annotations else None) or self.name


def _annotations(tool: Tool) -> types.ToolAnnotations | None:
    if tool.annotations is None:
        return None
    return types.ToolAnnotations.model_validate(
        tool.annotations.model_dump(by_alias=True, exclude_none=True)
    )


def from_manifest(manifest: Manifest) -> dict[str, GatewayTool]:
    """The manifest's tools, by name. A tool is forwarded without asking when the one
    rule (`acting_verdict`) says it does not act: no card, and neither its annotations nor
    its name's verbs say it acts (`phone_status` passes; `slack_send_message` asks)."""
    out: dict[str, GatewayTool] = {}
    for tool in manifest.tools:
        reads = not acting_verdict(tool).asks
        listed = types.Tool(
            name=tool.name,
            title=tool.title,
            description=tool.description or None,
            input_schema=dict(tool.input_schema),
            annotations=_annotations(tool),
        )
        out[tool.name] = GatewayTool(
            listed,
            reads,
            not reads,
            background=tool.execution is not None and tool.execution.mode == "background",
        )
    return out


def from_server(tools: Iterable[types.Tool]) -> dict[str, GatewayTool]:
    """A bare server's tools, by name: read-only only when it says `readOnlyHint: true`
    (and not `destructiveHint: true`), and its name or description does not say it
    deletes, sends, pays or writes (`acting_verdict`, as Notch decides for the same
    tools); every other tool asks. A hint not believed is logged with why."""
    out: dict[str, GatewayTool] = {}
    for tool in tools:
        document = tool_document(tool)
        verdict = acting_verdict(document, has_card=False, bare_server=True)
        reads = not verdict.asks
        if verdict.mixed:
            log.warning("%s: %s; it asks first", tool.name, verdict.why)
        out[tool.name] = GatewayTool(tool, reads, not reads)
    return out


def tool_document(tool: types.Tool) -> dict[str, Any]:
    """A server's tool as the plain MCP JSON `tools/list` carries (camelCase keys)."""
    return tool.model_dump(by_alias=True, exclude_none=True, mode="json")
