"""The integration manifest (VoiceOS-compatible) as frozen pydantic models.

`schemas/manifest.schema.json` is generated from these models (`notch schema`).
Manifests written for that ecosystem load here unchanged, so the two outer shapes
(`Manifest`, `Tool`) keep keys they do not know (reported as warnings, with the nearest
known key); every inner shape is closed.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, StringConstraints, model_validator
from pydantic.alias_generators import to_camel

from notch_app.manifest import limits
from notch_app.manifest.model.view import ConfirmationView

Name = Annotated[
    str,
    StringConstraints(
        min_length=1, max_length=limits.MAX_NAME_CHARS, pattern=r"^[A-Za-z][A-Za-z0-9_.-]*$"
    ),
]
Label = Annotated[str, StringConstraints(min_length=1, max_length=limits.MAX_LABEL_CHARS)]
Text = Annotated[str, StringConstraints(max_length=limits.MAX_TEXT_CHARS)]
Url = Annotated[str, StringConstraints(min_length=1, max_length=limits.MAX_URL_CHARS)]

REVERSE_DNS = limits.REVERSE_DNS


class _Closed(BaseModel):
    model_config = ConfigDict(
        extra="forbid", frozen=True, alias_generator=to_camel, populate_by_name=True
    )


class _Open(BaseModel):
    model_config = ConfigDict(
        extra="allow", frozen=True, alias_generator=to_camel, populate_by_name=True
    )


class Publisher(_Closed):
    id: Annotated[str, StringConstraints(min_length=1, max_length=limits.MAX_NAME_CHARS)]
    name: Label
    url: Url | None = None


class LocalMcpRuntime(_Closed):
    """An MCP server started on this machine."""

    kind: Literal["local-mcp"]
    command: Annotated[str, StringConstraints(min_length=1, max_length=limits.MAX_URL_CHARS)]
    args: list[Annotated[str, StringConstraints(max_length=limits.MAX_URL_CHARS)]] = Field(
        default_factory=list, max_length=256
    )
    env: dict[str, Annotated[str, StringConstraints(max_length=limits.MAX_URL_CHARS)]] = Field(
        default_factory=dict
    )
    cwd: Url | None = None


class RemoteMcpRuntime(_Closed):
    """An MCP server reached over the network."""

    kind: Literal["remote-mcp"]
    url: Url
    headers: dict[str, Annotated[str, StringConstraints(max_length=limits.MAX_URL_CHARS)]] = Field(
        default_factory=dict
    )


Runtime = Annotated[LocalMcpRuntime | RemoteMcpRuntime, Field(discriminator="kind")]


class AuthField(_Closed):
    key: Name
    label: Label
    secret: bool = False
    placeholder: Label | None = None
    required: bool = False
    description: Text | None = None


class ApiKeyAuth(_Closed):
    kind: Literal["apiKey"]
    fields: list[AuthField] = Field(min_length=1, max_length=32)


class NoAuth(_Closed):
    kind: Literal["none"]


Auth = Annotated[ApiKeyAuth | NoAuth, Field(discriminator="kind")]


class PreferenceOption(_Closed):
    label: Label
    value: Annotated[str, StringConstraints(max_length=limits.MAX_LABEL_CHARS)]


class Preference(_Closed):
    """A setting the person chooses for the integration; its server reads it from the
    environment variable named `name`."""

    name: Name
    title: Label
    description: Text | None = None
    type: Literal["text", "select", "toggle", "number"]
    default: (
        Annotated[str, StringConstraints(max_length=limits.MAX_TEXT_CHARS)]
        | bool
        | int
        | float
        | None
    ) = None
    options: list[PreferenceOption | Annotated[str, StringConstraints(max_length=500)]] | None = (
        Field(default=None, max_length=limits.MAX_OPTIONS)
    )
    required: bool = False
    placeholder: Label | None = None


class NetworkPermission(_Closed):
    """Hosts the integration talks to; remote images on cards load only from these."""

    kind: Literal["network"]
    domains: list[Annotated[str, StringConstraints(min_length=1, max_length=253)]] = Field(
        min_length=1, max_length=256, examples=[["api.elevenlabs.io", "*.example.com"]]
    )


class BackgroundPermission(_Closed):
    kind: Literal["background"]


class NotifyPermission(_Closed):
    kind: Literal["notify"]


Permission = Annotated[
    NetworkPermission | BackgroundPermission | NotifyPermission, Field(discriminator="kind")
]


class ToolAnnotations(_Open):
    """MCP tool annotations; where present they decide whether a tool acts."""

    title: Label | None = None
    read_only_hint: bool | None = None
    destructive_hint: bool | None = None
    idempotent_hint: bool | None = None
    open_world_hint: bool | None = None


class Execution(_Closed):
    mode: Literal["foreground", "background"] = "foreground"
    estimated_duration_ms: int | None = Field(default=None, ge=0, le=86_400_000)


class Tool(_Open):
    """One tool the agent can call; acting tools carry a `confirmation` view."""

    name: Name = Field(examples=["send_email", "generate_speech"])
    title: Label | None = None
    description: Text = Field(default="", description="Shown to the model and in Settings.")
    input_schema: dict[str, Any] = Field(
        description="A JSON Schema object describing the arguments, as in MCP.",
        examples=[{"type": "object", "properties": {"text": {"type": "string"}}}],
    )
    annotations: ToolAnnotations | None = None
    execution: Execution | None = None
    confirmation: ConfirmationView | None = Field(
        default=None,
        description="The card shown before this tool runs. Required for acting tools, "
        "forbidden for read-only ones.",
    )

    _language: str | None = PrivateAttr(default=None)
    """The language of its manifest's words (`Manifest.language`), set by the manifest."""

    @property
    def display_title(self) -> str:
        return self.title or (self.annotations.title if self.annotations else None) or self.name

    @property
    def language(self) -> str | None:
        """The language its manifest says its words are written in (None: not said)."""
        return self._language


class Manifest(_Open):
    """An integration: who publishes it, how it runs, and the tools it offers."""

    model_config = ConfigDict(
        extra="allow",
        frozen=True,
        alias_generator=to_camel,
        populate_by_name=True,
        title="Notch integration manifest",
    )

    schema_: str | None = Field(default=None, alias="$schema")
    schema_version: Literal[1] = Field(description="Manifest format version; 1.")
    id: Annotated[str, StringConstraints(max_length=limits.MAX_NAME_CHARS, pattern=REVERSE_DNS)] = (
        Field(description="Reverse-DNS id, unique per integration.", examples=["io.elevenlabs"])
    )
    version: Annotated[str, StringConstraints(min_length=1, max_length=64)] = Field(
        examples=["1.2.0"]
    )
    name: Label
    summary: Text | None = None
    description: Text | None = Field(
        default=None, description="A longer description, shown on the integration's page."
    )
    categories: list[Annotated[str, StringConstraints(min_length=1, max_length=64)]] = Field(
        default_factory=list, max_length=16, examples=[["Productivity"]]
    )
    icon: Annotated[str, StringConstraints(max_length=limits.MAX_IMAGE_SRC_CHARS)] | None = Field(
        default=None,
        description="A path inside the integration folder, a data: URI, or a single emoji.",
    )
    publisher: Publisher | None = None
    runtime: Runtime | None = None
    auth: Auth | None = None
    preferences: list[Preference] = Field(default_factory=list, max_length=64)
    permissions: list[Permission] = Field(default_factory=list, max_length=64)
    tools: list[Tool] = Field(max_length=limits.MAX_TOOLS)
    language: (
        Annotated[str, StringConstraints(pattern=r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$")] | None
    ) = Field(
        default=None,
        description="The language the manifest's words are written in, as a BCP 47 tag "
        '("es", "de-CH"). The read-back Notch generates follows it (en, es, de, fr; '
        "others read back in English). Absent: English.",
        examples=["es"],
    )

    @model_validator(mode="after")
    def _tools_know_the_language(self) -> Manifest:
        # A tool is handed around alone (cards, read-backs): it carries its words' language.
        for tool in self.tools:
            tool._language = self.language
        return self

    def tool(self, name: str) -> Tool | None:
        for t in self.tools:
            if t.name == name:
                return t
        return None

    @property
    def auth_fields(self) -> tuple[AuthField, ...]:
        """The fields the person fills in for `auth` (none without apiKey auth)."""
        return tuple(self.auth.fields) if isinstance(self.auth, ApiKeyAuth) else ()

    @property
    def network_domains(self) -> tuple[str, ...]:
        out: list[str] = []
        for p in self.permissions:
            if isinstance(p, NetworkPermission):
                out.extend(p.domains)
        return tuple(out)
