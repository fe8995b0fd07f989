"""The card driver (notch_app/ui/card_driver.py) holds the test seams, not the widgets:
no production module imports QtTest, the block modules import each other without a
cycle, and the driver still works the card as a person would."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path
from typing import Any

from notch_app.ui.card_driver import CardDriver
from notch_app.ui.card_view import CardView

PACKAGE = Path(__file__).resolve().parents[2] / "notch_app"


def _imports(path: Path) -> set[str]:
    """Every module `path` imports (absolute names), wherever the import statement is."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
            out.update(f"{node.module}.{alias.name}" for alias in node.names)
    return out


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_no_production_module_imports_qttest() -> None:
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if any(name.startswith("PySide6.QtTest") for name in _imports(path)) or (
            "QtTest" in text and "import_module" in text
        ):
            offenders.append(_module_name(path))
    assert offenders == [], f"QtTest imported by production code: {offenders}"


def test_building_a_card_loads_no_test_module() -> None:
    # In a fresh interpreter: the card, its blocks and the app's overlay never pull
    # QtTest (or pytest) in, even indirectly.
    code = (
        "import sys, notch_app.ui.card_view, notch_app.ui.overlay_presenter;"
        "print(sorted(m for m in sys.modules if 'QtTest' in m or m.startswith('pytest')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "[]"


def test_card_view_has_no_test_api() -> None:
    for name in ("set_via_widget", "visible_text", "blockers_text"):
        assert not hasattr(CardView, name), f"CardView.{name} belongs in the card driver"


def test_block_modules_import_each_other_without_a_cycle() -> None:
    blocks = PACKAGE / "ui" / "blocks"
    graph: dict[str, set[str]] = {}
    for path in blocks.glob("*.py"):
        name = _module_name(path)
        graph[name] = {
            m for m in _imports(path) if m.startswith("notch_app.ui.blocks") and m != name
        }
    # Resolve "package.symbol" imports to the module that exists.
    modules = set(graph)
    for name, deps in graph.items():
        graph[name] = {d if d in modules else d.rsplit(".", 1)[0] for d in deps} & modules
    # No block module imports the registry (it imports them all).
    importers = sorted(n for n, deps in graph.items() if "notch_app.ui.blocks" in deps)
    assert importers == [], f"import the registry through ctx.build instead: {importers}"
    visiting: list[str] = []
    done: set[str] = set()

    def visit(node: str) -> None:
        if node in done:
            return
        assert node not in visiting, f"import cycle: {' -> '.join([*visiting, node])}"
        visiting.append(node)
        for dep in sorted(graph[node]):
            visit(dep)
        visiting.pop()
        done.add(node)

    for node in sorted(graph):
        visit(node)


def test_the_driver_types_key_by_key_like_a_person(qtbot: Any, card: Any, watch: Any) -> None:
    view = card(
        [{"type": "textField", "bind": "{{text}}", "label": "Text", "required": True}],
        {"text": {"type": "string"}},
        {"text": "hello"},
    )
    qtbot.addWidget(view)
    view.show()
    edits: list[str] = []
    view.input_widget("text").textEdited.connect(edits.append)
    got = watch(view)
    driver = CardDriver(view)
    driver.set("text", "Hi Sam")
    assert edits == ["H", "Hi", "Hi ", "Hi S", "Hi Sa", "Hi Sam"]  # one per key
    assert "Hi Sam" in driver.visible_text().splitlines()
    driver.set("text", "")  # a Backspace over the selection
    assert edits[-1] == ""
    assert not view.confirm_button().isEnabled()
    assert "Text is required" in driver.blockers_text()  # touched: now it may say so
    driver.set("text", "ok")
    assert driver.press("confirm")
    assert got == [(True, {"text": "ok"}, ["text"])]
