"""Preview fixtures: sample arguments per tool, so every card can be previewed and tested.

A fixture file (`preview.json` beside `manifest.json`, or VoiceOS's
`voiceos.integration.preview.json` beside `voiceos.integration.json`) is
`{schemaVersion: 1, description?, tools: {TOOL: {args: {...}, ...}}}`. Each tool entry may
carry other keys for other tools in the ecosystem; Notch reads `args`, and
`expectedGlanceBlocks` with an optional sample `result` (see `fixture_rules.py`). `schemas/preview.schema.json` is generated from these models.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints
from pydantic.alias_generators import to_camel

from notch_app.manifest import limits

ToolName = Annotated[str, StringConstraints(min_length=1, max_length=limits.MAX_NAME_CHARS)]


class ToolFixture(BaseModel):
    """Sample arguments for one tool; other keys are kept for other tools to read."""

    model_config = ConfigDict(extra="allow", frozen=True)

    args: dict[str, Any] = Field(
        description="Arguments as the agent would propose them; they must validate against "
        "the tool's inputSchema.",
        examples=[{"text": "VoiceOS turns your voice into action.", "voice": "rachel"}],
    )
    expected_glance_blocks: int | None = Field(
        default=None,
        alias="expectedGlanceBlocks",
        ge=0,
        le=64,
        description="How many glance blocks the tool's result should show (VoiceOS "
        "fixtures): 0 to 3, as a glance shows at most 3. With `result`, `notch validate` "
        "reads the sample result's glance and checks the count.",
    )
    result: dict[str, Any] | None = Field(
        default=None,
        description="A sample of what the tool returns, as it returns it (optional; VoiceOS "
        'fixtures carry none): `{..., "_voiceos_glance": {"blocks": [...]}}`, or an '
        "MCP CallToolResult holding that in structuredContent or a JSON text item. "
        "`notch validate` says which of its glance blocks would be dropped and why.",
        examples=[
            {
                "ok": True,
                "_voiceos_glance": {
                    "blocks": [
                        {"type": "header", "title": "Sent", "icon": "mail", "trailing": "now"},
                        {"type": "keyValue", "pairs": [["To", "ana@example.com"]]},
                    ]
                },
            }
        ],
    )


class PreviewFixtures(BaseModel):
    """Sample tool calls for an integration, keyed by tool name."""

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        alias_generator=to_camel,
        populate_by_name=True,
        title="Notch preview fixtures",
    )

    schema_: str | None = Field(default=None, alias="$schema")
    schema_version: Literal[1] = Field(description="Fixture format version; 1.")
    description: Annotated[str, StringConstraints(max_length=limits.MAX_TEXT_CHARS)] | None = None
    tools: dict[ToolName, ToolFixture] = Field(
        description="Tool name → sample call. Every name must be a tool of the manifest.",
        examples=[{"generate_speech": {"args": {"text": "Hello", "voice": "rachel"}}}],
    )

    def args_for(self, tool_name: str) -> dict[str, Any] | None:
        """The sample arguments for `tool_name`, or None when there are none."""
        fixture = self.tools.get(tool_name)
        return dict(fixture.args) if fixture is not None else None
