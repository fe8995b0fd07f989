"""Bounds on untrusted manifests: each one is refused with a clear error, never a crash."""

from typing import Final

MAX_FILE_BYTES: Final = 4 * 1024 * 1024
"""A manifest or fixture file larger than this is refused before it is parsed."""

MAX_NESTING_DEPTH: Final = 64
"""Deepest nesting of JSON objects/arrays in a file (checked before json.loads, so no RecursionError)."""

MAX_TOOLS: Final = 5000
MAX_BLOCKS_PER_VIEW: Final = 1000
MAX_VIEW_DEPTH: Final = 24
"""Deepest nesting of blocks inside one confirmation view."""

MAX_NAME_CHARS: Final = 128
"""Identifiers: tool names, ids, option values used as keys."""

REVERSE_DNS: Final = r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$"
"""The form of an integration id (`com.example.mail`); here, where using it loads no
models (`runtime.secrets` names keyring entries after ids)."""

MAX_LABEL_CHARS: Final = 500
"""Labels, titles, badge text, button labels."""

MAX_TEXT_CHARS: Final = 20_000
"""Display text and markdown source."""

MAX_URL_CHARS: Final = 2048
MAX_IMAGE_SRC_CHARS: Final = 1024 * 1024
"""An image may be an inline data: URI, so its source can be long."""

MAX_OPTIONS: Final = 500
MAX_ITEMS: Final = 500

MAX_READ_BACK_TEMPLATE_CHARS: Final = 300
"""A confirmation's `readBack` template: one sentence, as the read-back it makes."""

MAX_GLANCE_BLOCKS: Final = 3
"""Blocks a result glance shows at most; here, where checking a fixture's
`expectedGlanceBlocks` against it loads none of the glance models."""
