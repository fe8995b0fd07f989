"""Dotted argument paths: reading and copy-on-write writing of nested arguments."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from notch_app.card.paths import MISSING, PathError, delete_path, get_path, set_path

ARGS: dict[str, Any] = {
    "text": "hi",
    "user": {"name": "Ada", "tags": ["a", "b"]},
    "recipients": [{"email": "x@example.com"}, {"email": "y@example.com"}],
    "count": 0,
    "note": None,
    "0": "a key that looks like an index",
}


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("text", "hi"),
        ("user.name", "Ada"),
        ("user.tags.1", "b"),
        ("recipients.0.email", "x@example.com"),
        ("count", 0),
        ("note", None),
        ("0", "a key that looks like an index"),
        ("missing", MISSING),
        ("user.missing", MISSING),
        ("user.tags.2", MISSING),
        ("user.tags.x", MISSING),
        ("text.length", MISSING),  # no stepping into a string
        ("count.0", MISSING),
        ("recipients.-1", MISSING),  # no negative indexes
    ],
)
def test_get_path_reads_nested_objects_and_lists(path: str, expected: Any) -> None:
    assert get_path(ARGS, path) == expected or get_path(ARGS, path) is expected


def test_missing_is_distinct_from_null_and_falsy() -> None:
    assert get_path(ARGS, "note") is None
    assert get_path(ARGS, "nope") is MISSING
    assert not MISSING
    assert repr(MISSING) == "MISSING"


def test_set_path_returns_new_dict_and_leaves_the_original_alone() -> None:
    before = copy.deepcopy(ARGS)
    out = set_path(ARGS, "user.name", "Grace")
    assert out["user"]["name"] == "Grace"
    assert before == ARGS
    # Untouched branches are shared, not copied: a huge argument costs nothing to keep.
    assert out["recipients"] is ARGS["recipients"]
    assert out["user"]["tags"] is ARGS["user"]["tags"]


def test_set_path_creates_missing_objects_along_the_way() -> None:
    out = set_path({}, "a.b.c", 1)
    assert out == {"a": {"b": {"c": 1}}}


def test_set_path_replaces_a_scalar_where_an_object_is_needed() -> None:
    assert set_path({"a": "text"}, "a.b", 1) == {"a": {"b": 1}}


def test_set_path_writes_into_and_appends_to_lists() -> None:
    out = set_path(ARGS, "user.tags.0", "z")
    assert out["user"]["tags"] == ["z", "b"]
    assert ARGS["user"]["tags"] == ["a", "b"]
    appended = set_path(ARGS, "user.tags.2", "c")
    assert appended["user"]["tags"] == ["a", "b", "c"]
    deep = set_path(ARGS, "recipients.1.email", "z@example.com")
    assert deep["recipients"][1] == {"email": "z@example.com"}
    assert deep["recipients"][0] is ARGS["recipients"][0]


@pytest.mark.parametrize("path", ["user.tags.5", "user.tags.name", "a..b", ""])
def test_set_path_refuses_paths_it_cannot_write(path: str) -> None:
    with pytest.raises(PathError):
        set_path(ARGS, path, 1)


def test_delete_path_removes_keys_and_list_elements_copy_on_write() -> None:
    before = copy.deepcopy(ARGS)
    assert "name" not in delete_path(ARGS, "user.name")["user"]
    assert delete_path(ARGS, "user.tags.0")["user"]["tags"] == ["b"]
    assert "text" not in delete_path(ARGS, "text")
    assert delete_path(ARGS, "nothing.here") == ARGS
    assert before == ARGS


json_scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=5)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text("abc", max_size=2), inner, max_size=3)
    ),
    max_leaves=8,
)
keys = st.text("abcxyz", min_size=1, max_size=3)
paths = st.lists(keys, min_size=1, max_size=3).map(".".join)


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(keys, json_values, max_size=4), paths, json_values)
def test_set_then_get_round_trips_without_mutating(
    args: dict[str, Any], path: str, value: Any
) -> None:
    before = copy.deepcopy(args)
    try:
        out = set_path(args, path, value)
    except PathError:
        # Only a list along the path (indexed by a name, or past its end) refuses.
        parts = path.split(".")
        assert any(
            isinstance(get_path(args, ".".join(parts[:i])), list) for i in range(1, len(parts))
        )
        assert args == before
        return
    assert get_path(out, path) == value
    assert args == before
    removed = delete_path(out, path)
    assert get_path(removed, path) is MISSING
    assert get_path(out, path) == value
