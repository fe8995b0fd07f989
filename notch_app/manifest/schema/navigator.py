"""One way to read a tool's inputSchema: what lives at an argument path, and what it says.

Validation (`manifest/argument_lookup.py`, `view_rules.py`), the card (`card/schema.py`, `card/coerce.py`) and
guards (`runtime/policy_book/schema_paths.py`) all ask the same questions of the same
schema — what is at `user.name`, which types may it hold, which values does it allow, is
it required — so they ask this one navigator and cannot disagree.

References are resolved with `referencing` (the library jsonschema itself uses), so a
`$ref` names exactly what validation names: `#`, `#/json/pointer`, `#anchor`, and
`$id`-scoped references inside the same document. Notch never fetches schemas: a
reference to another document names nothing.

The answers, written once:
- `types(node)`: the union over the node, its `$ref` target and its allOf/anyOf/oneOf
  branches of each branch's `type`; a branch without `type` counts the JSON types of its
  `enum`/`const` values (`enum: [1, 2]` is `integer`, `[1.5]` is `number`). Empty = any.
- `enum(node)`: `enum`, else `const`, else an allOf branch's, else — when every anyOf/oneOf
  branch pins values — all of them; None when any value is allowed.
- `child(node, segment)`: a declared property (merged over branches), else for a digit
  `prefixItems[i]` or `items`, else `additionalProperties` when it is a schema.
- `is_required(path)`: the last segment is in `required` of its parent or an allOf branch.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Final

from notch_app.manifest.paths import NOWHERE

if TYPE_CHECKING:
    from referencing._core import Resolver  # the public name of lookup() results' resolver

MAX_REF_HOPS: Final = 16
"""`$ref` chains longer than this are cut, so a cycle cannot loop."""

MAX_BRANCHES: Final = 64
"""Schema objects looked at for one node (its ref chain and combinator branches)."""

MAX_PATH_DEPTH: Final = 8
MAX_PATHS: Final = 2000

_ROOT_URI: Final = "urn:notch:input-schema"
_COMBINATORS: Final = ("allOf", "anyOf", "oneOf")


def value_types(values: list[Any]) -> frozenset[str]:
    """The JSON types of literal values (`integer` for 1, `number` for 1.5)."""
    out: set[str] = set()
    for v in values:
        if v is None:
            out.add("null")
        elif isinstance(v, bool):
            out.add("boolean")
        elif isinstance(v, int):
            out.add("integer")
        elif isinstance(v, float):
            out.add("integer" if v.is_integer() else "number")
        elif isinstance(v, str):
            out.add("string")
        elif isinstance(v, list):
            out.add("array")
        elif isinstance(v, dict):
            out.add("object")
    return frozenset(out)


class SchemaNavigator:
    """Answers about one inputSchema (`root`). Never raises for any schema content: a
    reference that names nothing reads as NOWHERE, an odd keyword as "not said".

    Nodes handed in must come from `root` (or be `root`): `$id` scopes are tracked for
    the nodes this navigator handed out."""

    def __init__(self, root: Any) -> None:
        self.root: Any = root
        self._resolver: Resolver[Any] | None = None
        self._scopes: dict[int, Resolver[Any]] = {}
        self._targets: dict[tuple[int, str], Any] = {}
        self._nested_ids = _has_nested_id(root)

    # --- references --------------------------------------------------------------------

    def _root_resolver(self) -> Resolver[Any]:
        # Made on the first `$ref`: most tool schemas have none and never pay for it
        # (nor load `referencing`: an idle Notch's bundled schemas need it not).
        if self._resolver is None:
            from referencing import Registry
            from referencing.jsonschema import DRAFT202012

            resource = DRAFT202012.create_resource(self.root)
            registry: Registry[Any] = Registry().with_resource(_ROOT_URI, resource).crawl()
            self._resolver = registry.resolver(base_uri=_ROOT_URI).in_subresource(resource)
        return self._resolver

    def ref_target(self, ref: str, *, scope: Any = None) -> Any:
        """What `ref` names, read from `scope`'s place in the document (the root when
        None), else NOWHERE (also for a reference to another document)."""
        key = (id(scope), ref)
        if key in self._targets:
            return self._targets[key]
        found: Any = NOWHERE
        if ref == "#/":
            found = self.root  # an empty final token: the root, as validators read it
        else:
            try:
                base = self._scopes.get(id(scope)) or self._root_resolver()
                resolved = base.lookup(ref)
            except Exception:  # untrusted schema: any failure names nothing
                found = NOWHERE
            else:
                # The registry holds only this document: whatever resolves is inside it.
                found = resolved.contents
                if isinstance(found, dict):
                    self._scopes.setdefault(id(found), resolved.resolver)
        self._targets[key] = found
        return found

    def resolve(self, node: Any) -> Any:
        """`node` with its `$ref` chain followed (at most MAX_REF_HOPS hops), else NOWHERE
        when a reference names nothing. A node without `$ref` comes back as it is."""
        for _ in range(MAX_REF_HOPS):
            if not isinstance(node, dict):
                return node
            ref = node.get("$ref")
            if not isinstance(ref, str):
                return node
            node = self.ref_target(ref, scope=node)
        return node

    def _adopt(self, parent: Any, child: Any) -> None:
        # A child keeps its parent's `$id` scope, or opens its own. Only schemas with a
        # nested `$id` have scopes to keep; the rest skip this.
        if not self._nested_ids:
            return
        scope = self._scopes.get(id(parent))
        if isinstance(child, dict) and "$id" in child:
            from referencing.jsonschema import DRAFT202012

            try:
                base = scope or self._root_resolver()
                scope = base.in_subresource(DRAFT202012.create_resource(child))
            except Exception:  # a malformed $id keeps the parent's scope
                pass
        if scope is not None and isinstance(child, dict):
            self._scopes.setdefault(id(child), scope)

    # --- one node ------------------------------------------------------------------------

    def branches(
        self, node: Any, combinators: tuple[str, ...] = _COMBINATORS
    ) -> list[dict[str, Any]]:
        """`node`, its `$ref` targets and (recursively) its combinator branches, each a
        schema object, at most MAX_BRANCHES of them."""
        if not isinstance(node, dict):
            return []
        if "$ref" not in node and not any(k in node for k in combinators):
            return [node]  # the common case: a plain schema object
        out: list[dict[str, Any]] = []
        seen: set[int] = set()
        stack: list[Any] = [node]
        while stack and len(out) < MAX_BRANCHES:
            current = stack.pop()
            if not isinstance(current, dict) or id(current) in seen:
                continue
            seen.add(id(current))
            out.append(current)
            subs: list[Any] = []
            ref = current.get("$ref")
            if isinstance(ref, str):
                target = self.ref_target(ref, scope=current)
                if target is not NOWHERE:
                    subs.append(target)
            for key in combinators:
                listed = current.get(key)
                if isinstance(listed, list):
                    for sub in listed:
                        self._adopt(current, sub)
                        subs.append(sub)
            stack.extend(reversed(subs))
        return out

    def types(self, node: Any) -> frozenset[str]:
        """The JSON types `node` may hold (see the module docstring); empty = any."""
        return frozenset(self.type_list(node))

    def type_list(self, node: Any) -> list[str]:
        """`types(node)` in the order the schema writes them (coercion tries them in turn)."""
        out: list[str] = []
        for branch in self.branches(node):
            declared = branch.get("type")
            if isinstance(declared, str):
                found: list[str] = [declared]
            elif isinstance(declared, list):
                found = [t for t in declared if isinstance(t, str)]
            elif isinstance(branch.get("enum"), list):
                found = sorted(value_types(branch["enum"]))
            elif "const" in branch:
                found = sorted(value_types([branch["const"]]))
            else:
                continue
            out.extend(t for t in found if t not in out)
        return out

    def enum(self, node: Any, _depth: int = 0) -> list[Any] | None:
        """The values `node` allows, or None when it does not pin them."""
        node = self.resolve(node)
        if not isinstance(node, dict) or _depth > MAX_REF_HOPS:
            return None
        if isinstance(node.get("enum"), list):
            return list(node["enum"])
        if "const" in node:
            return [node["const"]]
        all_of = node.get("allOf")
        if isinstance(all_of, list):
            for sub in all_of:
                self._adopt(node, sub)
                found = self.enum(sub, _depth + 1)
                if found is not None:
                    return found
        for key in ("anyOf", "oneOf"):
            subs = node.get(key)
            if isinstance(subs, list) and subs:
                values: list[Any] = []
                for sub in subs:
                    self._adopt(node, sub)
                    found = self.enum(sub, _depth + 1)
                    if found is None:
                        break
                    values.extend(found)
                else:
                    return values
        return None

    def properties(self, node: Any) -> dict[str, Any] | None:
        """Declared properties, merged over the branches; None when no branch declares any."""
        found: dict[str, Any] | None = None
        for branch in self.branches(node):
            props = branch.get("properties")
            if isinstance(props, dict):
                for name, sub in props.items():
                    self._adopt(branch, sub)
                    found = found if found is not None else {}
                    found.setdefault(name, sub)
                if found is None:
                    found = {}
        return found

    def items(self, node: Any, index: int | None = None) -> dict[str, Any] | None:
        """The schema of an array element (`prefixItems[index]` first, else `items`),
        resolved; None when the schema does not say."""
        branches = self.branches(node)
        if index is not None:
            for branch in branches:
                prefix = branch.get("prefixItems")
                if isinstance(prefix, list) and index < len(prefix):
                    self._adopt(branch, prefix[index])
                    return self.schema(prefix[index])
        for branch in branches:
            items = branch.get("items")
            if isinstance(items, dict | bool):
                self._adopt(branch, items)
                return self.schema(items)
        return None

    def child(self, node: Any, segment: str) -> dict[str, Any] | None:
        """The schema one dotted-path segment below `node`, resolved; None when the
        schema declares nothing there."""
        props = self.properties(node)
        if props is not None and segment in props:
            return self.schema(props[segment])
        if segment.isdigit():
            found = self.items(node, int(segment))
            if found is not None:
                return found
            if "array" in self.types(node):
                return {}  # an element of a list whose elements the schema leaves open
        for branch in self.branches(node):
            extra = branch.get("additionalProperties")
            if isinstance(extra, dict):
                self._adopt(branch, extra)
                return self.schema(extra)
        return None

    def schema(self, node: Any) -> dict[str, Any] | None:
        """`node` with references followed: `{}` for `true` or a reference that names
        nothing (validation reports those), None for anything that is not a schema."""
        found = self.resolve(node)
        if found is True or found is NOWHERE:
            return {}  # anything goes (or a broken reference, reported by validation)
        return found if isinstance(found, dict) else None

    # --- paths -----------------------------------------------------------------------------

    def at(self, path: str) -> dict[str, Any] | None:
        """The schema of the argument at dotted `path` ("" is the arguments object),
        resolved; None when the schema declares nothing there."""
        node = self.schema(self.root)
        if path == "":
            return node
        for segment in path.split("."):
            if node is None:
                return None
            node = self.child(node, segment)
        return node

    def is_required(self, path: str) -> bool:
        """Whether the last segment of `path` is in `required` of its parent object (or
        one of the parent's allOf branches)."""
        parent_path, _, leaf = path.rpartition(".")
        parent = self.at(parent_path)
        if parent is None:
            return False
        for branch in self.branches(parent, combinators=("allOf",)):
            required = branch.get("required")
            if isinstance(required, list) and leaf in required:
                return True
        return False

    def through_arrays(self, node: Any) -> Any:
        """The element schema of an array (of arrays...), else `node` itself."""
        for _ in range(MAX_PATH_DEPTH):
            if "array" not in self.types(node):
                break
            inner = self.items(node)
            if inner is None:
                break
            node = inner
        return node

    def argument_paths(self) -> Iterator[tuple[str, dict[str, Any], dict[str, Any]]]:
        """Every declared property path, nested objects and array elements included (a
        list's path stands for its elements): (path, the property as written, its schema
        after following references and looking through arrays). At most MAX_PATHS."""
        count = 0
        stack: list[tuple[Any, str, int]] = [(self.schema(self.root), "", 0)]
        while stack:
            node, prefix, depth = stack.pop()
            if node is None or depth > MAX_PATH_DEPTH:
                continue
            props = self.properties(node)
            if not props:
                continue
            below: list[tuple[Any, str, int]] = []
            for name, written in props.items():
                resolved = self.schema(written)
                if not isinstance(name, str) or resolved is None or not isinstance(written, dict):
                    continue
                path = f"{prefix}.{name}" if prefix else name
                inner = self.through_arrays(resolved)
                yield path, written, inner
                count += 1
                if count >= MAX_PATHS:
                    return
                below.append((inner, path, depth + 1))
            stack.extend(reversed(below))


def _has_nested_id(root: Any) -> bool:
    stack: list[Any] = [root]
    first = True
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if not first and "$id" in node:
                return True
            stack.extend(v for v in node.values() if isinstance(v, dict | list))
        elif isinstance(node, list):
            stack.extend(v for v in node if isinstance(v, dict | list))
        first = False
    return False


_NAVIGATORS: dict[int, SchemaNavigator] = {}
_MAX_NAVIGATORS: Final = 128


def navigator_for(root: Any) -> SchemaNavigator:
    """The navigator of `root`, made once per schema object (tools are frozen, so their
    schemas do not change; the entry holds its root, so an id is never reused)."""
    found = _NAVIGATORS.get(id(root))
    if found is not None and found.root is root:
        return found
    navigator = SchemaNavigator(root)
    if len(_NAVIGATORS) >= _MAX_NAVIGATORS:
        _NAVIGATORS.pop(next(iter(_NAVIGATORS)))
    _NAVIGATORS[id(root)] = navigator
    return navigator


__all__ = [
    "MAX_REF_HOPS",
    "SchemaNavigator",
    "navigator_for",
    "value_types",
]
