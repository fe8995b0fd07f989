"""JSON Pointers (RFC 6901): the one place they are spelled, joined and followed.

`notch validate` places every problem by a pointer (`/tools/0/inputSchema/properties/to`),
a schema's `$ref` names its target by one (`#/$defs/user`), and scenario files name the
step a problem is in by one. Tokens escape `~` as `~0` and `/` as `~1`.
"""

from __future__ import annotations

from typing import Any, Final
from urllib.parse import unquote

NOWHERE: Final[Any] = object()
"""What `pointer_target` returns when nothing is at the pointer."""


def escape_pointer_token(token: str | int) -> str:
    """One reference token as a pointer spells it (`a/b` → `a~1b`, `~` → `~0`)."""
    text = token if isinstance(token, str) else str(token)
    # Most tokens need no escaping; skipping the two replaces matters on hot paths.
    if "~" in text or "/" in text:
        return text.replace("~", "~0").replace("/", "~1")
    return text


def unescape_pointer_token(token: str) -> str:
    """A reference token back as the key it names (`a~1b` → `a/b`)."""
    if "~" in token:
        return token.replace("~1", "/").replace("~0", "~")
    return token


def join_pointer(base: str, *tokens: str | int) -> str:
    """`join_pointer('/tools', 0, 'name')` → `/tools/0/name`."""
    # Called for every node the rules walk: a plain loop, no generator per call.
    out = base
    for token in tokens:
        out += "/" + escape_pointer_token(token)
    return out


def parent_pointer(pointer: str) -> str:
    """The pointer one level up (`/tools/0/name` → `/tools/0`; "" stays "")."""
    return pointer.rsplit("/", 1)[0] if pointer else ""


def pointer_tokens(pointer: str, *, percent_encoded: bool = False) -> list[str]:
    """The keys and indices `pointer` names, unescaped ("" names none: the whole
    document). `percent_encoded`: the pointer is a URI fragment (`#/a%20b`)."""
    if pointer == "":
        return []
    out: list[str] = []
    for token in pointer.split("/")[1:]:
        if percent_encoded:
            token = unquote(token)
        out.append(unescape_pointer_token(token))
    return out


def pointer_target(document: Any, pointer: str, *, percent_encoded: bool = False) -> Any:
    """The value at JSON Pointer `pointer` ("" is the whole document), else NOWHERE."""
    node = document
    for token in pointer_tokens(pointer, percent_encoded=percent_encoded):
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return NOWHERE
    return node


__all__ = [
    "NOWHERE",
    "escape_pointer_token",
    "join_pointer",
    "parent_pointer",
    "pointer_target",
    "pointer_tokens",
    "unescape_pointer_token",
]
