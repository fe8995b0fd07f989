"""One `$ref` resolver for validation, the card and guards: it names what jsonschema names."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from hypothesis import given, settings
from hypothesis import strategies as st
from referencing import Registry
from referencing.jsonschema import DRAFT202012

from notch_app.card.schema import property_schema
from notch_app.manifest.paths import NOWHERE
from notch_app.manifest.rules import lookup
from notch_app.manifest.schema import SchemaNavigator

NAMES = st.sampled_from(["a", "b/c", "t~1", "sp ace", "50%", "ü", "0"])
leaf = st.fixed_dictionaries({"type": st.sampled_from(["string", "integer", "boolean"])})
documents = st.recursive(
    leaf,
    lambda inner: (
        st.fixed_dictionaries({"properties": st.dictionaries(NAMES, inner, min_size=1, max_size=3)})
        | st.fixed_dictionaries({"anyOf": st.lists(inner, min_size=1, max_size=2)})
    ),
    max_leaves=8,
)


def _paths(node: Any, here: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    out = [here] if isinstance(node, dict) else []  # a $ref names a schema, never a list
    children = node.items() if isinstance(node, dict) else enumerate(node)
    if isinstance(node, dict | list):
        for key, child in children:
            out.extend(_paths(child, (*here, str(key))))
    return out


def _ref(path: tuple[str, ...]) -> str:
    return "#" + "".join(
        "/" + quote(t.replace("~", "~0").replace("/", "~1"), safe="~") for t in path
    )


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(NAMES, documents, min_size=1, max_size=3), st.data())
def test_a_local_ref_names_what_jsonschema_names(defs: dict[str, Any], data: Any) -> None:
    root = {"$defs": defs}
    path = data.draw(st.sampled_from(_paths(root)))
    ref = _ref(path)
    resolver = Registry().with_resource("urn:s", DRAFT202012.create_resource(root))
    expected = resolver.resolver(base_uri="urn:s").lookup("urn:s" + ref).contents
    assert SchemaNavigator(root).ref_target(ref) is expected, ref


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(NAMES, leaf, min_size=1, max_size=3), st.data())
def test_validation_and_the_card_follow_the_same_ref(defs: dict[str, Any], data: Any) -> None:
    name = data.draw(st.sampled_from(sorted(defs)))
    schema = {"type": "object", "$defs": defs, "properties": {"x": {"$ref": _ref(("$defs", name))}}}
    assert lookup(schema, "x").schema == defs[name]
    assert property_schema(schema, "x") == defs[name]


def test_anchors_resolve_and_missing_refs_name_nothing() -> None:
    root = {"$defs": {"mail": {"$anchor": "mail", "type": "string"}}}
    nav = SchemaNavigator(root)
    assert nav.ref_target("#mail") is root["$defs"]["mail"]
    assert nav.ref_target("#/$defs/nope") is NOWHERE
    assert nav.ref_target("other.json#/$defs/mail") is NOWHERE
    schema = {"type": "object", "properties": {"to": {"$ref": "#mail"}}, **root}
    assert lookup(schema, "to").schema == root["$defs"]["mail"]
