"""Following local `$ref`s inside one inputSchema.

One resolver for everything that looks through references without jsonschema: the
`input-schema-invalid` check (does a `$ref` name anything?), binding lookups in
`rules.py`, and the card finding the schema of a bound argument (`card/schema.py`).
Only references inside the same document exist here (Notch never fetches schemas):
`#`, `#/json/pointer` (percent-decoded, `~1`/`~0` unescaped) and `#anchor`.
"""

from __future__ import annotations

from typing import Any, Final
from urllib.parse import unquote

NOWHERE: Final[Any] = object()
"""What `pointer_target`, `ref_target` and `follow_refs` return when nothing is there."""

MAX_REF_HOPS: Final = 16
"""`$ref` chains longer than this are cut, so a cycle cannot loop."""


def pointer_target(document: Any, pointer: str, *, percent_encoded: bool = False) -> Any:
    """The value at JSON Pointer `pointer` ("" is the whole document), else NOWHERE."""
    node = document
    if pointer == "":
        return node
    for token in pointer.split("/")[1:]:
        if percent_encoded:
            token = unquote(token)
        token = token.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return NOWHERE
    return node


def ref_target(root: Any, ref: str) -> Any:
    """What the local reference `ref` names inside `root`, else NOWHERE (also for a
    reference to another document)."""
    if not ref.startswith("#"):
        return NOWHERE
    if ref == "#" or ref.startswith("#/"):
        return pointer_target(root, ref[1:], percent_encoded=True)
    name = ref[1:]
    stack: list[Any] = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if name in (node.get("$anchor"), node.get("$dynamicAnchor")):
                return node
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return NOWHERE


def follow_refs(root: Any, node: Any) -> Any:
    """`node` with its `$ref` chain followed (at most MAX_REF_HOPS hops), else NOWHERE
    when a reference names nothing."""
    for _ in range(MAX_REF_HOPS):
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if not isinstance(ref, str):
            return node
        node = ref_target(root, ref)
        if node is NOWHERE:
            return NOWHERE
    return node
