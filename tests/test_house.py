"""The house's size rules (issue 19): no module under notch_app over 600 lines, no
function over 80. A module or function still too long is named below, each entry to be
removed the moment it fits (the test says so when one does)."""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "notch_app"
MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 80

# Still too long (issue 19 item 4). Never add to these lists: split the module, or the
# function, instead; the third test below fails once an entry fits, to take it out.
LONG_MODULES_LEFT: frozenset[str] = frozenset()
LONG_FUNCTIONS_LEFT: frozenset[str] = frozenset()

pytestmark = pytest.mark.quality


def _modules() -> Iterator[tuple[str, str]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path.relative_to(ROOT).as_posix(), path.read_text(encoding="utf-8")


def _functions(tree: ast.AST, prefix: str = "") -> Iterator[tuple[str, int]]:
    """Every function and method in `tree` with its length in lines (its `def` line to
    its last line), named as `Class.method`, nested ones under their parent."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            name = f"{prefix}{node.name}"
            assert node.end_lineno is not None
            yield name, node.end_lineno - node.lineno + 1
            yield from _functions(node, f"{name}.")
        elif isinstance(node, ast.ClassDef):
            yield from _functions(node, f"{prefix}{node.name}.")
        else:
            yield from _functions(node, prefix)


def _long_modules() -> dict[str, int]:
    sizes = {path: len(text.splitlines()) for path, text in _modules()}
    return {path: lines for path, lines in sizes.items() if lines > MAX_MODULE_LINES}


@functools.cache  # two tests ask; parsing the package takes ~1.5 s
def _long_functions() -> dict[str, int]:
    found: dict[str, int] = {}
    for path, text in _modules():
        for name, lines in _functions(ast.parse(text, filename=path)):
            if lines > MAX_FUNCTION_LINES:
                found[f"{path}::{name}"] = lines
    return found


def test_no_module_is_over_600_lines() -> None:
    long = _long_modules()
    new = {path: lines for path, lines in long.items() if path not in LONG_MODULES_LEFT}
    assert not new, (
        f"over {MAX_MODULE_LINES} lines: {new}; split the module along its concerns (a "
        "package with a public face in its __init__, as CONTRIBUTING's layout map shows)"
    )


def test_no_function_is_over_80_lines() -> None:
    long = _long_functions()
    new = {name: lines for name, lines in long.items() if name not in LONG_FUNCTIONS_LEFT}
    assert not new, (
        f"over {MAX_FUNCTION_LINES} lines: {new}; give each step its own function, named "
        "for what it does"
    )


def test_the_lists_of_what_is_left_name_only_what_is_still_long() -> None:
    fits = sorted(LONG_MODULES_LEFT - set(_long_modules()))
    fits += sorted(LONG_FUNCTIONS_LEFT - set(_long_functions()))
    assert not fits, f"these fit now (or are gone): remove them from tests/test_house.py: {fits}"


def test_the_measure_sees_a_long_function_and_names_it_by_its_class() -> None:
    body = "\n".join(f"        x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    tree = ast.parse(f"class Card:\n    def build(self):\n{body}\n        def inner():\n"
                     "            return 1\n")  # fmt: skip
    lengths = dict(_functions(tree))
    assert lengths["Card.build"] == MAX_FUNCTION_LINES + 3
    assert lengths["Card.build.inner"] == 2
