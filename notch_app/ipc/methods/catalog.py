"""What Notch has loaded and what a gateway attaches: integrations.list, gateway.attach, server.info."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints

from notch_app.ipc.methods.wire import Wire


class ToolSummary(Wire):
    name: str
    title: str
    description: str | None
    confirms: bool = Field(description="true when the tool shows a card before it runs.")
    kind: str
    input_schema: dict[str, Any] = Field(
        description="The tool's inputSchema (JSON Schema), for the model's tool definitions."
    )
    annotations: dict[str, Any] | None = Field(
        description="The tool's MCP annotations (readOnlyHint, destructiveHint, …), if any."
    )
    schema_too_long: bool | None = Field(
        default=None,
        description="true when its inputSchema or annotations were over 64 KiB as JSON and "
        "are listed empty (calls are still checked against the real schema).",
    )


class IntegrationSummary(Wire):
    id: str
    name: str
    version: str
    summary: str | None = None
    publisher: str | None = None
    tools: list[ToolSummary]


class IntegrationsResult(Wire):
    integrations: list[IntegrationSummary]


class ServerInfoResult(Wire):
    name: Literal["notch"]
    version: str
    methods: list[str]
    max_message_bytes: int


class AttachParams(Wire):
    """Where a `notch mcp` gateway's cards come from: its integration folder, or a bare
    server's tools (one of the two)."""

    folder: str | None = Field(
        default=None,
        max_length=4096,
        description="The integration folder `notch mcp FOLDER` fronts (absolute path); "
        "Notch loads and checks its manifest itself.",
    )
    name: str | None = Field(
        default=None, max_length=200, description="A bare server's --name (with `tools`)."
    )
    tools: list[dict[str, Any]] | None = Field(
        default=None,
        max_length=256,
        description="A bare server's tools as its `tools/list` gave them; Notch generates "
        "every card from their inputSchemas.",
    )
    command: list[Annotated[str, StringConstraints(max_length=4096)]] | None = Field(
        default=None,
        max_length=256,
        description="A bare server's command line as the gateway starts it (with `name`): "
        'what an "Always allow" is bound to, so another server under the same name asks.',
    )
    cwd: str | None = Field(
        default=None, max_length=4096, description="The folder the bare server runs in."
    )


class AttachedTool(Wire):
    name: str
    confirms: bool = Field(description="Whether calls to it ask the person.")


class AttachResult(Wire):
    integration: str = Field(description="The integration id calls are asked under.")
    attached: Literal["added", "replaced", "same"]
    tools: list[AttachedTool]
    left_out: list[str] = Field(description="Bare-server tools left out, each with why.")
    warnings: list[str] = Field(
        default_factory=list,
        description="What the person is warned about on its cards: a name that claims to be "
        "the system or a vendor, a read-only hint Notch does not believe.",
    )
