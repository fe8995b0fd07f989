"""The tools the gateway offers, and which of them ask the person first.

For an integration folder the manifest is the whole truth: the client sees the manifest's
tools (titles, descriptions, schemas, annotations), and what the wrapped server says
about them in its own `tools/list` never changes whether they ask. For a bare server
there is nothing else to go on: its tools are listed as it lists them, and every tool
not marked `readOnlyHint: true` asks (with a card Notch generates). Both go by the one
rule, `manifest.acting.acting_verdict`.

Tools are plain MCP JSON here (camelCase keys, as `tools/list` carries them): the
gateway relays JSON-RPC lines and builds no SDK objects.

Before the folder is checked (`notch mcp` relays while it checks: `fronts`), its tools are
read from the manifest as plain JSON (`from_manifest_json`): the same rule decides them
from the same words, and anything a plain reading could take otherwise than the check
(a hint that is not true or false, a snake_case key, an odd name) leaves that tool to wait
for the check.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from notch_app.manifest.acting import acting_verdict, described_for_model

if TYPE_CHECKING:  # notch mcp relays before the manifest's models are imported
    from notch_app.manifest.facts import ToolFacts
    from notch_app.manifest.model import Manifest, Tool

log = logging.getLogger(__name__)

_PLAIN_NAME: Final = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,127}")
"""A tool name the check accepts (`manifest.model.Name`)."""
_HINTS: Final = frozenset({"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"})
_EXECUTION_KEYS: Final = frozenset({"mode", "estimatedDurationMs"})


@dataclass(frozen=True, slots=True)
class GatewayTool:
    """One tool as the client sees it, and how a call to it is handled."""

    listed: dict[str, Any]
    """What `tools/list` answers for it (MCP JSON)."""
    reads: bool
    """Forwarded at once, without asking: the one rule says it does not act."""
    acts: bool
    """It must be confirmed on a card, so a `notRequired` answer from Notch (it has no
    card for the tool) is refused rather than run. Always `not reads`."""
    background: bool = False
    """The manifest runs it in the background (`execution.mode`): listed in the side
    notch while it runs."""
    tool: Tool | None = None
    """The manifest's own tool (None for a bare server's): its card counts in `facts()`."""

    def facts(self) -> ToolFacts:
        """What Notch knows of the tool (`manifest/facts/tool_facts.py`: which arguments are
        secret, …), made when an acting call's answer needs it: `notch mcp` relays reads
        before the manifest's models load."""
        from notch_app.manifest.facts import listed_tool_facts, tool_facts

        if self.tool is not None:
            return tool_facts(self.tool)
        return listed_tool_facts(self.listed, bare_server=True)

    @property
    def name(self) -> str:
        return str(self.listed.get("name", ""))

    @property
    def title(self) -> str:
        annotations = self.listed.get("annotations")
        title = self.listed.get("title") or (
            annotations.get("title") if isinstance(annotations, dict) else None
        )
        return str(title or self.name)


def _listed(tool: Tool, asks: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"name": tool.name}
    if tool.title:
        out["title"] = tool.title
    description = described_for_model(tool.description or None, asks)
    if description:
        out["description"] = description
    out["inputSchema"] = dict(tool.input_schema)
    if tool.annotations is not None:
        out["annotations"] = tool.annotations.model_dump(by_alias=True, exclude_none=True)
    return out


def from_manifest(manifest: Manifest) -> dict[str, GatewayTool]:
    """The manifest's tools, by name. A tool is forwarded without asking when the one
    rule (the tool's facts' `acting`) says it does not act: no card, and neither its
    annotations nor its name's verbs say it acts (`phone_status` passes;
    `slack_send_message` asks)."""
    from notch_app.manifest.facts import tool_facts  # a manifest's models are loaded

    out: dict[str, GatewayTool] = {}
    for tool in manifest.tools:
        reads = not tool_facts(tool).acting.asks
        out[tool.name] = GatewayTool(
            _listed(tool, not reads),
            reads,
            not reads,
            background=tool.execution is not None and tool.execution.mode == "background",
            tool=tool,
        )
    return out


def from_server(
    tools: Iterable[Mapping[str, Any]], once_acting: Iterable[str] = ()
) -> dict[str, GatewayTool]:
    """A bare server's tools (MCP JSON, as its `tools/list` sent them), by name: read-only
    only when it says `readOnlyHint: true` (and not `destructiveHint: true`), and its
    name or description does not say it deletes, sends, pays or writes (`acting_verdict`,
    as Notch decides for the same tools); every other tool asks. A tool named in
    `once_acting` asks whatever it says now: a server cannot talk a tool it listed as
    acting into a read by listing it again. A hint not believed is logged with why.
    (`acting_verdict` itself, the rule ToolFacts reads: the relay decides these before
    the manifest's models load.)"""
    out: dict[str, GatewayTool] = {}
    sticky = set(once_acting)
    for tool in tools:
        name = tool.get("name")
        if not isinstance(name, str):
            continue
        verdict = acting_verdict(tool, has_card=False, bare_server=True)
        reads = not verdict.asks and name not in sticky
        if verdict.mixed:
            log.warning("%s: %s; it asks first", name, verdict.why)
        elif verdict.asks is False and name in sticky:
            log.warning("%s: it now says it only reads, but it was listed as acting; it asks "
                        "first", name)  # fmt: skip
        listed = dict(tool)
        description = tool.get("description")
        told = described_for_model(description if isinstance(description, str) else None, not reads)
        if told is not None:
            listed["description"] = told
        out[name] = GatewayTool(listed, reads, not reads)
    return out


def from_manifest_json(document: Mapping[str, Any]) -> tuple[dict[str, GatewayTool], bool]:
    """The tools of a manifest read as plain JSON (the folder not checked yet), by name,
    decided and listed as `from_manifest` decides and lists them once it is; and whether
    every tool could be read so (then `tools/list` can be answered before the check).
    A tool whose JSON the check might read otherwise (a hint that is not true or false, a
    snake_case key the models also take, a name or field the check refuses, a name given
    twice) is left out: a call to it waits for the check. Never raises."""
    tools = document.get("tools")
    if not isinstance(tools, list):
        return {}, False
    out: dict[str, GatewayTool] = {}
    complete = True
    seen: set[str] = set()
    for raw in tools:
        name = raw.get("name") if isinstance(raw, dict) else None
        if isinstance(name, str) and name in seen:
            out.pop(name, None)
            complete = False
            continue
        if isinstance(name, str):
            seen.add(name)
        tool = _plain_tool(raw)
        if tool is None:
            complete = False
        else:
            out[tool.name] = tool
    return out, complete


def _plain_tool(raw: Any) -> GatewayTool | None:
    """One manifest tool from its JSON, or None when the check might read it otherwise."""
    if not isinstance(raw, dict) or "input_schema" in raw:
        return None
    name, title, description = raw.get("name"), raw.get("title"), raw.get("description", "")
    schema, annotations, execution = (
        raw.get("inputSchema"),
        raw.get("annotations"),
        raw.get("execution"),
    )
    if not isinstance(name, str) or not _PLAIN_NAME.fullmatch(name):
        return None
    if not isinstance(description, str) or not isinstance(schema, dict):
        return None
    if title is not None and not (isinstance(title, str) and title):
        return None
    if annotations is not None and not _plain_annotations(annotations):
        return None
    background = False
    if execution is not None:
        if not isinstance(execution, dict) or not set(execution) <= _EXECUTION_KEYS:
            return None
        mode = execution.get("mode", "foreground")
        if mode not in ("foreground", "background"):
            return None
        background = mode == "background"
    reads = not acting_verdict(raw, has_card=raw.get("confirmation") is not None).asks
    listed: dict[str, Any] = {"name": name}
    if title:
        listed["title"] = title
    told = described_for_model(description or None, not reads)
    if told:
        listed["description"] = told
    listed["inputSchema"] = dict(schema)
    if annotations is not None:
        listed["annotations"] = dict(annotations)
    return GatewayTool(listed, reads, not reads, background=background)


def _plain_annotations(annotations: Any) -> bool:
    if not isinstance(annotations, dict):
        return False
    for key, value in annotations.items():
        if key == "title":
            if not (isinstance(value, str) and value):
                return False
        elif key not in _HINTS or not isinstance(value, bool):
            return False
    return True
