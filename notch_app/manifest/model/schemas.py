"""The published JSON Schemas, generated from the pydantic models (one source of truth).

`notch schema` writes them to `schemas/`; a test asserts the committed files equal what
this module generates, and a corpus test shows jsonschema on these files and the models
accept and reject the same documents.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any, Final

from pydantic import BaseModel

from notch_app.bundled import bundled_folder
from notch_app.manifest.model.fixtures import PreviewFixtures
from notch_app.manifest.model.manifest import Manifest
from notch_app.manifest.model.view import ConfirmationView

DIALECT: Final = "https://json-schema.org/draft/2020-12/schema"
BASE_ID: Final = "https://notch.dev/schemas/"

EXAMPLE_VIEW: Final[dict[str, Any]] = {
    "schemaVersion": 1,
    "root": {
        "type": "card",
        "title": "Generate speech",
        "children": [
            {
                "type": "textField",
                "bind": "{{text}}",
                "label": "Text",
                "multiline": True,
                "required": True,
            },
            {
                "type": "select",
                "bind": "{{voice}}",
                "label": "Voice",
                "options": [
                    {"label": "Rachel", "value": "rachel"},
                    {"label": "Adam", "value": "adam"},
                    {"label": "Bella", "value": "bella"},
                ],
            },
        ],
        "footer": [
            {
                "type": "actions",
                "items": [
                    {"label": "Cancel", "role": "cancel"},
                    {"label": "Generate", "role": "confirm", "color": "accent"},
                ],
            }
        ],
    },
}

EXAMPLE_MANIFEST: Final[dict[str, Any]] = {
    "schemaVersion": 1,
    "id": "io.elevenlabs",
    "version": "1.0.0",
    "name": "ElevenLabs",
    "summary": "Text to speech in natural voices.",
    "publisher": {"id": "elevenlabs", "name": "ElevenLabs"},
    "runtime": {"kind": "remote-mcp", "url": "https://mcp.elevenlabs.io/mcp"},
    "auth": {
        "kind": "apiKey",
        "fields": [{"key": "apiKey", "label": "API key", "secret": True, "required": True}],
    },
    "permissions": [{"kind": "network", "domains": ["api.elevenlabs.io"]}],
    "tools": [
        {
            "name": "generate_speech",
            "title": "Generate speech",
            "description": "Turn text into speech with one of your voices.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "text": {"type": "string"},
                    "voice": {"type": "string", "enum": ["rachel", "adam", "bella"]},
                },
                "required": ["text", "voice"],
            },
            "confirmation": EXAMPLE_VIEW,
        },
        {
            "name": "list_voices",
            "description": "The voices available to this account.",
            "inputSchema": {"type": "object", "properties": {}},
            "annotations": {"readOnlyHint": True},
        },
    ],
}

EXAMPLE_PREVIEW: Final[dict[str, Any]] = {
    "schemaVersion": 1,
    "description": "Sample calls for previewing the ElevenLabs cards.",
    "tools": {
        "generate_speech": {
            "args": {"text": "VoiceOS turns your voice into action.", "voice": "rachel"}
        }
    },
}

_PUBLISHED: Final[dict[str, tuple[type[BaseModel], str, str, dict[str, Any]]]] = {
    "manifest.schema.json": (
        Manifest,
        "Notch integration manifest",
        "A VoiceOS-compatible integration manifest: who publishes the integration, how its "
        "MCP server runs, and its tools. Acting tools carry a `confirmation` view (see "
        "view.schema.json) that Notch shows before the tool runs. Keys Notch does not know "
        "are allowed on the manifest and on tools (reported as warnings); every inner shape "
        "is closed.",
        EXAMPLE_MANIFEST,
    ),
    "view.schema.json": (
        ConfirmationView,
        "Notch confirmation view",
        "A confirmation card: `{schemaVersion: 1, root: <block>}`. Blocks are discriminated "
        "by `type`. Bindings are written `{{path}}` or `<<path>>`; dotted paths address "
        "nested arguments. `canvas` blocks and `role: custom` are reserved for a later "
        "schemaVersion and rejected.",
        EXAMPLE_VIEW,
    ),
    "preview.schema.json": (
        PreviewFixtures,
        "Notch preview fixtures",
        "Sample tool calls per tool, used to preview cards and as test data. Each tool "
        "entry holds `args` and may hold other keys (e.g. `expectedGlanceBlocks`).",
        EXAMPLE_PREVIEW,
    ),
}

SCHEMA_FILES: Final = tuple(_PUBLISHED)


def published_schema(file_name: str) -> dict[str, Any]:
    """The JSON Schema published as `schemas/<file_name>`. KeyError for an unknown name."""
    model, title, description, example = _PUBLISHED[file_name]
    generated = model.model_json_schema(by_alias=True, mode="validation")
    generated.pop("title", None)
    generated.pop("description", None)
    return {
        "$schema": DIALECT,
        "$id": BASE_ID + file_name,
        "title": title,
        "description": description,
        "examples": [example],
        **generated,
    }


def render(schema: dict[str, Any]) -> str:
    """The exact text written to disk (stable key order, trailing newline)."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def default_schema_dir() -> Path:
    """The shipped `schemas/` folder (the repository's top-level `schemas/` in a checkout;
    see `notch_app.bundled`)."""
    return bundled_folder("schemas")


def _every_schema(extra: Mapping[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    schemas = {name: published_schema(name) for name in SCHEMA_FILES}
    schemas.update(extra)
    return schemas


def write_schemas(
    out: Path, extra: Mapping[str, dict[str, Any]] = MappingProxyType({})
) -> list[Path]:
    """Write every published schema into `out` (created if needed); returns the files.

    `extra` adds schemas of models outside this package (the scenario schema lives with
    the card, which this package must not import), by file name."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, schema in _every_schema(extra).items():
        target = out / name
        target.write_text(render(schema), encoding="utf-8")
        written.append(target)
    return written


def stale_schemas(
    out: Path, extra: Mapping[str, dict[str, Any]] = MappingProxyType({})
) -> list[str]:
    """Names of the schema files in `out` that are missing or differ from the models."""
    stale = []
    for name, schema in _every_schema(extra).items():
        target = out / name
        try:
            current = target.read_text(encoding="utf-8")
        except OSError:
            stale.append(name)
            continue
        if current != render(schema):
            stale.append(name)
    return stale
