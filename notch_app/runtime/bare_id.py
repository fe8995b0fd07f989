"""The integration id of a bare MCP server, `mcp.local.<slug>` (`notch mcp --name NAME`).

Apart from `attached`, which loads and checks what a gateway attaches (the manifest
models, generated cards, the catalog): `notch mcp --name` works its id out before it
starts relaying, and needs none of that.
"""

from __future__ import annotations

import re
from typing import Final

BARE_PREFIX: Final = "mcp.local."


class AttachRefused(ValueError):
    """What a gateway asked to attach cannot be: the message names the place and the fix."""


def bare_integration_id(name: str) -> str:
    """The integration id of a bare server called `name`: `mcp.local.<slug>`."""
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:60].strip("-")
    if not slug:
        raise AttachRefused(
            f"--name {name!r} has no letters or digits; name the server, e.g. --name files"
        )
    return BARE_PREFIX + slug
