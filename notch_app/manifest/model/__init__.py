"""The contract as frozen pydantic models: the readable spec of what an integration writes.

- `manifest.py`: the integration manifest (`Manifest`, its `Tool`s), VoiceOS-compatible;
- `view.py`: the confirmation view and its block vocabulary (`ConfirmationView`, the
  blocks, `walk_blocks`);
- `fixtures.py`: preview fixtures, sample arguments per tool (`PreviewFixtures`);
- `schemas.py`: the published JSON Schemas, generated from these models (`notch schema`).

A model here knows nothing of files, positions or rules: reading a file with its places
is `manifest/reading/`, the checks behind `notch validate` are `manifest/rules/`.
"""

from notch_app.manifest.model.fixtures import PreviewFixtures
from notch_app.manifest.model.manifest import LocalMcpRuntime, Manifest, Tool
from notch_app.manifest.model.schemas import (
    BASE_ID,
    DIALECT,
    default_schema_dir,
    stale_schemas,
    write_schemas,
)
from notch_app.manifest.model.view import (
    BLOCK_TYPES,
    CHILD_KEYS,
    INPUT_TYPES,
    RESERVED_BLOCK_TYPES,
    RESERVED_ROLES,
    ROOT_ONLY_TYPES,
    SUPPORTED_VIEW_VERSIONS,
    ActionItem,
    ActionsBlock,
    BadgeBlock,
    ButtonBlock,
    CardBlock,
    ChipsBlock,
    ConfirmationView,
    DividerBlock,
    ImageBlock,
    InputBlock,
    KeyValueBlock,
    ListBlock,
    ListItemBlock,
    MarkdownBlock,
    MetadataBlock,
    PasswordFieldBlock,
    ProgressBlock,
    SelectBlock,
    StackBlock,
    TextBlock,
    TextFieldBlock,
    ToggleBlock,
    WidgetBlock,
    iter_blocks,
    walk_blocks,
)

__all__ = [
    "BASE_ID",
    "BLOCK_TYPES",
    "CHILD_KEYS",
    "DIALECT",
    "INPUT_TYPES",
    "RESERVED_BLOCK_TYPES",
    "RESERVED_ROLES",
    "ROOT_ONLY_TYPES",
    "SUPPORTED_VIEW_VERSIONS",
    "ActionItem",
    "ActionsBlock",
    "BadgeBlock",
    "ButtonBlock",
    "CardBlock",
    "ChipsBlock",
    "ConfirmationView",
    "DividerBlock",
    "ImageBlock",
    "InputBlock",
    "KeyValueBlock",
    "ListBlock",
    "ListItemBlock",
    "LocalMcpRuntime",
    "Manifest",
    "MarkdownBlock",
    "MetadataBlock",
    "PasswordFieldBlock",
    "PreviewFixtures",
    "ProgressBlock",
    "SelectBlock",
    "StackBlock",
    "TextBlock",
    "TextFieldBlock",
    "ToggleBlock",
    "Tool",
    "WidgetBlock",
    "default_schema_dir",
    "iter_blocks",
    "stale_schemas",
    "walk_blocks",
    "write_schemas",
]
